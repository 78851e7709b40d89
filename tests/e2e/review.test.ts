// End to end: the review UI in Debian Chromium (playwright-core) against a real
// `cua-annotator serve` child over a temp library holding the AgentNet fixture. Edits made in
// the browser autosave, survive a reload, leave the raw events alone, and show up in an export
// started from the UI. Screenshots of both pages go to a temp folder, or to docs/screenshots/
// with UPDATE_SCREENSHOTS=1 (so a test run does not rewrite the README's images).
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { exampleLibrary } from '../helpers/example-library';
import { REPO_ROOT } from '../helpers/paths';
import { launchChromium } from './chromium';
import { ensureRendererBuilt, startServer, stop } from './serve';

const SCREENSHOT_DIR =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(REPO_ROOT, 'docs', 'screenshots')
    : fs.mkdtempSync(path.join(os.tmpdir(), 'cua-screenshots-'));
const VIEWPORT = { width: 1280, height: 800 };
const RELABEL = 'Open the night light menu from the tray';

type Standardized = { content: { instruction?: string; guiactions?: { action_type: string }[] }[] };

async function eventCounts(libraryDir: string, id: string): Promise<unknown> {
  const r = await runCli(['show', id, '--json', '--library', libraryDir]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).eventCounts;
}

function readStandardized(dir: string): Standardized & { file: string } {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  expect(files).toHaveLength(1);
  const file = path.join(dir, files[0]!);
  return { file, ...(JSON.parse(fs.readFileSync(file, 'utf8')) as Standardized) };
}

/** The bits of HTMLImageElement / HTMLVideoElement the page-side callbacks read. */
type ImageLike = { decode: () => Promise<void>; naturalWidth: number; naturalHeight: number };
type VideoLike = { currentTime: number; paused: boolean };

const guiActions = (doc: Standardized) => doc.content.filter((c) => Array.isArray(c.guiactions));

const stepCards = (page: Page) => page.locator('[data-testid=step-card]');

async function waitForSteps(page: Page, count: number): Promise<void> {
  await expect.poll(() => stepCards(page).count(), { timeout: 15_000 }).toBe(count);
}

async function waitSaved(page: Page): Promise<void> {
  await page.waitForSelector('[data-testid=save-state].save-saved', { timeout: 15_000 });
}

