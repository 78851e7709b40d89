// Faults of the review UI found in issue 10, in Debian Chromium against a real
// `cua-annotator serve` over a temp library holding the AgentNet fixture: a label typed just
// before the page goes away is saved (item 14), an accepted recording asks before it is edited
// and goes back to review (item 14), unset score sliders look unset (item 24).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../src/shared/contract';
import { exampleLibrary } from '../helpers/example-library';
import { launchChromium } from './chromium';
import { callApi, ensureRendererBuilt, startServer, stop, type Served } from './serve';

const VIEWPORT = { width: 1280, height: 800 };

// Files (not folders) under `dir`.
function countFiles(dir: string): number {
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile())
    .length;
}

describe('issue 10: review UI faults (Chromium + cua-annotator serve)', () => {
  let lib: Awaited<ReturnType<typeof exampleLibrary>>;
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
    lib = await exampleLibrary();
    id = lib.id;
    lib.lib.close();
    served = await startServer(lib.dir);
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stop(served?.child);
    lib?.cleanup();
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

  it('item 24: sliders look unset, times are offsets, trim and export speak to the UI, dialogs close', async () => {
    const cleared = await callApi(served!, 'labels:save', {
      id,
      labels: {
        taskCompleted: null,
        taskDifficulty: null,
        alignmentScore: null,
        efficiencyScore: null,
      },
    });
    expect(cleared.ok, JSON.stringify(cleared.error)).toBe(true);
    const page = await openRecording();
    // an unset score shows no thumb and says so; a click on the middle of the track sets it
    await page.getByTestId('tab-task').click();
    const difficulty = page.getByLabel('Difficulty (0–10)');
    // (the thumb of an .is-unset range is hidden by the style sheet)
    const isUnset = async () =>
      ((await difficulty.getAttribute('class')) ?? '').split(' ').includes('is-unset');
    expect(await isUnset()).toBe(true);
    expect(await page.locator('.score-value').first().textContent()).toBe('not set');
    expect(await difficulty.getAttribute('aria-valuetext')).toBe('not set');
    await difficulty.click();
    await expect
      .poll(async () => (await getRecording()).labels.taskDifficulty, { timeout: 10_000 })
      .toBe(5);
    expect(await isUnset()).toBe(false);
    // a step's span counts from the start of the video, like the player
    await page.locator('[data-testid=step-card]').nth(1).click();
    const span = await page.locator('.facts dt:text-is("Span") + dd').textContent();
    expect(span).toMatch(/^\d+:\d\d\.\d – \d+:\d\d\.\d \(\d+\.\d s\)$/);
    // trim says what it does to exports
    expect(await page.getByTestId('trim-note').textContent()).toMatch(
      /left out of exports; the recording itself is kept/,
    );
    // the export dialog counts the files it wrote and offers to overwrite, in its own words
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-e2e-faults-'));
    try {
      const exportOnce = async () => {
        await page.getByTestId('recording-export').click();
        await page.getByTestId('export-dialog').waitFor();
        await page.locator('input[name=format][value=agentnet-raw]').check();
        await page.getByTestId('export-outdir').fill(outDir);
        await page.getByTestId('export-start').click();
      };
      await exportOnce();
      await page.getByTestId('export-done').waitFor({ timeout: 60_000 });
      const files = countFiles(outDir);
      expect(files).toBeGreaterThan(1);
      expect(await page.getByTestId('export-done').textContent()).toContain(`Wrote ${files} files`);
      await page.locator('.modal-foot button', { hasText: 'Close' }).click();
      await exportOnce();
      await page.getByTestId('export-error').waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('export-error').textContent()).not.toMatch(/--/);
      await page.getByTestId('export-overwrite-now').click();
      await page.getByTestId('export-done').waitFor({ timeout: 60_000 });
      await page.locator('.modal-foot button', { hasText: 'Close' }).click();
    } finally {
      fs.rmSync(outDir, { recursive: true, force: true });
    }
    // the upload dialog closes when its "Uploads page" link (or any navigation) leaves the page
    await page.getByTestId('upload-button').click();
    // the checks before upload (docs/quality.md §3) may find warnings first: upload anyway
    await page.getByTestId('check-gate').or(page.getByTestId('upload-dialog')).waitFor();
    if (await page.getByTestId('check-gate').isVisible()) {
      await page.getByTestId('check-gate-go-on').click();
    }
    await page.getByTestId('upload-dialog').waitFor();
    // (what the dialog's "Follow it on the Uploads page" link does once an upload started)
    await page.evaluate(() => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = '#/uploads';
    });
    await page.getByTestId('uploads-page').waitFor();
    await page.getByTestId('upload-dialog').waitFor({ state: 'detached', timeout: 5_000 });
    await page.close();
  });
});
