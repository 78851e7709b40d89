// End to end for issue 26 item 10 (README row 38) in the review UI: a recording with a masked
// password step (stored as write('•••••••')) replayed from the Replay tab on a test desktop
// (Chromium, a real `cua-annotator serve`, the real nut-js driver on Xvfb). The masked step is
// not replayed: its row says "masked" and its step card's badge "masked: not replayed", and the
// score leaves it out.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayStatusDto } from '../../src/shared/contract';
import { applyEdit } from '../../src/services/edits/edit-service';
import { effectiveSteps } from '../../src/services/steps';
import { getRecording } from '../../src/store';
import { MASKED_KEY } from '../../src/recorder/input/key-masking';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { exampleLibrary } from '../helpers/example-library';
import { launchChromium } from './chromium';
import { callApi, rendererHolding, startServer, stop, type Served } from './serve';

describe('a masked step in the review UI replay (issue 26 item 10)', () => {
  let lib: Awaited<ReturnType<typeof exampleLibrary>>;
  let desktop: Desktop | null = null;
  let served: Served | null = null;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let built: string | null = null;
  let page: Page;
  let maskedId = '';
  const saved: Record<string, string | undefined> = {};

  const restoreEnv = () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) {
        delete process.env[key];
      } else {
        process.env[key] = value;
      }
    }
  };

  beforeAll(async () => {
    built = await rendererHolding('masked: not replayed');
    if (built) {
      process.env.CUA_E2E_RENDERER = built;
    }
    desktop = await startDesktop();
    // the example's 10-second clip: steps 0 and 1 (masked) and terminate are replayed
    lib = await exampleLibrary({ clip: true });
    const steps = effectiveSteps(lib.lib, getRecording(lib.lib.db, lib.id).seq);
    maskedId = steps[1]!.id;
    applyEdit(lib.lib, lib.id, {
      op: 'set-action',
      stepId: maskedId,
      calls: [{ name: 'write', args: { message: MASKED_KEY.repeat(7) } }],
    });
    lib.lib.close();
    // the server runs off the desktop (no DISPLAY), as in replay-ui.test.ts
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
    await page.goto(served.url);
  }, 240_000);

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

  it('item 10: the masked step is shown as masked, not as ok or diverges, and is not scored', async () => {
    expect((await callApi(served!, 'settings:set', { replayDisplay: desktop!.display })).ok).toBe(
      true,
    );
    await page.goto(`${served!.origin}/#/recording/${encodeURIComponent(lib.id)}`);
    await page.reload();
    await page.getByTestId('step-card').first().waitFor({ timeout: 30_000 });
    await page.getByTestId('tab-replay').click();
    await page.getByTestId('replay-start').waitFor();
    await page.getByTestId('replay-speed').selectOption('100');
    await page.getByTestId('replay-start').click();
    const ended = page.getByTestId('replay-summary').or(page.getByTestId('replay-error'));
    await ended.first().waitFor({ timeout: 120_000 });
    expect(await page.getByTestId('replay-error').count()).toBe(0);

    const answer = await callApi(served!, 'replay:status', { id: lib.id });
    const report = (answer.value as ReplayStatusDto).report!;
    const masked = report.steps.find((r) => r.stepId === maskedId)!;
    expect(masked).toMatchObject({ masked: true, ok: false });
    const counted = report.steps.length - 1;
    expect(report.score).toBe(report.steps.filter((r) => r.ok).length / counted);

    const row = page.locator(`[data-testid=replay-result][data-index="${masked.index}"]`);
    expect(await row.locator('.chip').textContent()).toBe('masked');
    const badge = page.locator(
      `[data-testid=step-card][data-step-id="${maskedId}"] [data-testid=step-replay-badge]`,
    );
    expect(await badge.textContent()).toBe('masked: not replayed');
    expect(await badge.getAttribute('data-masked')).toBe('true');
    // the other steps keep their ok / diverges badges
    const others = await page
      .locator('[data-testid=step-replay-badge][data-masked=false]')
      .allTextContents();
    expect(others.length).toBe(report.stepCount - 1);
    expect(others.every((t) => t === 'replay ok' || t === 'diverges')).toBe(true);
  }, 180_000);
});
