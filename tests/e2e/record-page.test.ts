// End to end: recording from the Record page in Debian Chromium, over a real `cua-annotator serve`
// on Xvfb + D-Bus + AT-SPI + openbox with real ffmpeg, the input hook and a GTK form. Chromium runs
// headful on the same display as the form (it is the annotator's screen), and the Pause, Resume
// and Stop buttons are pressed with real X input (xdotool), as an annotator would: those presses
// reach the recorder like any other and must not become steps. Also: the countdown and its
// cancel, a reload while recording, Discard leaving nothing behind, and a non-loopback client
// refused the recorder methods.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../src/shared/contract';
import { openLibrary } from '../../src/services/library/library';
import { listMarks, readEvents, type MarkRecord } from '../../src/store';
import type { RawEvent } from '../../src/shared/domain';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { REPO_ROOT } from '../helpers/paths';
import { launchGtkForm, type GtkForm } from '../fixtures/apps/gtk-form';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium';
import { callApi, run, stop, type Served } from './serve';

/** The bits of the page's window and images the page-side callbacks use (no DOM types here). */
type PointerTarget = {
  addEventListener: (
    type: 'mousemove',
    listener: (e: { clientX: number; clientY: number }) => void,
    options: { once: boolean },
  ) => void;
};
type ImageLike = { complete: boolean; naturalWidth: number };

/** Screenshots: a temp folder, or docs/screenshots with UPDATE_SCREENSHOTS=1. */
const SCREENSHOT_DIR =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs', 'screenshots')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'cua-screenshots-'));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TASK = 'Press the button and fill in the form';
const RECORDING_TITLE = '● Recording — cua-annotator';
/** Chromium's window: the right part of the 1280×800 screen, clear of the form on the left. */
const CHROMIUM_X = 560;
const CHROMIUM_WIDTH = 720;

// Starts `serve` with the desktop's environment (the recorder captures its DISPLAY).
function startServe(
  desktop: Desktop,
  libraryDir: string,
  rendererDir: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Served> {
  const child = desktop.spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'serve',
      '--port',
      '0',
      '--library',
      libraryDir,
      '--renderer',
      rendererDir,
      ...extra,
    ],
    { cwd: REPO_ROOT, env: { CUA_ANNOTATOR_FROM_SOURCE: '1', ...env } },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /(http:\/\/[0-9.]+:\d+(?:\/s\/[A-Za-z0-9_-]+)?)\/\?token=([A-Za-z0-9_-]+)/.exec(
        stdout,
      );
      if (m?.[1] && m[2]) {
        resolve({ child, url: m[0], origin: m[1], token: m[2] });
      }
    });
    child.once('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
}

// A new empty library in `dir` (serve opens existing libraries only).
function createLibrary(dir: string): string {
  openLibrary(dir).close();
  return dir;
}

// The renderer under test: CUA_E2E_RENDERER, else a fresh build of src/renderer in a temp folder
// (out/renderer may predate these pages, and other test files read it meanwhile).
async function buildRenderer(into: string): Promise<string> {
  if (process.env.CUA_E2E_RENDERER) {
    return process.env.CUA_E2E_RENDERER;
  }
  await run(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
    'build',
    '-c',
    'vite.renderer.config.ts',
    '--outDir',
    into,
    '--emptyOutDir',
  ]);
  return into;
}

