import '../helpers/setup';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  KeyframesProgressDto,
  RecordingDto,
  StepDto,
  StepEdit,
} from '../../../src/shared/contract';
import {
  AUTOSAVE_DELAY_MS,
  reviewSelectors,
  useReviewStore,
} from '../../../src/renderer/store/review';
import {
  applyPending,
  opFailed,
  opQueued,
  opSucceeded,
  reconcileSelection,
  saveStateOf,
} from '../../../src/renderer/store/review/reducers';
import {
  initialReviewState,
  type ReviewState,
} from '../../../src/renderer/store/review/initialState';
import { makeRecording } from '../helpers/dto';
import { FakeFailure, flush, installFakeApi, type FakeApi } from '../helpers/fake-api';
import { ServiceRefusal, serviceEdit } from '../helpers/service-edit';

/** A fake service keeping one recording and an undo stack, like the real edit log; edits are
 * applied by the edit service's own code (issue 26 item 16), never by the page's preview. */
function fakeService(rec: RecordingDto): FakeApi & { current: () => RecordingDto } {
  const api = installFakeApi();
  let current = rec;
  const history: RecordingDto[] = [];
  const future: RecordingDto[] = [];
  const bump = (next: RecordingDto) => {
    history.push(current);
    future.length = 0;
    current = { ...next, editVersion: current.editVersion + 1, canUndo: true, canRedo: false };
    return current;
  };
  api.on('recordings:get', () => current);
  api.on('edits:apply', (p) => {
    const { edit } = p as { edit: StepEdit };
    if (edit.op === 'delete' && edit.stepId === 'missing') {
      throw new FakeFailure('EDIT_INVALID', 'Step missing does not exist', {
        field: 'edit.stepId',
      });
    }
    try {
      return bump(serviceEdit(current, edit, current.editVersion + 1));
    } catch (e) {
      if (e instanceof ServiceRefusal) {
        throw new FakeFailure(e.code, e.message);
      }
      throw e;
    }
  });
  api.on('edits:undo', () => {
    future.push(current);
    current = { ...history.pop()!, canRedo: true };
    current = { ...current, canUndo: history.length > 0 };
    return current;
  });
  api.on('edits:redo', () => {
    history.push(current);
    current = { ...future.pop()!, canUndo: true, canRedo: future.length > 0 };
    return current;
  });
  api.on('recordings:update-task', (p) => bump({ ...current, ...(p as { task?: string }) }));
  api.on('labels:save', (p) => bump({ ...current, labels: (p as RecordingDto).labels }));
  api.on('reviews:set-status', (p) => {
    const { status, comment } = p as { status: RecordingDto['reviewStatus']; comment?: string };
    return bump({
      ...current,
      reviewStatus: status,
      reviews: [
        ...current.reviews,
        { atMs: 1, reviewer: null, status, grade: null, comment: comment ?? null },
      ],
    });
  });
  api.on('keyframes:compute', () =>
    bump({
      ...current,
      steps: current.steps.map((s) => ({
        ...s,
        keyframeMs: s.startMs,
        keyframeUrl: `/media/rec-1/keyframe/${s.id}.png`,
      })),
    }),
  );
  api.on('axtree:get', () => ({
    tMs: 5,
    tree: { role: 'frame', name: 'w', children: [] },
    element: null,
  }));
  return Object.assign(api, { current: () => current });
}

const state = () => useReviewStore.getState();
const stepIds = () => reviewSelectors.steps(state()).map((s) => s.id);

