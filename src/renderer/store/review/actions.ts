// Review store actions: loading a recording, applying edits through one ordered queue (so the
// service sees them in the order they were made), autosaving typed text, undo/redo.
import type { StateCreator } from 'zustand';
import type {
  KeyframesProgressDto,
  RecordingDto,
  StepEdit,
  TaskLabels,
} from '../../../shared/contract';
import type { ReviewStatus } from '../../../shared/domain';
import { ApiError, errorMessage, getApiClient } from '../../api';
import { neighbourAfterRemoval, previewSteps } from '../../lib/edit-preview';
import { initialReviewState, type PendingOp, type ReviewState } from './initialState';
import { reviewSelectors } from './selectors';
import {
  displayedSteps,
  hasDrafts,
  opFailed,
  opQueued,
  opSucceeded,
  reconcileSelection,
  stepMoved,
  stepSelected,
  withSaveState,
} from './reducers';

/** Quiet time after the last keystroke before typed text is saved, ms. */
export const AUTOSAVE_DELAY_MS = 600;

/** A review verdict or status change. */
export type ReviewStatusInput = {
  status: ReviewStatus;
  comment?: string;
  grade?: string;
  reviewer?: string;
};

/** How a {@link ReviewActions.runRecordingCall} ended: answered, failed (the error as thrown),
 * or cancelled (the user said no to "edit an accepted recording?", or the page moved on). */
export type RecordingCallOutcome =
  | { state: 'done'; dto: RecordingDto }
  | { state: 'failed'; error: unknown }
  | { state: 'cancelled' };

/** Review store actions. */
export type ReviewActions = {
  /** Opens a recording (drops the previous one's state). */
  open: (id: string) => Promise<void>;
  /** Re-reads the recording when nothing is pending (after a change elsewhere). */
  refreshIfIdle: (id: string) => Promise<void>;
  selectStep: (stepId: string) => void;
  /** Moves the selection up (-1) or down (+1). */
  moveSelection: (delta: number) => void;
  /** Applies one edit (optimistically) and sends it. */
  applyEdit: (edit: StepEdit) => Promise<void>;
  /**
   * Sends a call that changes the recording and answers with it (a privacy action: redact,
   * accept, a box redaction), in order after every queued call, with `force` once the user said
   * yes to editing an accepted recording (asked first, like an edit: the promise waits for the
   * answer). Its answer becomes the confirmed recording; the outcome says how it ended, with the
   * error for the caller to show.
   */
  runRecordingCall: (
    call: (id: string, force: { force?: true }) => Promise<RecordingDto>,
  ) => Promise<RecordingCallOutcome>;
  /** Records typed label text; saved after a pause or on flush. */
  setLabelDraft: (stepId: string, text: string) => void;
  /** Records typed task instruction/description; saved after a pause or on flush. */
  setTaskDraft: (patch: { task?: string; description?: string }) => void;
  /** Records changed task labels; saved after a pause or on flush. */
  setLabelsDraft: (labels: TaskLabels) => void;
  /** Sends every draft now. */
  flushDrafts: () => void;
  /**
   * The page is going away (pagehide): sends every draft now and stops holding queued calls
   * behind answers that will never arrive, so everything typed leaves before the page does
   * (the transport sends with `keepalive`).
   */
  flushOnExit: () => void;
  /** The page came back (pageshow from the back/forward cache): calls queue in order again. */
  resumeAfterExit: () => void;
  /** The user said yes to editing the accepted recording: runs the held edit with `force`. */
  confirmLockedEdit: () => void;
  /** The user said no: the held edit is dropped. */
  cancelLockedEdit: () => void;
  undo: () => Promise<void>;
  redo: () => Promise<void>;
  setReviewStatus: (input: ReviewStatusInput) => Promise<void>;
  computeKeyframes: () => Promise<void>;
  /** A `keyframes:progress` event: the open recording's background keyframe job moved on. */
  keyframesProgress: (event: KeyframesProgressDto) => void;
  loadAxTree: (stepId: string) => Promise<void>;
  /** Waits until every queued call has answered (tests, page exit). */
  whenIdle: () => Promise<void>;
  /** Cancels timers (store reset). */
  dispose: () => void;
};

