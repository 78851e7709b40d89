// Non-destructive edits of a recording's steps: an ordered log applied over the reduced steps.
import type { ActionCall } from '../domain';

/** Reviewer's mark on one step (AgentNet `last_step_correct` / `last_step_redundant`). */
export type StepMark = 'correct' | 'incorrect' | 'redundant';

/** One edit. Step ids are the stable ids of steps (inserted steps get `edit:<edit id>`). */
export type StepEdit =
  | { op: 'relabel'; stepId: string; label: string }
  /** Replace the step's calls (validated: a well-formed action of the action space). */
  | { op: 'set-action'; stepId: string; calls: ActionCall[] }
  | { op: 'delete'; stepId: string }
  /** Merge two adjacent steps (the first keeps its id; calls and time spans are joined). */
  | { op: 'merge'; stepIds: [string, string] }
  /** Split a typing step's write message at a character offset into two steps. */
  | { op: 'split'; stepId: string; at: number }
  /** Insert a wait or terminate step after the given step (null = at the start). */
  | {
      op: 'insert';
      afterStepId: string | null;
      kind: 'wait' | 'terminate';
      status?: 'success' | 'failure';
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
] as const;
