// End to end: replay in the review UI (docs/replay.md §6) in Debian Chromium (playwright-core)
// against a real `cua-annotator serve` child, with a REAL replay: the nut-js driver child drives
// a test desktop (Xvfb + openbox + AT-SPI, tests/helpers/desktop.ts) named as the replay display
// in the settings. The example recording (Windows, 1366×768) replayed on an empty 1280×800
// desktop diverges at most steps, and that is what the page must show: badges that match the
// stored report, the keyframe and the live screenshot of a divergent step side by side (both
// images load), the score; with the setting empty there is no button, only the hint.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayStatusDto } from '../../src/shared/contract';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { exampleLibrary } from '../helpers/example-library';
import { launchChromium } from './chromium';
import { callApi, rendererHolding, startServer, stop, type Served } from './serve';

/** The bit of HTMLImageElement the page-side callbacks read. */
type ImageLike = { naturalWidth: number };

describe('replay in the review UI (Chromium + cua-annotator serve + a real replay on Xvfb)', () => {
  let lib: Awaited<ReturnType<typeof exampleLibrary>>;
  let desktop: Desktop | null = null;
  let served: Served | null = null;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let built: string | null = null;
  let page: Page;
  const saved: Record<string, string | undefined> = {};

  const openReplayTab = async () => {
    await page.goto(`${served!.origin}/#/recording/${encodeURIComponent(lib.id)}`);
    await page.reload();
    await page.getByTestId('step-card').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('tab-replay').click();
    await page.getByTestId('replay-panel').waitFor();
  };

  beforeAll(async () => {
    built = await rendererHolding('replay-compare');
    if (built) {
      process.env.CUA_E2E_RENDERER = built; // read by startServer (own worker)
    }
    desktop = await startDesktop();
    // the example's 10-second clip: its 2 steps and terminate are replayed
    lib = await exampleLibrary({ clip: true });
    lib.lib.close();
    // the server runs off the desktop (no DISPLAY: the reviewer's own display is not the replay
    // one) but reaches its accessibility bus, as a reviewer's machine reaches its virtual one
    for (const key of ['DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR']) {
      saved[key] = process.env[key];
    }
    delete process.env.DISPLAY;
    process.env.DBUS_SESSION_BUS_ADDRESS = desktop.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.XDG_RUNTIME_DIR = desktop.env.XDG_RUNTIME_DIR;
    served = await startServer(lib.dir);
    server = served.child;
    restoreEnv();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(served.url); // the token
  }, 240_000);

  const restoreEnv = () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) {
        delete process.env[key];
      } else {
        process.env[key] = value;
      }
    }
  };

  afterAll(async () => {
    restoreEnv();
    await browser?.close();
    await stop(server);
    await desktop?.stop();
    lib?.cleanup();
    if (built) {
      fs.rmSync(built, { recursive: true, force: true });
    }
  });

  it('with the setting empty: no Replay button, a hint linking to Settings', async () => {
    await openReplayTab();
    await page.getByTestId('replay-off').waitFor();
    expect(await page.getByTestId('replay-start').count()).toBe(0);
    expect(await page.getByTestId('replay-off').textContent()).toContain('no replay display');
    expect(await page.locator('[data-testid=replay-off] a').getAttribute('href')).toBe(
      '#/settings',
    );
  });

  it('replays on the desktop: badges match the report, a divergent step side by side', async () => {
    const set = await callApi(served!, 'settings:set', { replayDisplay: desktop!.display });
    expect(set.ok).toBe(true);
    await openReplayTab();
    const start = page.getByTestId('replay-start');
    await start.waitFor();
    expect(await start.textContent()).toBe(`Replay on ${desktop!.display}`);
    await page.getByTestId('replay-speed').selectOption('100');
    const started = Date.now();
    await start.click();
    // progress while it runs, then the summary (an error instead fails with the panel's text)
    const panel = page.getByTestId('replay-panel');
    await page
      .getByTestId('replay-cancel')
      .or(page.getByTestId('replay-error'))
      .first()
      .waitFor({ timeout: 20_000 });
    const ended = page.getByTestId('replay-summary').or(page.getByTestId('replay-error'));
    await ended.first().waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('replay-error').count(), await panel.innerText()).toBe(0);
    const elapsedMs = Date.now() - started;

    const answer = await callApi(served!, 'replay:status', { id: lib.id });
    expect(answer.ok).toBe(true);
    const report = (answer.value as ReplayStatusDto).report!;
    expect(report.stopped).toBeNull();
    expect(report.steps.length).toBe(report.stepCount + 1);
    const divergent = report.steps.filter((r) => !r.ok);
    expect(divergent.length).toBeGreaterThan(report.steps.length / 2);
    // stored with the recording, screenshots beside it
    const runDir = path.join(lib.dir, 'recordings', lib.id, 'replay', report.runId);
    expect(fs.existsSync(path.join(runDir, 'report.json'))).toBe(true);

    // the panel's results: one per result, ok as in the report
    const rows = page.getByTestId('replay-result');
    expect(await rows.count()).toBe(report.steps.length);
    const shown = await rows.evaluateAll((els) =>
      els.map((e) => [Number(e.getAttribute('data-index')), e.getAttribute('data-ok')]),
    );
    expect(shown).toEqual(report.steps.map((r) => [r.index, String(r.ok)]));
    expect(await page.getByTestId('replay-score').textContent()).toBe(
      `Score ${(report.score * 100).toFixed(0)} %`,
    );

    // the step list's badges: each step's ok as in the report
    const badges = await page
      .getByTestId('step-card')
      .evaluateAll((cards) =>
        cards.map((c) => [
          c.getAttribute('data-step-id'),
          c.querySelector('[data-testid=step-replay-badge]')?.getAttribute('data-ok') ?? null,
        ]),
      );
    const want = new Map(report.steps.filter((r) => r.stepId).map((r) => [r.stepId, r.ok]));
    expect(badges.length).toBe(report.stepCount);
    for (const [stepId, ok] of badges) {
      expect(ok, String(stepId)).toBe(String(want.get(stepId)));
    }

    // a divergent step with both images: they load side by side
    const pick = divergent.find((r) => r.kind === 'step' && r.keyframeUrl && r.screenshotUrl)!;
    expect(pick).toBeDefined();
    await page.locator(`[data-testid=replay-result][data-index="${pick.index}"]`).click();
    const compare = page.locator(`[data-testid=replay-compare][data-index="${pick.index}"]`);
    await compare.waitFor();
    for (const testId of ['replay-keyframe', 'replay-screenshot']) {
      const img = compare.getByTestId(testId);
      await expect
        .poll(() => img.evaluate((e) => (e as unknown as ImageLike).naturalWidth), {
          timeout: 10_000,
        })
        .toBeGreaterThan(0);
    }
    const sizes = await compare
      .locator('img')
      .evaluateAll((imgs) => imgs.map((i) => (i as unknown as ImageLike).naturalWidth));
    // the keyframe is a frame of the recording's video, the live screen the desktop's 1280×800
    expect(sizes[1]).toBe(1280);
    expect(sizes[0]).not.toBe(1280);
    if (pick.note) {
      expect(await compare.getByTestId('replay-note').textContent()).toBe(pick.note);
    }
    // selecting the result selected its step in the list
    expect(
      await page
        .locator('[data-testid=step-card][aria-selected=true]')
        .getAttribute('data-step-id'),
    ).toBe(pick.stepId);
    // choosing another step in the list shows its result side by side
    const other = report.steps.find((r) => r.kind === 'step' && r.index !== pick.index)!;
    await page.locator(`[data-testid=step-card][data-step-id="${other.stepId}"]`).click();
    await page.locator(`[data-testid=replay-compare][data-index="${other.index}"]`).waitFor();
    console.log(
      `replay-ui: ${report.stepCount} steps replayed in ${report.durationMs} ms ` +
        `(${elapsedMs} ms from the click to the summary); score ${report.score.toFixed(3)}`,
    );

    // loading the page again shows the last report at once (badges before the tab opens)
    await page.reload();
    await page.getByTestId('step-replay-badge').first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('step-replay-badge').count()).toBe(report.stepCount);
  });
});
