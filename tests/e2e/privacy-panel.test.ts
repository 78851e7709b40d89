// End to end: the review page's Privacy panel in Debian Chromium (playwright-core) against a real
// `cua-annotator serve` child. The AgentNet fixture gets an e-mail address in its task description
// and a card number typed by an edited step; the panel lists both (masked), marks the card as
// blocking, a click on the card finding selects its step and seeks the video there, and undoing
// the edit rescans.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PiiFinding } from '../../src/shared/domain';
import { applyEdit } from '../../src/services/edits/edit-service';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { updateRecordingTask } from '../../src/services/review-service';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR } from '../helpers/paths';
import { launchChromium } from './chromium';
import { callApi, startServer, stop, type Served, rendererHolding } from './serve';

const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';
/** The fixture's 7th step (a click), made to type the card number. */
const CARD_STEP_ID = 'agentnet:6';

type VideoLike = { currentTime: number; readyState: number };

describe('Privacy panel end to end (Chromium + cua-annotator serve)', () => {
  const lib = tempLibrary();
  let id = '';
  let cleanId = '';
  let served: Served | null = null;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let builtRenderer: string | null = null;
  let page: Page;

  const recordingUrl = (rec: string) => `${served!.origin}/#/recording/${encodeURIComponent(rec)}`;
  const findings = () => page.getByTestId('privacy-finding');
  const video = () =>
    page.getByTestId('video').evaluate((v) => {
      const el = v as unknown as VideoLike;
      return { currentTime: el.currentTime, readyState: el.readyState };
    });
  const selectedStepId = () =>
    page.locator('[data-testid=step-card][aria-selected=true]').getAttribute('data-step-id');

  beforeAll(async () => {
    builtRenderer = await rendererHolding('privacy-finding');
    if (builtRenderer) {
      // read by startServer (this file runs in its own worker)
      process.env.CUA_E2E_RENDERER = builtRenderer;
    }
    id = (await importAgentNetFolder(lib.lib, FIXTURE_DIR, { appVersion: '0.0.0-e2e' })).id;
    updateRecordingTask(
      lib.lib,
      id,
      { description: `Send the result to ${EMAIL} when done.` },
      Date.now(),
    );
    applyEdit(lib.lib, id, {
      op: 'set-action',
      stepId: CARD_STEP_ID,
      calls: [{ name: 'write', args: { message: `paid with ${CARD}` } }],
    });
    // the same recording untouched: nothing to find
    cleanId = (
      await importAgentNetFolder(lib.lib, FIXTURE_DIR, {
        appVersion: '0.0.0-e2e',
        allowDuplicate: true,
      })
    ).id;
    lib.lib.close();
    served = await startServer(lib.dir);
    server = served.child;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(served.url);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(server);
    fs.rmSync(lib.dir, { recursive: true, force: true });
    if (builtRenderer) {
      fs.rmSync(builtRenderer, { recursive: true, force: true });
    }
  });

  it('lists the e-mail address and the card number masked, the card as blocking', async () => {
    await page.goto(recordingUrl(id));
    await expect.poll(() => page.getByTestId('step-card').count(), { timeout: 15_000 }).toBe(14);
    await page.getByTestId('tab-privacy').click();
    await expect.poll(() => findings().count(), { timeout: 15_000 }).toBe(2);
    const panel = page.getByTestId('privacy-panel');
    await expect
      .poll(() => page.getByTestId('privacy-status').textContent())
      .toBe('2 findings, 1 blocking');
    // grouped by kind, blocking kinds first, each with its count
    const groups = await page.getByTestId('privacy-group').evaluateAll((els) =>
      els.map((el) => ({
        kind: el.getAttribute('data-kind'),
        blocking: el.className.includes('is-blocking'),
        count: el.querySelector('[data-testid=privacy-count]')?.textContent,
      })),
    );
    expect(groups).toEqual([
      { kind: 'card', blocking: true, count: '1' },
      { kind: 'email', blocking: false, count: '1' },
    ]);
    // the rows show what the service found (masked), where and when
    const scan = await callApi(served!, 'privacy:scan', { id });
    const byKind = new Map(
      ((scan.value as { findings: PiiFinding[] }).findings ?? []).map((f) => [f.kind, f]),
    );
    const card = byKind.get('card')!;
    const email = byKind.get('email')!;
    expect([card.source, card.stepIndex, email.source, email.stepIndex]).toEqual([
      'typed',
      6,
      'task',
      null,
    ]);
    const cardRow = findings().and(page.locator('[data-kind=card]'));
    const emailRow = findings().and(page.locator('[data-kind=email]'));
    expect(await cardRow.locator('.privacy-excerpt').textContent()).toBe(card.excerpt);
    expect(await emailRow.locator('.privacy-excerpt').textContent()).toBe(email.excerpt);
    expect(await cardRow.locator('.privacy-where').textContent()).toMatch(
      /^Typed, step 7, at \d:\d\d\.\d$/,
    );
    expect(await emailRow.locator('.privacy-where').textContent()).toBe('Task text');
    expect(await cardRow.getAttribute('aria-label')).toContain('Card number in Typed, step 7');
    // masked: neither the address nor the number is in the panel, nor the address on the page
    // (the card number stays visible in the code of the step that types it)
    const panelText = (await panel.textContent()) ?? '';
    for (const secret of [EMAIL, CARD, CARD.replaceAll(' ', ''), 'jane.doe']) {
      expect(panelText).not.toContain(secret);
    }
    expect(await page.locator('body').innerText()).not.toContain(EMAIL);
  });

  it('a click on the card finding selects its step and seeks the video to it', async () => {
    const { value } = await callApi(served!, 'recordings:get', { id });
    const rec = value as { video: { startMs: number }; steps: { id: string; startMs: number }[] };
    const step = rec.steps.find((s) => s.id === CARD_STEP_ID)!;
    const expectedSec = (step.startMs - rec.video.startMs) / 1000;
    await expect.poll(async () => (await video()).readyState).toBeGreaterThanOrEqual(1);
    await page.getByTestId('step-card').first().click();
    await page.getByTestId('tab-privacy').click();
    expect(await selectedStepId()).not.toBe(CARD_STEP_ID);
    expect((await video()).currentTime).toBeLessThan(expectedSec - 1);
    await findings().and(page.locator('[data-kind=card]')).click();
    await expect.poll(selectedStepId).toBe(CARD_STEP_ID);
    await expect
      .poll(async () => Math.abs((await video()).currentTime - expectedSec))
      .toBeLessThan(0.05);
    // the panel stays open and the step detail shows the step
    expect(await findings().count()).toBe(2);
    expect(await page.getByTestId('step-code').textContent()).toContain('pyautogui.write(');
  });

  it('rows are buttons: Enter on the task finding shows the task text', async () => {
    const emailRow = findings().and(page.locator('[data-kind=email]'));
    expect(await emailRow.evaluate((el) => el.tagName)).toBe('BUTTON');
    await emailRow.focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('tab-task').getAttribute('aria-selected'))
      .toBe('true');
    expect(await page.getByTestId('task-input').isVisible()).toBe(true);
  });

  it('Scan runs again, an undone edit rescans, a recording without personal data says so', async () => {
    await page.getByTestId('tab-privacy').click();
    await expect.poll(() => findings().count(), { timeout: 15_000 }).toBe(2);
    await page.getByTestId('privacy-scan').click();
    await expect
      .poll(() => page.getByTestId('privacy-status').textContent())
      .toBe('2 findings, 1 blocking');
    // undoing the edit that typed the card rescans by itself: only the address is left
    await page.getByTestId('undo').click();
    await expect
      .poll(() => page.getByTestId('privacy-status').textContent(), { timeout: 15_000 })
      .toBe('1 finding');
    expect(await findings().getAttribute('data-kind')).toBe('email');
    await page.goto(recordingUrl(cleanId));
    await expect.poll(() => page.getByTestId('step-card').count(), { timeout: 15_000 }).toBe(14);
    await page.getByTestId('tab-privacy').click();
    await page.getByTestId('privacy-empty').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('privacy-empty').textContent()).toBe('No personal data found');
    expect(await findings().count()).toBe(0);
  });
});
