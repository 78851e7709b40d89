// State of the recording page: the recording as the service last answered, the edits and saves
// still on their way (shown optimistically), the selected step and the save state.
import type { RecordingDto, StepEdit, TaskLabels } from '../../../shared/contract';

/** A change sent (or about to be sent) to the service, shown before it answers. */
export type PendingOp =
  | { seq: number; kind: 'edit'; edit: StepEdit }
  | { seq: number; kind: 'task'; task?: string; description?: string }
  | { seq: number; kind: 'labels'; labels: TaskLabels };

/** The accessibility snapshot of one step, as fetched. */
export type AxEntry = {
  status: 'loading' | 'ready' | 'error';
  /** Snapshot time on the recording clock, ms. */
  tMs: number | null;
  tree: unknown;
  element: unknown;
  error: string | null;
};

/** Visible save state of the page. */
export type SaveState = 'saved' | 'saving' | 'error';

/** Recording page state (plain serialisable data). */
export type ReviewState = {
  recordingId: string | null;
  /** Bumped when another recording is opened; answers of an older session are dropped. */
  session: number;
  /** The recording as the service last returned it. */
  confirmed: RecordingDto | null;
  /** Ops not yet confirmed, in send order. */
  pending: PendingOp[];
  opSeq: number;
  loadStatus: 'idle' | 'loading' | 'ready' | 'error';
  loadError: string | null;
  selectedStepId: string | null;
  /** Position of the selection, used when the selected id disappears (undo, server ids). */
  selectedIndex: number;
  saveState: SaveState;
  saveError: string | null;
  /** Calls queued or running. */
  inFlight: number;
  /** The edit being sent right now. */
  editInFlight: StepEdit | null;
  /** Step labels typed but not yet sent, by step id. */
  labelDrafts: Record<string, string>;
  /** Task instruction/description typed but not yet sent. */
  taskDraft: { task?: string; description?: string } | null;
  /** Task labels changed but not yet sent. */
  labelsDraft: TaskLabels | null;
  keyframesStatus: 'idle' | 'computing' | 'error';
  keyframesError: string | null;
  reviewBusy: boolean;
  reviewError: string | null;
  /** Accessibility snapshots by step id. */
  axTrees: Record<string, AxEntry>;
  /** An edit of an accepted recording waits for the user's yes (the "edit anyway?" dialog). */
  lockPrompt: boolean;
  /** The user said yes: edits of this accepted recording are sent with `force` (they return it
   * to review). Reset by a new verdict and by opening another recording. */
  forceEdits: boolean;
};

// A fresh review state.
export function initialReviewState(): ReviewState {
  return {
    recordingId: null,
    session: 0,
    confirmed: null,
    pending: [],
    opSeq: 0,
    loadStatus: 'idle',
    loadError: null,
    selectedStepId: null,
    selectedIndex: 0,
    saveState: 'saved',
    saveError: null,
    inFlight: 0,
    editInFlight: null,
    labelDrafts: {},
    taskDraft: null,
    labelsDraft: null,
    keyframesStatus: 'idle',
    keyframesError: null,
    reviewBusy: false,
    reviewError: null,
    axTrees: {},
    lockPrompt: false,
    forceEdits: false,
  };
}
