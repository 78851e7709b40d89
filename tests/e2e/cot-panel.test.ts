// End to end: the review page's Reasoning panel in Debian Chromium (playwright-core) against a real
// `cua-annotator serve` child. The example recording's CoT is made with a scripted model through
// the service; the page shows the selected step's Observation / Thought / Action / Reflection with
// its verdict and the summary; editing a thought saves it (cot:get answers it, marked edited), and
// a reviewer's new mark makes that step and the later ones stale.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CotViewDto } from '../../src/shared/contract';
import type { ChatClient } from '../../src/pipeline/cot/types';
import { runCotOnRecording } from '../../src/services/cot/cot-service';
import { openLibrary } from '../../src/services/library/library';
import { copyExampleLibrary } from '../helpers/example-library';
import { launchChromium } from './chromium';
import { callApi, rendererHolding, startServer, stop, type Served } from './serve';

let answered = 0;
const model: ChatClient = {
  complete: (req) => {
    const c = req.messages[0]!.content;
    const t = typeof c === 'string' ? c : c.map((p) => ('text' in p ? p.text : '')).join('');
    const text = t.startsWith('Your task is to generate three components')
      ? `## Observation:\nObserved ${(answered += 1)}.\n\n## Thought:\nThinking.\n\n## Action:\nClick the button.`
      : t.startsWith('You are an judge')
        ? JSON.stringify({
            last_step_correct: true,
            last_step_redundant: false,
            reflection: 'Done.',
          })
        : JSON.stringify({
            task_completed: true,
            alignment_score: 8,
            efficiency_score: 7,
            task_difficulty: 3,
            reason: 'r',
            actual_task: 'a',
            natural_language_task: 'n',
          });
    return Promise.resolve({ text, usage: { promptTokens: 1, completionTokens: 1 } });
  },
};

