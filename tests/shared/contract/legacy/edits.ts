// Non-destructive edits of a recording's steps: an ordered log applied over the reduced steps.
import type { ActionCall } from './domain';

/** Reviewer's mark on one step (AgentNet `last_step_correct` / `last_step_redundant`). */
export type StepMark = 'correct' | 'incorrect' | 'redundant';

/** Every step mark. */
export const STEP_MARKS = [
  'correct',
  'incorrect',
  'redundant',
] as const satisfies readonly StepMark[];

/** Prefix of the ids of steps an edit created (`edit:<edit id>`: inserted steps, split halves). */
export const EDIT_STEP_ID_PREFIX = 'edit:';

/** One edit. Step ids are the stable ids of steps (inserted steps get `edit:<edit id>`). */
export type StepEdit =
  | { op: 'relabel'; stepId: string; label: string }
  /** Replace the step's calls (validated: a well-formed action of the action space). */
  | { op: 'set-action'; stepId: string; calls: ActionCall[] }
  | { op: 'delete'; stepId: string }
  /**
   * Merge two adjacent steps (the first keeps its id and position; calls and time spans are
   * joined, adjacent writes become one write, two scrolls add up; distinct non-empty labels are
   * joined with a space).
   */
  | { op: 'merge'; stepIds: [string, string] }
  /**
   * Split a typing step's write message at a character offset (Unicode code points over the
   * step's write messages in order, 0 < at < length) into two steps; the second half gets the id
   * `edit:<edit id>`.
   */
  | { op: 'split'; stepId: string; at: number }
  /**
   * Insert a wait or terminate step after the given step (null = at the start). `status` only for
   * terminate (default success), `seconds` only for wait (default: pyautogui's own wait). A
   * terminate must be inserted after the last step.
   */
  | {
      op: 'insert';
      afterStepId: string | null;
      kind: 'wait' | 'terminate';
      status?: 'success' | 'failure';
      seconds?: number;
    }
  /** Trim the recording: steps starting before startMs or after endMs are left out. */
  | { op: 'trim'; startMs: number | null; endMs: number | null }
  | { op: 'mark'; stepId: string; mark: StepMark | null };

/** Every edit op name. */
export const EDIT_OPS = [
  'relabel',
  'set-action',
  'delete',
  'merge',
  'split',
  'insert',
  'trim',
  'mark',
] as const satisfies readonly StepEdit['op'][];

/** Where an edit stands in the undo history. */
export type EditState =
  /** Applied. */
  | 'active'
  /** Undone; a redo applies it again. */
  | 'undone'
  /** Undone and then superseded by a new edit: never applied again (the dropped redo tail). */
  | 'discarded';

/** One row of a recording's edit log. */
export type StoredEdit = {
  /** Log id, increasing in the order the edits were made. */
  id: number;
  /** When the edit was made (epoch ms). */
  atMs: number;
  author: string | null;
  edit: StepEdit;
  state: EditState;
};

/** An edit the log holds but that could not be applied (e.g. its step vanished on re-reduction). */
export type SkippedEdit = {
  editId: number;
  op: StepEdit['op'];
  /** Stable reason: STEP_MISSING, NOT_ADJACENT, NOT_SPLITTABLE, NOT_LAST, … */
  code: string;
  message: string;
};