describe('Record page end to end (Chromium on Xvfb + serve + GTK form)', () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-record-page-'));
  const lib = path.join(work, 'library');
  let desktop: Desktop;
  let form: GtkForm;
  let served: Served;
  let browser: Browser;
  let page: Page;
  /** Screen position of the page's (0, 0). */
  let origin = { x: 0, y: 0 };
  let recordingId = '';
  const x = (...args: (string | number)[]) => desktop.run('xdotool', args.map(String));

  // real X input: move to the element's centre on screen and click it; returns the screen point
  async function pressOnScreen(locator: Locator): Promise<{ x: number; y: number }> {
    const box = await locator.boundingBox();
    if (!box) {
      throw new Error('element not on screen');
    }
    const at = {
      x: Math.round(origin.x + box.x + box.width / 2),
      y: Math.round(origin.y + box.y + box.height / 2),
    };
    await x('mousemove', at.x, at.y);
    await sleep(120);
    await x('click', 1);
    return at;
  }

  async function clickForm(widget: 'button' | 'entry' | 'password' | 'list'): Promise<void> {
    const w = form.ready.widgets[widget];
    await x('mousemove', w.cx, w.cy);
    await sleep(120);
    await x('click', 1);
    await sleep(400);
  }

  const recordState = () => page.getByTestId('record-state');

  async function listIds(): Promise<string[]> {
    const r = await callApi(served, 'recordings:list', {});
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    return (r.value as { items: { id: string }[] }).items.map((item) => item.id);
  }

  beforeAll(async () => {
    const rendererBuild = buildRenderer(path.join(work, 'renderer'));
    desktop = await startDesktop();
    form = await launchGtkForm(desktop, { x: 20, y: 40 });
    const rendererDir = await rendererBuild;
    served = await startServe(desktop, createLibrary(lib), rendererDir);
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: false,
      env: desktop.env,
      args: [
        ...CHROMIUM_ARGS,
        `--window-position=${CHROMIUM_X},0`,
        `--window-size=${CHROMIUM_WIDTH},800`,
      ],
    });
    const context = await browser.newContext({ viewport: null });
    page = await context.newPage();
    await page.goto(served.url);
    await page.locator('.brand').waitFor();
    // where the page sits on screen: put the pointer at a known spot and read the client position
    const probe = page.evaluate(
      () =>
        new Promise<{ x: number; y: number }>((resolve) => {
          const win = globalThis as unknown as PointerTarget;
          win.addEventListener('mousemove', (e) => resolve({ x: e.clientX, y: e.clientY }), {
            once: true,
          });
        }),
    );
    const at = { x: CHROMIUM_X + 300, y: 500 };
    for (let i = 0; i < 3; i++) {
      await x('mousemove', at.x + i, at.y);
      await sleep(50);
    }
    const client = await probe;
    origin = { x: at.x + 2 - client.x, y: at.y - client.y };
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stop(served?.child);
    await form?.close();
    await desktop?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('the settings page saves a countdown; the Record page counts down and can cancel', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    const countdown = page.getByLabel('Countdown (seconds)');
    await expect.poll(() => countdown.inputValue()).toBe('3');
    await expect.poll(() => page.getByTestId('settings-no-credentials').isVisible()).toBe(true);
    await countdown.fill('2');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByTestId('settings-status').textContent()).toBe('Saved.');
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'settings.png') });
    // a value the service refuses is shown at its field, with the service's message
    await page.getByLabel('Target').fill('http://not-s3');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByTestId('settings-uploadTarget-error').textContent())
      .toMatch(/uploadTarget must be s3:\/\/BUCKET\/PREFIX/);
    await page.getByRole('button', { name: 'Revert' }).click();

    // the health page lists the doctor's checks with a verdict each, and checks again
    await page.getByRole('link', { name: 'Health' }).click();
    const checks = page.getByTestId('health-check');
    await expect.poll(() => checks.count(), { timeout: 20_000 }).toBeGreaterThan(0);
    const verdicts = await checks.evaluateAll((els) =>
      els.map((el) => (el as unknown as { dataset: { verdict: string } }).dataset.verdict),
    );
    expect(verdicts.every((v) => ['ok', 'warn', 'fail'].includes(v))).toBe(true);
    expect(await page.getByTestId('onboarding-linux').getAttribute('open')).not.toBeNull();
    await page.getByRole('button', { name: 'Check again' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Check again' }).isEnabled(), {
        timeout: 20_000,
      })
      .toBe(true);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'health.png'), fullPage: true });

    await page.getByRole('link', { name: 'Record' }).click();
    const start = page.getByRole('button', { name: 'Start recording' });
    await expect.poll(() => recordState().textContent()).toBe('Not recording');
    expect(await start.isDisabled()).toBe(true);
    await page.getByLabel('Task', { exact: true }).fill(TASK);
    expect(await start.isEnabled()).toBe(true);
    await start.click();
    await page.getByTestId('record-countdown').waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await sleep(2500);
    expect(await recordState().textContent()).toBe('Not recording');
    const status = await callApi(served, 'recorder:get-status', {});
    expect((status.value as { state: string }).state).toBe('idle');
  });

  it('records the GTK form: a reload keeps it running, a pause leaves its input out, and Stop opens the recording with only the form’s steps', async () => {
    // the keyboard starts it too: Enter in the Task field
    await page.getByLabel('Task', { exact: true }).press('Enter');
    await page.getByTestId('record-countdown').waitFor();
    await expect.poll(() => recordState().textContent(), { timeout: 20_000 }).toBe('Recording');
    expect(await page.title()).toBe(RECORDING_TITLE);

    // a reload finds the recording still going
    await page.reload();
    await expect.poll(() => recordState().textContent(), { timeout: 10_000 }).toBe('Recording');
    expect(await page.getByTestId('record-live-task').textContent()).toBe(TASK);
    expect(await page.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true);
    await expect.poll(() => page.title()).toBe(RECORDING_TITLE);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'record.png') });

    // the HUD (the desktop app's small window) shows the same recording
    const hud = await page.context().newPage();
    await hud.goto(`${served.origin}/#/hud`);
    await expect.poll(() => hud.getByTestId('hud-state').textContent()).toBe('Recording');
    expect(await hud.getByTestId('hud-task').textContent()).toBe(TASK);
    expect(await hud.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true);
    await hud.close();

    await clickForm('button');
    await clickForm('entry');
    await x('type', '--delay', '60', 'hello');
    await sleep(500);
    await expect
      .poll(async () => Number(await page.getByTestId('record-events').textContent()), {
        timeout: 5000,
      })
      .toBeGreaterThan(0);

    // pause: what happens meanwhile is not recorded
    await pressOnScreen(page.getByRole('button', { name: 'Pause' }));
    await expect.poll(() => recordState().textContent(), { timeout: 10_000 }).toBe('Paused');
    await clickForm('button');
    await clickForm('entry');
    await x('type', '--delay', '60', 'zzz');
    await sleep(300);
    await pressOnScreen(page.getByRole('button', { name: 'Resume' }));
    await expect.poll(() => recordState().textContent(), { timeout: 10_000 }).toBe('Recording');

    await clickForm('password');
    await x('type', '--delay', '60', 'Secret42');
    await sleep(800);

    await pressOnScreen(page.getByRole('button', { name: 'Stop' }));
    await page.waitForURL(/#\/recording\//, { timeout: 30_000 });
    recordingId = decodeURIComponent(/#\/recording\/([^/?#]+)/.exec(page.url())![1]!);
    await expect.poll(() => page.title()).not.toBe(RECORDING_TITLE);

    // the raw input as stored, and the marks (pause, app-input) on the recording clock
    const l = openLibrary(lib);
    let events: RawEvent[];
    let marks: MarkRecord[];
    try {
      const { seq } = l.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(recordingId) as {
        seq: number;
      };
      events = readEvents(l.db, seq);
      marks = listMarks(l.db, seq);
    } finally {
      l.close();
    }
    // what a failure message shows
    const trace = [
      ...events
        .filter((e) => e.kind === 'down' || e.kind === 'keydown')
        .map((e) => `${e.tMs} ${e.kind} ${e.kind === 'down' ? `${e.x},${e.y}` : e.char}`),
      ...marks.map((m) => `${m.tMs}..${m.endMs} mark ${m.kind}`),
    ].join('\n');

    // nothing done during the pause was kept, everything before and after it was
    const typed = events
      .filter((e) => e.kind === 'keydown' && e.char !== null)
      .map((e) => e.char)
      .join('');
    expect(typed, trace).toContain('hello');
    expect(typed, trace).not.toContain('z');

    // the steps are the form's and only those: no press on Pause, Resume or Stop, nothing from
    // the pause
    const got = await callApi(served, 'recordings:get', { id: recordingId });
    expect(got.ok, JSON.stringify(got.error)).toBe(true);
    const rec = got.value as RecordingDto;
    expect(rec.task).toBe(TASK);
    const w = form.ready.widgets;
    const at = (p: { cx: number; cy: number }) => ({ x: p.cx, y: p.cy });
    expect(
      rec.steps.map((step) => ({ kind: step.kind, at: step.coordinate })),
      `${rec.steps.map((step) => step.code).join('\n')}\n${trace}`,
    ).toEqual([
      { kind: 'click', at: at(w.button) },
      { kind: 'click', at: at(w.entry) },
      { kind: 'write', at: null },
      { kind: 'click', at: at(w.password) },
      { kind: 'write', at: null },
    ]);
    // every key typed in the form is in its step: the last one before Pause or Stop too (the
    // app's own press is what is left out, never the annotator's last input before it)
    expect(rec.steps[2]?.code, trace).toBe("pyautogui.write(message='hello')");
    expect(rec.steps[4]?.code, trace).toBe(`pyautogui.write(message='${'•'.repeat(8)}')`);

    // the page shows those steps with their keyframes
    const cards = page.locator('[data-testid=step-card]');
    await expect.poll(() => cards.count(), { timeout: 15_000 }).toBe(rec.steps.length);
    await expect
      .poll(
        () =>
          page.locator('[data-testid=step-card] img').evaluateAll((imgs) =>
            imgs.map((el) => {
              const img = el as unknown as ImageLike;
              return img.complete && img.naturalWidth > 0;
            }),
          ),
        { timeout: 30_000 },
      )
      .toEqual(rec.steps.map(() => true));
  });

  it('Discard, after its confirmation, leaves nothing behind', async () => {
    expect(await listIds()).toEqual([recordingId]);
    // no countdown this time (it was shown above)
    expect((await callApi(served, 'settings:set', { countdownS: 0 })).ok).toBe(true);
    await page.getByRole('link', { name: 'Record' }).click();
    await page.getByLabel('Task', { exact: true }).fill('A botched take');
    await page.getByRole('button', { name: 'Start recording' }).click();
    await expect.poll(() => recordState().textContent(), { timeout: 20_000 }).toBe('Recording');
    const status = await callApi(served, 'recorder:get-status', {});
    const discardedId = (status.value as { recordingId: string }).recordingId;
    expect(fs.readdirSync(path.join(lib, 'recordings'))).toContain(discardedId);
    await clickForm('button');

    await pressOnScreen(page.getByRole('button', { name: 'Discard' }));
    const dialog = page.getByRole('dialog', { name: 'Discard this recording?' });
    await dialog.waitFor();
    // keeping it is the default; then discard for real
    await dialog.getByRole('button', { name: 'Keep recording' }).click();
    expect(await recordState().textContent()).toBe('Recording');
    await page.getByRole('button', { name: 'Discard' }).click();
    await dialog.getByRole('button', { name: 'Discard recording' }).click();
    await page.getByTestId('record-notice').waitFor({ timeout: 30_000 });
    expect(await recordState().textContent()).toBe('Not recording');
    expect(page.url()).toMatch(/#\/record$/);

    expect(await listIds()).toEqual([recordingId]);
    expect(fs.readdirSync(path.join(lib, 'recordings')).filter((f) => !f.startsWith('.'))).toEqual([
      recordingId,
    ]);
  });
});

