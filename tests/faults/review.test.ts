// Faults of the review services found in issue 10 (item 14): an accepted recording edited with no
// warning and no status change, and steps changed by a merge or split left without a keyframe
// until someone presses "Compute keyframes". Real library (SQLite), the AgentNet fixture, real
// ffmpeg for the keyframes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingDto } from '../../src/shared/contract';
import { isAppError } from '../../src/shared/errors';
import { dispatch } from '../../src/services/dispatch';
import { computeKeyframes } from '../../src/services/keyframes/keyframes';
import { applyEdit } from '../../src/services/edits/edit-service';
import { getRecordingDto, setReviewStatus } from '../../src/services/review-service';
import { serviceContext } from '../helpers/context';
import { exampleLibrary } from '../helpers/example-library';

const t = await exampleLibrary({ keyframes: false });
const { ctx, services, events } = serviceContext(t.lib);
let id = '';

beforeAll(() => {
  id = t.id;
});
afterAll(async () => {
  await services.close();
  t.cleanup();
});

const dto = (): RecordingDto => getRecordingDto(t.lib, id, ctx);

describe('issue 10 item 14: review faults', () => {
  it('item 14: editing an accepted recording needs force and returns it to review, in its history', async () => {
    setReviewStatus(t.lib, id, { status: 'accepted', reviewer: 'rev', grade: 'A' }, 1000);
    const before = dto();
    // a script's edit without force is refused with a coded error and a fix
    const refused = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'relabel', stepId: 'agentnet:1', label: 'changed' },
    });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe('REVIEW_LOCKED');
      expect(refused.error.fix).toMatch(/force/);
    }
    let thrown: unknown = null;
    try {
      applyEdit(t.lib, id, { op: 'delete', stepId: 'agentnet:2' });
    } catch (e) {
      thrown = e;
    }
    expect(isAppError(thrown, 'REVIEW_LOCKED')).toBe(true);
    // task text and labels are edits too
    const task = await dispatch(ctx, 'recordings:update-task', { id, description: 'x' });
    expect(task.ok ? null : task.error.code).toBe('REVIEW_LOCKED');
    expect(dto().steps).toEqual(before.steps);
    expect(dto().reviewStatus).toBe('accepted');
    // with force the edit lands, the recording is back in review, and the history says why
    const forced = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'relabel', stepId: 'agentnet:1', label: 'changed' },
      force: true,
    });
    expect(forced.ok).toBe(true);
    const after = dto();
    expect(after.steps[1]?.label).toBe('changed');
    expect(after.reviewStatus).toBe('submitted');
    expect(after.reviews.length).toBe(before.reviews.length + 1);
    expect(after.reviews.at(-1)?.status).toBe('submitted');
    expect(after.reviews.at(-1)?.comment).toMatch(/accepted/i);
    // once back in review, edits need no force
    const next = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'relabel', stepId: 'agentnet:1', label: 'again' },
    });
    expect(next.ok).toBe(true);
  });

  it('item 14: after a merge or split the changed steps get their keyframes without a button', async () => {
    await computeKeyframes(t.lib, id);
    expect(dto().steps.every((s) => s.keyframeUrl !== null)).toBe(true);
    const merged = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'merge', stepIds: ['agentnet:8', 'agentnet:9'] },
    });
    expect(merged.ok).toBe(true);
    await ctx.keyframes.idle();
    const d = dto();
    const step = d.steps.find((s) => s.id === 'agentnet:8');
    expect(step?.keyframeUrl).not.toBeNull();
    expect(d.steps.every((s) => s.keyframeUrl !== null)).toBe(true);
    // the page was told (the refresh announces the recording again)
    expect(events.filter(([e]) => e === 'recordings:changed').length).toBeGreaterThanOrEqual(2);
    // make step 1 a typing step, then split it: both halves get a keyframe
    const typed = await dispatch(ctx, 'edits:apply', {
      id,
      edit: {
        op: 'set-action',
        stepId: 'agentnet:1',
        calls: [{ name: 'write', args: { message: 'night light' } }],
      },
    });
    expect(typed.ok, JSON.stringify(typed)).toBe(true);
    const split = await dispatch(ctx, 'edits:apply', {
      id,
      edit: { op: 'split', stepId: 'agentnet:1', at: 5 },
    });
    expect(split.ok, JSON.stringify(split)).toBe(true);
    expect(dto().steps.length).toBe(d.steps.length + 1);
    await ctx.keyframes.idle();
    expect(dto().steps.every((s) => s.keyframeUrl !== null)).toBe(true);
  }, 120_000);
});