/** The review store type. */
export type ReviewStore = ReviewState & ReviewActions;

// The actions slice of the review store.
export const createReviewActions: StateCreator<ReviewStore, [], [], ReviewActions> = (set, get) => {
  let queue: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;
  // resolved when the page is going away: queued calls stop waiting for earlier answers
  let releaseExit: () => void = () => undefined;
  let exiting: Promise<void> = Promise.resolve();
  const armExitGate = () => {
    exiting = new Promise<void>((resolve) => (releaseExit = resolve));
  };
  armExitGate();
  // the edit held while the user is asked whether to edit an accepted recording, and what to
  // tell its caller when it is dropped (a no, another recording opened, another edit held)
  let heldEdit: (() => void) | null = null;
  let heldDrop: (() => void) | null = null;
  const dropHeld = () => {
    const drop = heldDrop;
    heldEdit = null;
    heldDrop = null;
    drop?.();
  };

  const chainAfter = async (prev: Promise<void>, task: () => Promise<void>) => {
    await Promise.race([prev, exiting]);
    await task();
  };

  /** Holds `action` and asks first when the recording is accepted; true when held. */
  const holdIfLocked = (action: () => void, onDrop?: () => void): boolean => {
    if (!reviewSelectors.isLocked(get())) {
      return false;
    }
    dropHeld();
    heldEdit = action;
    heldDrop = onDrop ?? null;
    set({ lockPrompt: true });
    return true;
  };
  /** `force` for the edit calls once the user said yes. */
  const force = (): { force?: true } => (get().forceEdits ? { force: true } : {});
  // Runs `task` after every earlier queued task (tasks never reject).
  const enqueue = (task: () => Promise<void>): Promise<void> => {
    queue = chainAfter(queue, task);
    return queue;
  };

  /** Queues a call answering with the recording; `op` is shown until it answers. */
  const send = (
    op: PendingOp | null,
    call: (id: string) => Promise<RecordingDto>,
    hooks: {
      edit?: StepEdit;
      onDone?: (ok: boolean, message: string | null, error?: unknown, dto?: RecordingDto) => void;
    } = {},
  ): Promise<void> => {
    const { session, recordingId } = get();
    if (recordingId === null) {
      return Promise.resolve();
    }
    set((s) => opQueued(s, op));
    return enqueue(async () => {
      // the call is made even after another recording was opened (unsent work is never lost);
      // only its answer is dropped then
      if (get().session === session) {
        set({ editInFlight: hooks.edit ?? null });
      }
      try {
        const dto = await call(recordingId);
        if (get().session === session) {
          set((s) => ({ ...opSucceeded(s, op ? op.seq : null, dto), editInFlight: null }));
        }
        hooks.onDone?.(true, null, undefined, dto);
      } catch (e) {
        const message = errorMessage(e);
        if (get().session === session) {
          set((s) => ({ ...opFailed(s, op ? op.seq : null, message), editInFlight: null }));
        }
        hooks.onDone?.(false, message, e);
      }
    });
  };

  const schedule = () => {
    if (timer !== null) {
      clearTimeout(timer);
    }
    timer = setTimeout(() => {
      timer = null;
      get().flushDrafts();
    }, AUTOSAVE_DELAY_MS);
  };

  const nextSeq = () => get().opSeq + 1;

  const applyEdit = (edit: StepEdit): Promise<void> => {
    const before = displayedSteps(get());
    const seq = nextSeq();
    const op: PendingOp = { seq, kind: 'edit', edit };
    const p = send(op, (id) => getApiClient().call('edits:apply', { id, edit, ...force() }), {
      edit,
    });
    // selection follows the edit: a removed step hands over to its neighbour
    const after = previewSteps(before, edit, seq);
    if (edit.op === 'delete' && get().selectedStepId === edit.stepId) {
      const next = neighbourAfterRemoval(before, after, edit.stepId);
      set((s) => ({ ...s, selectedStepId: next }));
    } else if (edit.op === 'merge') {
      set((s) => stepSelected(s, edit.stepIds[0]));
    } else if (edit.op === 'insert') {
      const i =
        edit.afterStepId === null ? 0 : after.findIndex((x) => x.id === edit.afterStepId) + 1;
      const inserted = after[i];
      if (inserted) {
        set((s) => stepSelected(s, inserted.id));
      }
    }
    set((s) => reconcileSelection(s, displayedSteps(s)));
    return p;
  };

  return {
    open: async (id) => {
      get().flushDrafts();
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      dropHeld();
      const session = get().session + 1;
      set({ ...initialReviewState(), session, recordingId: id, loadStatus: 'loading' });
      try {
        const dto = await getApiClient().call('recordings:get', { id });
        if (get().session !== session) {
          return;
        }
        const failure = dto.keyframesError;
        set((s) =>
          reconcileSelection(
            {
              ...s,
              confirmed: dto,
              loadStatus: 'ready',
              loadError: null,
              ...(failure
                ? { keyframesStatus: 'error' as const, keyframesError: withFix(failure) }
                : {}),
            },
            dto.steps,
          ),
        );
      } catch (e) {
        if (get().session === session) {
          set({ loadStatus: 'error', loadError: errorMessage(e) });
        }
      }
    },
    refreshIfIdle: async (id) => {
      const s = get();
      if (s.recordingId !== id || s.inFlight > 0 || hasDrafts(s) || s.loadStatus !== 'ready') {
        return;
      }
      const session = s.session;
      try {
        const dto = await getApiClient().call('recordings:get', { id });
        const now = get();
        if (now.session === session && now.inFlight === 0 && !hasDrafts(now)) {
          set((st) => reconcileSelection({ ...st, confirmed: dto }, dto.steps));
        }
      } catch {
        // a failed background refresh changes nothing; the next action reports errors
      }
    },
    selectStep: (stepId) => set((s) => stepSelected(s, stepId)),
    moveSelection: (delta) => set((s) => stepMoved(s, delta)),
    applyEdit: (edit) =>
      holdIfLocked(() => void applyEdit(edit)) ? Promise.resolve() : applyEdit(edit),
    runRecordingCall: (call) => {
      const run = async (): Promise<RecordingCallOutcome> => {
        get().flushDrafts();
        let outcome: RecordingCallOutcome = {
          state: 'failed',
          error: new Error('No recording is open.'),
        };
        await send(null, (id) => call(id, force()), {
          onDone: (ok, _message, error, dto) => {
            outcome = ok && dto ? { state: 'done', dto } : { state: 'failed', error };
          },
        });
        return outcome;
      };
      return new Promise<RecordingCallOutcome>((resolve) => {
        const runAndTell = async () => resolve(await run());
        if (
          !holdIfLocked(
            () => void runAndTell(),
            () => resolve({ state: 'cancelled' }),
          )
        ) {
          void runAndTell();
        }
      });
    },
    setLabelDraft: (stepId, text) => {
      if (holdIfLocked(() => get().setLabelDraft(stepId, text))) {
        return;
      }
      set((s) => withSaveState({ ...s, labelDrafts: { ...s.labelDrafts, [stepId]: text } }));
      schedule();
    },
    setTaskDraft: (patch) => {
      if (holdIfLocked(() => get().setTaskDraft(patch))) {
        return;
      }
      set((s) => withSaveState({ ...s, taskDraft: { ...s.taskDraft, ...patch } }));
      schedule();
    },
    setLabelsDraft: (labels) => {
      if (holdIfLocked(() => get().setLabelsDraft(labels))) {
        return;
      }
      set((s) => withSaveState({ ...s, labelsDraft: labels }));
      schedule();
    },
    confirmLockedEdit: () => {
      const action = heldEdit;
      heldEdit = null;
      heldDrop = null;
      set({ lockPrompt: false, forceEdits: true });
      action?.();
    },
    cancelLockedEdit: () => {
      dropHeld();
      set({ lockPrompt: false });
    },
    flushOnExit: () => {
      releaseExit();
      get().flushDrafts();
    },
    resumeAfterExit: armExitGate,
    flushDrafts: () => {
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      const s = get();
      if (!hasDrafts(s) || s.recordingId === null) {
        return;
      }
      const { labelDrafts, taskDraft, labelsDraft } = s;
      const steps = displayedSteps(s);
      set((st) => withSaveState({ ...st, labelDrafts: {}, taskDraft: null, labelsDraft: null }));
      for (const [stepId, label] of Object.entries(labelDrafts)) {
        const step = steps.find((x) => x.id === stepId);
        if (step && step.label !== label) {
          void applyEdit({ op: 'relabel', stepId, label });
        }
      }
      if (taskDraft) {
        const op: PendingOp = { seq: nextSeq(), kind: 'task', ...taskDraft };
        void send(op, (id) =>
          getApiClient().call('recordings:update-task', { id, ...taskDraft, ...force() }),
        );
      }
      if (labelsDraft) {
        const op: PendingOp = { seq: nextSeq(), kind: 'labels', labels: labelsDraft };
        void send(op, (id) =>
          getApiClient().call('labels:save', { id, labels: labelsDraft, ...force() }),
        );
      }
    },
    undo: async () => {
      if (holdIfLocked(() => void get().undo())) {
        return;
      }
      get().flushDrafts();
      await send(null, (id) => getApiClient().call('edits:undo', { id, ...force() }));
    },
    redo: async () => {
      if (holdIfLocked(() => void get().redo())) {
        return;
      }
      get().flushDrafts();
      await send(null, (id) => getApiClient().call('edits:redo', { id, ...force() }));
    },
    setReviewStatus: async (input) => {
      get().flushDrafts();
      set({ reviewBusy: true, reviewError: null });
      await send(null, (id) => getApiClient().call('reviews:set-status', { id, ...input }), {
        // a new verdict stands on its own: an accepted recording asks again before edits
        onDone: (ok, message) =>
          set(
            ok
              ? { reviewBusy: false, reviewError: null, forceEdits: false }
              : { reviewBusy: false, reviewError: message },
          ),
      });
    },
    computeKeyframes: async () => {
      set({ keyframesStatus: 'computing', keyframesError: null });
      await send(null, (id) => getApiClient().call('keyframes:compute', { id }), {
        onDone: (ok, message, error) =>
          set({
            keyframesStatus: ok ? 'idle' : 'error',
            keyframesError:
              error instanceof ApiError && error.fix ? `${message} ${error.fix}` : message,
          }),
      });
    },
    keyframesProgress: (event) => {
      if (event.recordingId !== get().recordingId) {
        return;
      }
      if (event.phase === 'failed') {
        set({
          keyframesStatus: 'error',
          keyframesError: event.error ? withFix(event.error) : 'failed',
        });
      } else if (event.phase === 'done' || event.phase === 'cancelled') {
        // the rows arrive with the recordings:changed event that follows a job that stored some
        set({ keyframesStatus: 'idle' });
      } else {
        set({ keyframesStatus: 'computing', keyframesError: null });
      }
    },
    loadAxTree: async (stepId) => {
      const { recordingId, session, axTrees } = get();
      const existing = axTrees[stepId];
      if (recordingId === null || existing?.status === 'loading' || existing?.status === 'ready') {
        return;
      }
      const put = (entry: ReviewState['axTrees'][string]) => {
        if (get().session === session) {
          set((s) => ({ axTrees: { ...s.axTrees, [stepId]: entry } }));
        }
      };
      put({ status: 'loading', tMs: null, tree: null, element: null, error: null });
      try {
        const r = await getApiClient().call('axtree:get', { id: recordingId, stepId });
        put({ status: 'ready', tMs: r.tMs, tree: r.tree, element: r.element, error: null });
      } catch (e) {
        put({ status: 'error', tMs: null, tree: null, element: null, error: errorMessage(e) });
      }
    },
    whenIdle: async () => {
      // new tasks may be queued while waiting; loop until the queue stays the same
      let seen: Promise<void> | null = null;
      while (seen !== queue) {
        seen = queue;
        await seen;
      }
    },
    dispose: () => {
      if (timer !== null) {
        clearTimeout(timer);
        timer = null;
      }
      dropHeld();
      armExitGate();
    },
  };
};

// A keyframe failure as the page shows it: the message, then what to do about it.
function withFix(error: { message: string; fix?: string | null }): string {
  return error.fix ? `${error.message} ${error.fix}` : error.message;
}