describe('review reducers', () => {
  it('shows pending ops on top of the confirmed recording', () => {
    const rec = makeRecording(3);
    const shown = applyPending(rec, [
      { seq: 1, kind: 'edit', edit: { op: 'delete', stepId: 's0' } },
      { seq: 2, kind: 'task', task: 'New task' },
      { seq: 3, kind: 'labels', labels: { ...rec.labels, taskCompleted: true } },
    ]);
    expect(shown.steps.map((s) => s.id)).toEqual(['s1', 's2']);
    expect(shown.task).toBe('New task');
    expect(shown.labels.taskCompleted).toBe(true);
  });

  it('tracks the save state through queue, answers and failures', () => {
    let s: ReviewState = { ...initialReviewState(), confirmed: makeRecording(2) };
    expect(saveStateOf(s)).toBe('saved');
    s = opQueued(s, { seq: 1, kind: 'edit', edit: { op: 'delete', stepId: 's0' } });
    expect(s.saveState).toBe('saving');
    s = opFailed(s, 1, 'nope');
    expect([s.saveState, s.saveError, s.pending]).toEqual(['error', 'nope', []]);
    s = opQueued(s, null);
    s = opSucceeded(s, null, makeRecording(2));
    expect([s.saveState, s.saveError]).toEqual(['saved', null]);
    expect(saveStateOf({ ...s, labelDrafts: { s0: 'x' } })).toBe('saving');
  });

  it('keeps the selection by id, else by position', () => {
    const steps = makeRecording(3).steps;
    const base = { ...initialReviewState(), selectedStepId: 'gone', selectedIndex: 5 };
    expect(reconcileSelection(base, steps)).toMatchObject({
      selectedStepId: 's2',
      selectedIndex: 2,
    });
    expect(reconcileSelection({ ...base, selectedStepId: 's1' }, steps).selectedIndex).toBe(1);
    expect(reconcileSelection(base, []).selectedStepId).toBeNull();
  });
});

