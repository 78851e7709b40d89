// End to end: the check gate (docs/quality.md §3) in Debian Chromium (playwright-core) against a
// real `cua-annotator serve` child. The AgentNet fixture with a card number typed by an edited
// step: Submit opens the gate with PII_UNRESOLVED (an error) and nothing is submitted on "Fix
// first"; going on needs a reason, which lands in the verdict's comment; Upload is blocked.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../src/services/edits/edit-service';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR } from '../helpers/paths';
import { launchChromium } from './chromium';
import { startServer, stop, type Served, rendererHolding } from './serve';

describe('check gate end to end (Chromium + cua-annotator serve)', () => {
  const lib = tempLibrary();
  let id = '';
  let served: Served | null = null;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let built: string | null = null;
  let page: Page;
  const chip = () => page.locator('.rec-head [data-testid=review-chip]');

  beforeAll(async () => {
    built = await rendererHolding('check-gate-summary');
    if (built) {
      process.env.CUA_E2E_RENDERER = built; // read by startServer (own worker)
    }
    id = (await importAgentNetFolder(lib.lib, FIXTURE_DIR, { appVersion: '0.0.0-e2e' })).id;
    applyEdit(lib.lib, id, {
      op: 'set-action',
      stepId: 'agentnet:6',
      calls: [{ name: 'write', args: { message: 'paid with 4111 1111 1111 1111' } }],
    });
    lib.lib.close();
    served = await startServer(lib.dir);
    server = served.child;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(served.url); // the token
    await page.goto(`${served.origin}/#/recording/${encodeURIComponent(id)}`);
    await page.getByTestId('step-card').first().waitFor({ timeout: 30_000 });
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stop(server);
    fs.rmSync(lib.dir, { recursive: true, force: true });
    if (built) {
      fs.rmSync(built, { recursive: true, force: true });
    }
  });

  it('Submit: the gate lists the error; "Fix first" submits nothing', async () => {
    await page.getByTestId('tab-review').click();
    await page.getByTestId('review-submitted').click();
    await page.getByTestId('check-gate').waitFor();
    const problems = await page.getByTestId('check-problem').allTextContents();
    expect(problems.some((p) => /^error PII_UNRESOLVED step 6/.test(p))).toBe(true);
    expect(problems.some((p) => /Fix: Redact it or mark it acceptable/.test(p))).toBe(true);
    expect(await page.getByTestId('check-gate-go-on').isDisabled()).toBe(true);
    await page.getByTestId('check-gate-fix').click();
    await page.getByTestId('check-gate').waitFor({ state: 'detached' });
    expect(await chip().textContent()).toContain('Draft');
  });

  it('going on despite errors needs a reason, kept in the review comment', async () => {
    await page.getByTestId('review-submitted').click();
    await page.getByTestId('check-gate-reason').fill('test card of the shop sandbox');
    await page.getByTestId('check-gate-go-on').click();
    await chip().filter({ hasText: 'Submitted' }).waitFor();
    const entry = await page.locator('.review-history li').first().textContent();
    // (keyframes may still be computing: KEYFRAME_MISSING can be named too)
    expect(entry).toMatch(/Submitted despite check errors \(.*PII_UNRESOLVED step 6\)/);
    expect(entry).toContain('Reason: test card of the shop sandbox');
  });

  it('issue 26 item 23: Accept opens the gate titled for accepting, not for submitting', async () => {
    await page.getByTestId('review-accepted').click();
    await page.getByTestId('check-gate').waitFor();
    expect(await page.locator('#check-gate-title').textContent()).toBe('Checks before accepting');
    await page.getByTestId('check-gate-reason').fill('sandbox card');
    expect(await page.getByTestId('check-gate-go-on').textContent()).toBe('Accept despite errors');
    await page.getByTestId('check-gate-fix').click();
    await page.getByTestId('check-gate').waitFor({ state: 'detached' });
    expect(await chip().textContent()).toContain('Submitted');
  });

  it('Upload with an error: the gate offers only "Fix first"', async () => {
    await page.getByTestId('upload-button').click();
    await page.getByTestId('check-gate').waitFor();
    expect(await page.getByTestId('check-gate-go-on').count()).toBe(0);
    await page.getByTestId('check-gate-fix').click();
    expect(await page.getByTestId('upload-dialog').count()).toBe(0);
  });
});