describe('the recorder methods and a non-loopback client', () => {
  let desktop: Desktop;
  let served: Served;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-record-remote-'));
  const PASSWORD = 'correct-horse-9';

  beforeAll(async () => {
    desktop = await startDesktop({ shouldWaitForWindowManager: false });
    served = await startServe(
      desktop,
      createLibrary(path.join(work, 'library')),
      path.join(work, 'no-renderer'),
      ['--host', '0.0.0.0', '--allow-remote'],
      { CUA_SERVE_PASSWORD: PASSWORD },
    );
  }, 60_000);

  afterAll(async () => {
    await stop(served?.child);
    await desktop?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('refuses recorder:start from another address, while it answers other methods', async () => {
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    expect(external, 'this machine needs a non-loopback IPv4 address').toBeDefined();
    const port = new URL(served.origin).port;
    const call = async (method: string, payload: unknown) => {
      const response = await fetch(`http://${external}:${port}/api/${method}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`x:${PASSWORD}`).toString('base64')}`,
          cookie: `cua_token=${served.token}`,
        },
        body: JSON.stringify(payload),
      });
      return {
        status: response.status,
        body: (await response.json()) as { ok: boolean; error?: { code: string } },
      };
    };
    const listed = await call('recordings:list', {});
    expect(listed.body.ok).toBe(true);
    const start = await call('recorder:start', { task: 'from afar' });
    expect(start.status).toBe(403);
    expect(start.body.error?.code).toBe('FORBIDDEN');
    for (const method of ['recorder:get-status', 'system:health', 'settings:get']) {
      expect((await call(method, {})).status, method).toBe(403);
    }
    expect(fs.readdirSync(path.join(work, 'library', 'recordings'))).toEqual([]);
  });
});