describe('useReviewStore', () => {
  let api: ReturnType<typeof fakeService>;
  beforeEach(async () => {
    api = fakeService(makeRecording(5));
    await state().open('rec-1');
  });

  it('opens a recording and selects its first step', () => {
    expect(state().loadStatus).toBe('ready');
    expect(state().selectedStepId).toBe('s0');
    expect(state().saveState).toBe('saved');
  });

  it('shows an edit at once, saves it, and the answer replaces the preview', async () => {
    api.hold();
    const p = state().applyEdit({ op: 'relabel', stepId: 's1', label: 'Open Display' });
    expect(reviewSelectors.steps(state())[1]?.label).toBe('Open Display');
    expect(state().saveState).toBe('saving');
    expect(state().editInFlight).toBeNull(); // queued behind nothing, sent on the next tick
    await api.release();
    await p;
    expect(state().saveState).toBe('saved');
    expect(state().pending).toEqual([]);
    expect(state().confirmed?.steps[1]?.label).toBe('Open Display');
    expect(state().confirmed?.editVersion).toBe(1);
  });

  it('sends edits one at a time in the order they were made', async () => {
    api.hold();
    void state().applyEdit({ op: 'delete', stepId: 's1' });
    void state().applyEdit({ op: 'merge', stepIds: ['s2', 's3'] });
    expect(stepIds()).toEqual(['s0', 's2', 's4']);
    await flush();
    // while the first answer is outstanding, the second edit waits in the queue
    expect(api.methods()).toEqual(['recordings:get', 'edits:apply']);
    await api.release();
    await state().whenIdle();
    // the second edit was sent only after the first answered
    expect(api.methods()).toEqual(['recordings:get', 'edits:apply', 'edits:apply']);
    expect(api.current().steps.map((s) => s.id)).toEqual(['s0', 's2', 's4']);
    expect(state().saveState).toBe('saved');
  });

  it('moves the selection off a deleted step and onto a merged one', async () => {
    state().selectStep('s4');
    await state().applyEdit({ op: 'delete', stepId: 's4' });
    expect(state().selectedStepId).toBe('s3');
    await state().applyEdit({ op: 'merge', stepIds: ['s1', 's2'] });
    expect(state().selectedStepId).toBe('s1');
  });

  it('rolls back a refused edit and shows the reason', async () => {
    await state().applyEdit({ op: 'delete', stepId: 'missing' });
    expect(state().saveState).toBe('error');
    expect(state().saveError).toBe('Step missing does not exist (edit.stepId)');
    expect(stepIds()).toEqual(['s0', 's1', 's2', 's3', 's4']);
    // the next successful save clears the error
    await state().applyEdit({ op: 'mark', stepId: 's0', mark: 'correct' });
    expect(state().saveState).toBe('saved');
  });

  describe('autosave of typed text', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('saves a label after a pause, as one relabel', async () => {
      state().setLabelDraft('s2', 'Cli');
      state().setLabelDraft('s2', 'Click OK');
      expect(state().saveState).toBe('saving');
      expect(reviewSelectors.labelText(state(), reviewSelectors.steps(state())[2]!)).toBe(
        'Click OK',
      );
      vi.advanceTimersByTime(AUTOSAVE_DELAY_MS - 1);
      expect(api.methods()).toEqual(['recordings:get']);
      vi.advanceTimersByTime(1);
      await state().whenIdle();
      expect(api.calls.slice(1)).toEqual([
        {
          method: 'edits:apply',
          payload: { id: 'rec-1', edit: { op: 'relabel', stepId: 's2', label: 'Click OK' } },
        },
      ]);
      expect(state().saveState).toBe('saved');
    });

    it('saves task text and labels, and undo flushes them first', async () => {
      state().setTaskDraft({ task: 'Change the brightness' });
      state().setLabelsDraft({
        taskCompleted: true,
        taskDifficulty: 3,
        alignmentScore: 9,
        efficiencyScore: 8,
      });
      expect(reviewSelectors.taskText(state())).toBe('Change the brightness');
      await state().undo();
      await state().whenIdle();
      expect(api.methods()).toEqual([
        'recordings:get',
        'recordings:update-task',
        'labels:save',
        'edits:undo',
      ]);
      // undo took back the labels save (the last change) in the fake
      expect(state().confirmed?.task).toBe('Change the brightness');
    });

    it('does not send a label that did not change', async () => {
      state().setLabelDraft('s0', 'step s0');
      vi.advanceTimersByTime(AUTOSAVE_DELAY_MS);
      await state().whenIdle();
      expect(api.methods()).toEqual(['recordings:get']);
      expect(state().saveState).toBe('saved');
    });
  });

  it('undoes and redoes through the service', async () => {
    await state().applyEdit({ op: 'delete', stepId: 's0' });
    expect(reviewSelectors.canUndo(state())).toBe(true);
    await state().undo();
    expect(stepIds()).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(reviewSelectors.canRedo(state())).toBe(true);
    await state().redo();
    expect(stepIds()).toEqual(['s1', 's2', 's3', 's4']);
  });

  it('moves the selection with the arrow keys, clamped', () => {
    state().moveSelection(-1);
    expect(state().selectedStepId).toBe('s0');
    state().moveSelection(3);
    expect(state().selectedStepId).toBe('s3');
    state().moveSelection(10);
    expect(state().selectedStepId).toBe('s4');
  });

  it('computes keyframes, sets the review status and loads AX trees', async () => {
    expect(reviewSelectors.needsKeyframes(state())).toBe(true);
    await state().computeKeyframes();
    expect(reviewSelectors.needsKeyframes(state())).toBe(false);
    expect(state().keyframesStatus).toBe('idle');
    await state().setReviewStatus({ status: 'submitted', comment: 'ready' });
    expect(reviewSelectors.recording(state())?.reviewStatus).toBe('submitted');
    expect(state().reviewBusy).toBe(false);
    await state().loadAxTree('s1');
    expect(state().axTrees.s1).toMatchObject({ status: 'ready', tMs: 5 });
  });

  it('follows the background keyframe job of the open recording (keyframes:progress)', () => {
    const progress = (phase: KeyframesProgressDto['phase'], recordingId = 'rec-1') =>
      state().keyframesProgress({
        recordingId,
        phase,
        steps: 5,
        error: phase === 'failed' ? { code: 'VIDEO_UNREADABLE', message: 'no frames' } : null,
      });
    progress('decoding');
    expect(state().keyframesStatus).toBe('computing');
    progress('failed', 'rec-2'); // another recording's job: not this page's
    expect(state().keyframesStatus).toBe('computing');
    progress('failed');
    expect([state().keyframesStatus, state().keyframesError]).toEqual(['error', 'no frames']);
    progress('queued');
    expect([state().keyframesStatus, state().keyframesError]).toEqual(['computing', null]);
    progress('done');
    expect(state().keyframesStatus).toBe('idle');
  });

  it('drops answers for a recording that is no longer open', async () => {
    api.hold();
    void state().applyEdit({ op: 'delete', stepId: 's0' });
    const opening = state().open('rec-2');
    await api.release();
    await opening;
    await state().whenIdle();
    // the edit was still sent (nothing typed is lost) but its answer did not land on rec-2
    expect(api.methods()).toContain('edits:apply');
    expect(state().recordingId).toBe('rec-2');
    expect(state().pending).toEqual([]);
    expect(state().inFlight).toBe(0);
  });
});