describe('review UI end to end (Chromium + cua-annotator serve)', () => {
  let lib: Awaited<ReturnType<typeof exampleLibrary>>;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-e2e-'));
  let id = '';
  let server: ChildProcess | null = null;
  let url = '';
  let browser: Browser | null = null;
  let page: Page;
  let countsBefore: unknown;
  let baselineActions = 0;

  beforeAll(async () => {
    await ensureRendererBuilt();
    // as right after an import: the server computes the keyframes when the page opens it
    lib = await exampleLibrary({ keyframes: false });
    id = lib.id;
    // the server child owns the library from here on
    lib.lib.close();
    countsBefore = await eventCounts(lib.dir, id);
    // the same export before any edit: what the edits must change
    const baseline = path.join(work, 'baseline');
    const r = await runCli([
      'export',
      id,
      '--format',
      'standardized',
      '--out',
      baseline,
      '--library',
      lib.dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    baselineActions = guiActions(readStandardized(baseline)).length;
    ({ child: server, url } = await startServer(lib.dir));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: VIEWPORT });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(server);
    fs.rmSync(work, { recursive: true, force: true });
    if (lib) {
      fs.rmSync(lib.dir, { recursive: true, force: true });
    }
    if (process.env.UPDATE_SCREENSHOTS !== '1') {
      fs.rmSync(SCREENSHOT_DIR, { recursive: true, force: true });
    }
  });

  it('lists the imported recording in the library', async () => {
    await page.goto(url);
    const row = page.locator(`[data-testid=library-row][data-id="${id}"]`);
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('Open the system display settings');
    expect(await row.textContent()).toContain('Draft');
    expect(await page.getByTestId('library-count').textContent()).toBe('1 recording');
    // the Upload button is there, disabled until recordings are selected, with a tooltip
    expect(await page.getByTestId('upload-button').isDisabled()).toBe(true);
    expect(await page.getByTestId('upload-button').getAttribute('title')).toMatch(
      /Select recordings/,
    );
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'library.png') });
  });

  it('opens the recording: 14 steps, keyframes computed without pressing anything', async () => {
    await page.locator(`[data-testid=library-row][data-id="${id}"] .task-link`).click();
    await waitForSteps(page, 14);
    // opening a recording without stored keyframes queues them on the server; the page follows
    // the job's progress and shows them when they are stored
    await expect
      .poll(
        async () =>
          (
            await page
              .locator('[data-testid=step-card] img')
              .evaluateAll((imgs) => imgs.map((img) => img.getAttribute('src') ?? ''))
          ).filter((src) => src.includes('/media/')).length,
        { timeout: 120_000 },
      )
      .toBe(14);
    const compute = page.getByTestId('compute-keyframes');
    await expect
      .poll(async () => compute.textContent(), { timeout: 30_000 })
      .toBe('Recompute keyframes');
    // the large keyframe is the video's resolution (overlays scale by image / screen size)
    // (this file compiles without the DOM lib: page-side values are typed structurally)
    const size = await page.locator('[data-testid=keyframe] img').evaluate(async (el) => {
      const img = el as unknown as ImageLike;
      await img.decode();
      return [img.naturalWidth, img.naturalHeight];
    });
    expect(size).toEqual([1276, 718]);
    // the first step's click is drawn on it
    expect(await page.locator('[data-testid=keyframe] .ov-click').count()).toBe(1);
  });

  it('navigates with ↑/↓, plays with Space, and the selection follows the video', async () => {
    const selected = () =>
      page.locator('[data-testid=step-card][aria-selected=true]').getAttribute('data-step-id');
    const ids = await page
      .locator('[data-testid=step-card]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-step-id')));
    await stepCards(page).nth(0).click();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await selected()).toBe(ids[2]);
    await page.keyboard.press('ArrowUp');
    expect(await selected()).toBe(ids[1]);
    // selecting a step seeks the video to its keyframe time
    const video = () =>
      page.getByTestId('video').evaluate((v) => {
        const el = v as unknown as VideoLike;
        return { currentTime: el.currentTime, paused: el.paused };
      });
    await expect.poll(async () => (await video()).currentTime).toBeGreaterThan(8);
    expect((await video()).currentTime).toBeLessThan(9);
    // Space plays; step 3 starts ~1.5 s later and the list follows on its own
    await page.keyboard.press('Space');
    await expect.poll(async () => (await video()).paused).toBe(false);
    // while it plays, the list follows the video's clock. The clock is moved on here in 0.1 s
    // ticks (each a real seek plus the `timeupdate` the element reports) rather than waited for:
    // real-time playback speed in headless Chromium depends on the machine, the logic does not.
    let followed: string | null = ids[1] ?? null;
    for (let tick = 0; tick < 40 && followed === ids[1]; tick += 1) {
      await page.getByTestId('video').evaluate((v) => {
        const el = v as unknown as VideoLike & { dispatchEvent(e: unknown): boolean };
        el.currentTime += 0.1;
        el.dispatchEvent(
          new (globalThis as unknown as { Event: new (t: string) => unknown }).Event('timeupdate'),
        );
      });
      followed = await selected();
    }
    // the first step it moves to is the next one, not one further on
    expect(followed).toBe(ids[2]);
    expect((await video()).paused).toBe(false);
    await page.keyboard.press('Space');
    await expect.poll(async () => (await video()).paused).toBe(true);
  });

  it('relabels, deletes, undoes (Ctrl+Z) and merges, with a visible Saved state', async () => {
    // relabel step 2
    await stepCards(page).nth(1).click();
    await page.getByTestId('label-input').fill(RELABEL);
    await page.getByTestId('label-input').press('Escape');
    await expect
      .poll(() => page.locator('[data-testid=step-label]').nth(1).textContent(), {
        timeout: 15_000,
      })
      .toBe(RELABEL);
    await waitSaved(page);
    // delete step 6, then take it back with Ctrl+Z
    const sixth = await stepCards(page).nth(5).getAttribute('data-step-id');
    await stepCards(page).nth(5).click();
    await page.getByTestId('delete-step').click();
    await waitForSteps(page, 13);
    await waitSaved(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+z');
    await waitForSteps(page, 14);
    await waitSaved(page);
    expect(await stepCards(page).nth(5).getAttribute('data-step-id')).toBe(sixth);
    // merge step 9 ("click on 1366x768") with step 10 ("Click on 1680x1050")
    await stepCards(page).nth(8).click();
    await page.getByTestId('merge-next').click();
    await waitForSteps(page, 13);
    await waitSaved(page);
    expect(await page.getByTestId('save-state').textContent()).toContain('Saved');
    const merged = stepCards(page).nth(8);
    expect((await merged.getByTestId('step-label').textContent()) ?? '').toContain('1366x768');
    expect(await page.getByTestId('step-code').textContent()).toMatch(
      /^pyautogui\.click\(.*\)\npyautogui\.click\(.*\)$/,
    );
    // change step 3's action with the structured editor: a click on the keyframe sets the point
    await stepCards(page).nth(2).click();
    await page.getByTestId('edit-action').click();
    await page.getByTestId('action-kind').selectOption('doubleClick');
    const keyframe = page.getByTestId('keyframe');
    const box = await keyframe.boundingBox();
    await keyframe.click({ position: { x: box!.width * 0.25, y: box!.height * 0.5 } });
    await page.getByTestId('action-save').click();
    await expect
      .poll(() => page.getByTestId('step-code').textContent(), { timeout: 15_000 })
      .toMatch(/^pyautogui\.doubleClick\(x=0\.2[45]\d*, y=0\.[45]\d*\)$/);
    await waitSaved(page);
    // screenshot: a drag step with its overlay, and its accessibility tree
    await stepCards(page).nth(3).click();
    await page.getByTestId('tab-ax').click();
    await page.getByTestId('ax-viewer').waitFor({ timeout: 15_000 });
    // clicks scrolled the panes; show them from the top
    await page.locator('.rec-main').evaluate((el) => el.scrollTo(0, 0));
    await page.locator('.rec-steps').evaluate((el) => el.scrollTo(0, 0));
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'recording.png') });
  });

  it('keeps the edits after a reload and never touches the raw events', async () => {
    await page.reload();
    await waitForSteps(page, 13);
    const labels = await page.locator('[data-testid=step-label]').allTextContents();
    expect(labels[1]).toBe(RELABEL);
    expect(labels[8]).toContain('1366x768');
    expect(labels[8]).toContain('1680x1050');
    await stepCards(page).nth(2).click();
    expect(await page.getByTestId('step-code').textContent()).toMatch(/^pyautogui\.doubleClick\(/);
    expect(await eventCounts(lib.dir, id)).toEqual(countsBefore);
    expect((countsBefore as { total: number }).total).toBe(4099);
  });

  it('exports from the UI (standardized) with the edits applied', async () => {
    const outDir = path.join(work, 'ui-export');
    await page.getByTestId('recording-export').click();
    await page.getByTestId('export-dialog').waitFor();
    await page.locator('input[name=format][value=standardized]').check();
    await page.getByTestId('export-outdir').fill(outDir);
    await page.getByTestId('export-start').click();
    await page.getByTestId('export-done').waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('export-progress').getAttribute('class')).toBe('progress-block');
    const doc = readStandardized(outDir);
    const actions = guiActions(doc);
    // one step fewer (the merge), the relabel in place, the merged step with both clicks
    expect(actions).toHaveLength(baselineActions - 1);
    expect(actions.map((a) => a.instruction)).toContain(RELABEL);
    const merged = actions.find((a) => a.instruction?.includes('1366x768'));
    expect(merged?.instruction).toContain('1680x1050');
    expect(merged?.guiactions?.map((g) => g.action_type)).toEqual(['click', 'click']);
    expect(actions[2]?.guiactions?.map((g) => g.action_type)).toEqual(['doubleClick']);
    await page.locator('.modal-foot button', { hasText: 'Close' }).click();
    await page.getByTestId('export-dialog').waitFor({ state: 'detached' });
  });

  it('moves through the review workflow and the library filters by status', async () => {
    await page.getByTestId('tab-review').click();
    // the checks before submit (docs/quality.md §3) find warnings only in the example (a long
    // idle stretch, no terminate step): the gate opens and "Submit anyway" goes on
    await page.getByTestId('review-submitted').click();
    await page.getByTestId('check-gate').waitFor();
    expect(await page.getByTestId('check-gate-summary').textContent()).toMatch(/^0 errors/);
    await page.getByTestId('check-gate-go-on').click();
    await page.locator('.rec-head [data-testid=review-chip]', { hasText: 'Submitted' }).waitFor();
    await page.getByLabel('Comment').fill('Clean run; merged the two resolution clicks.');
    await page.getByLabel('Quality grade').selectOption('A');
    await page.getByTestId('review-accepted').click();
    await page.getByTestId('check-gate-go-on').click();
    await page.locator('.rec-head [data-testid=review-chip]', { hasText: 'Accepted' }).waitFor();
    expect(await page.locator('.review-history li').first().textContent()).toContain(
      'merged the two resolution clicks',
    );
    expect(await page.locator('.review-history li').first().textContent()).toContain('grade A');
    await page.locator('.back-link').first().click();
    await page.getByRole('radio', { name: 'Accepted' }).click();
    await page.locator(`[data-testid=library-row][data-id="${id}"]`).waitFor({ timeout: 10_000 });
    await page.getByRole('radio', { name: 'Draft' }).click();
    await page.getByText('No recording matches these filters.').waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid=library-row]').count()).toBe(0);
  });
});