describe('Reasoning panel end to end (Chromium + cua-annotator serve)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-cot-e2e-'));
  let id = '';
  let served: Served | null = null;
  let server: ChildProcess | null = null;
  let browser: Browser | null = null;
  let builtRenderer: string | null = null;
  let page: Page;
  const view = async () => (await callApi(served!, 'cot:get', { id })).value as CotViewDto;

  beforeAll(async () => {
    builtRenderer = await rendererHolding('cot-panel');
    if (builtRenderer) {
      process.env.CUA_E2E_RENDERER = builtRenderer;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    id = await copyExampleLibrary(dir);
    const lib = openLibrary(dir);
    try {
      await runCotOnRecording(lib, id, { client: model, model: 'scripted' });
    } finally {
      lib.close();
    }
    served = await startServer(dir);
    server = served.child;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(served.url);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await stop(server);
    fs.rmSync(dir, { recursive: true, force: true });
    if (builtRenderer) {
      fs.rmSync(builtRenderer, { recursive: true, force: true });
    }
  });

  it('shows the selected step’s reasoning and the summary; an edited thought is saved', async () => {
    const before = await view();
    const third = before.steps[2]!;
    expect(third.stepId).not.toBeNull();
    await page.goto(`${served!.origin}/#/recording/${encodeURIComponent(id)}`);
    await page.locator(`[data-testid=step-card][data-step-id="${third.stepId}"]`).click();
    const panel = page.getByTestId('cot-panel');
    await expect.poll(() => panel.getByTestId('cot-step').count(), { timeout: 15_000 }).toBe(1);
    expect(await panel.getByTestId('cot-observation').inputValue()).toBe(third.observation);
    expect(await panel.getByTestId('cot-action').inputValue()).toBe('Click the button.');
    expect(await panel.getByTestId('cot-reflection').inputValue()).toBe('Done.');
    expect(await panel.getByTestId('cot-verdict').textContent()).toContain('correct (the model)');
    expect(await panel.getByTestId('cot-alignmentScore').inputValue()).toBe('8');

    await panel.getByTestId('cot-thought').fill('I should open the display settings first.');
    await panel.getByTestId('cot-observation').focus(); // leaves the thought: saved
    await expect
      .poll(async () => (await view()).steps[2], { timeout: 10_000 })
      .toMatchObject({ thought: 'I should open the display settings first.', isEdited: true });
    await expect.poll(() => panel.getByTestId('cot-verdict').textContent()).toContain('edited');
  }, 120_000);

  it('the summary is editable like the step fields: a text, a score and "task completed" are saved', async () => {
    const panel = page.getByTestId('cot-panel');
    // each save answers a new view and the panel is drawn again: wait for that before the next
    const saving = async (act: () => Promise<void>) => {
      const old = await panel.getByTestId('cot-summary').elementHandle();
      await act();
      await page.waitForFunction((el) => !el?.isConnected, old, { timeout: 10_000 });
    };
    await saving(async () => {
      await panel.getByTestId('cot-actualTask').fill('Turn the display brightness down');
      await panel.getByTestId('cot-reason').focus(); // leaves the field: saved
    });
    await saving(async () => {
      await panel.getByTestId('cot-efficiencyScore').fill('3');
      await panel.getByTestId('cot-reason').focus();
    });
    await saving(async () => {
      await panel.getByTestId('cot-task-completed').selectOption('false');
    });
    expect((await view()).summary).toMatchObject({
      actualTask: 'Turn the display brightness down',
      efficiencyScore: 3,
      taskCompleted: false,
      alignmentScore: 8,
      isEdited: true,
    });
    expect(await panel.getByTestId('cot-summary').textContent()).toContain('edited');
    expect(await panel.getByTestId('cot-efficiencyScore').inputValue()).toBe('3');
    expect(await panel.getByTestId('cot-task-completed').inputValue()).toBe('false');
  }, 60_000);

  it('a reviewer’s new mark makes that step and the later ones stale', async () => {
    const before = await view();
    expect(before.steps.every((s) => !s.isStale)).toBe(true);
    const stepId = before.steps[4]!.stepId!;
    const r = await callApi(served!, 'edits:apply', {
      id,
      edit: { op: 'mark', stepId, mark: 'incorrect' },
    });
    expect(r.ok).toBe(true);
    const after = await view();
    expect(after.steps.map((s) => s.isStale)).toEqual(after.steps.map((s) => s.index >= 4));
    expect(after.summary?.isStale).toBe(true);
  }, 60_000);

  it('a changed action makes its step and the later ones stale; a new label does not (no CoT input)', async () => {
    const before = await view();
    const relabel = await callApi(served!, 'edits:apply', {
      id,
      edit: { op: 'relabel', stepId: before.steps[0]!.stepId!, label: 'Open the settings' },
    });
    expect(relabel.ok).toBe(true);
    expect((await view()).steps[0]!.isStale).toBe(false);
    const setAction = await callApi(served!, 'edits:apply', {
      id,
      edit: {
        op: 'set-action',
        stepId: before.steps[1]!.stepId!,
        calls: [{ name: 'click', args: { x: { float: 0.25 }, y: { float: 0.75 } } }],
      },
    });
    expect(setAction.ok).toBe(true);
    const after = await view();
    expect(after.steps.map((s) => s.isStale)).toEqual(after.steps.map((s) => s.index >= 1));
  }, 60_000);

  it('an accepted recording’s reasoning is locked: REVIEW_LOCKED, then with force it goes back to review', async () => {
    const accepted = await callApi(served!, 'reviews:set-status', { id, status: 'accepted' });
    expect(accepted.ok).toBe(true);
    const refused = await callApi(served!, 'cot:edit-step', { id, index: 0, thought: 'changed' });
    expect(refused.error?.code).toBe('REVIEW_LOCKED');
    expect((await view()).steps[0]!.thought).not.toBe('changed');
    const forced = await callApi(served!, 'cot:edit-step', {
      id,
      index: 0,
      thought: 'changed',
      force: true,
    });
    expect(forced.ok).toBe(true);
    expect((await view()).steps[0]!.thought).toBe('changed');
    const rec = (await callApi(served!, 'recordings:get', { id })).value as {
      reviewStatus: string;
    };
    expect(rec.reviewStatus).toBe('submitted');
  }, 60_000);
});