describe('issue 10 item 14: nothing typed is lost, accepted recordings ask first', () => {
  let api: ReturnType<typeof fakeService>;
  beforeEach(async () => {
    api = fakeService(makeRecording(5));
    await state().open('rec-1');
  });

  it('item 14: leaving the page sends typed text at once, even behind an unanswered call', async () => {
    api.hold();
    void state().applyEdit({ op: 'delete', stepId: 's4' });
    await flush();
    state().setLabelDraft('s1', 'typed just before leaving');
    expect(reviewSelectors.hasUnsavedWork(state())).toBe(true);
    // the page goes away: the answer to the delete never comes, the label must leave anyway
    state().flushOnExit();
    await flush();
    expect(api.calls.map((c) => c.payload)).toContainEqual({
      id: 'rec-1',
      edit: { op: 'relabel', stepId: 's1', label: 'typed just before leaving' },
    });
    await api.release();
    await state().whenIdle();
    expect(reviewSelectors.hasUnsavedWork(state())).toBe(false);
    expect(api.current().steps.find((s) => s.id === 's1')?.label).toBe('typed just before leaving');
  });

  it('item 14: an edit of an accepted recording waits for a yes and goes out with force', async () => {
    api = fakeService(makeRecording(5, { reviewStatus: 'accepted' }));
    await state().open('rec-1');
    const sent = () => api.calls.filter((c) => c.method !== 'recordings:get');
    // no: nothing is sent, nothing changes
    await state().applyEdit({ op: 'delete', stepId: 's1' });
    expect(state().lockPrompt).toBe(true);
    expect(stepIds()).toEqual(['s0', 's1', 's2', 's3', 's4']);
    state().cancelLockedEdit();
    expect(state().lockPrompt).toBe(false);
    state().setLabelDraft('s2', 'x');
    expect(state().lockPrompt).toBe(true);
    expect(state().labelDrafts).toEqual({});
    state().cancelLockedEdit();
    await state().whenIdle();
    expect(sent()).toEqual([]);
    // yes: the held edit goes out with force, later ones too
    await state().applyEdit({ op: 'delete', stepId: 's1' });
    state().confirmLockedEdit();
    await state().whenIdle();
    expect(sent()[0]).toEqual({
      method: 'edits:apply',
      payload: { id: 'rec-1', edit: { op: 'delete', stepId: 's1' }, force: true },
    });
    state().setLabelDraft('s2', 'after yes');
    state().flushDrafts();
    await state().whenIdle();
    expect(state().lockPrompt).toBe(false);
    expect(sent()[1]?.payload).toMatchObject({ force: true });
    // a new verdict locks it again
    await state().setReviewStatus({ status: 'accepted' });
    await state().undo();
    expect(state().lockPrompt).toBe(true);
  });
});

describe('issue 26 item 16: the preview shows the kind the service stores', () => {
  let api: ReturnType<typeof fakeService>;
  beforeEach(async () => {
    api = fakeService(makeRecording(3));
    await state().open('rec-1');
  });

  const f = (v: number) => ({ float: v });
  const CALLS: [string, StepDto['calls']][] = [
    ['[hscroll]', [{ name: 'hscroll', args: { clicks: { int: 2 } } }]],
    [
      '[moveTo, click]',
      [
        { name: 'moveTo', args: { x: f(0.2), y: f(0.3) } },
        { name: 'click', args: { x: f(0.2), y: f(0.3) } },
      ],
    ],
  ];

  it.each(CALLS)(
    'item 44: set-action %s: the shown kind before and after the answer are equal',
    async (_name, calls) => {
      api.hold();
      const p = state().applyEdit({ op: 'set-action', stepId: 's1', calls });
      const previewed = reviewSelectors.steps(state())[1]!.kind;
      await api.release();
      await p;
      expect([state().saveError, state().pending]).toEqual([null, []]);
      const stored = api.current().steps[1]!.kind;
      expect({ previewed, shown: reviewSelectors.steps(state())[1]!.kind }).toEqual({
        previewed: stored,
        shown: stored,
      });
      expect(stored).toBe(calls.at(-1)!.name);
    },
  );
});
