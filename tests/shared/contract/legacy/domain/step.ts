// Reduced steps: derived from raw events, kept apart from them.
import type { ActionCall } from './action';

/** A step kind = the main action of the step. */
export type StepKind =
  | 'click'
  | 'doubleClick'
  | 'tripleClick'
  | 'rightClick'
  | 'middleClick'
  | 'moveTo'
  | 'dragTo'
  | 'scroll'
  | 'hscroll'
  | 'write'
  | 'press'
  | 'hotkey'
  | 'wait'
  | 'terminate'
  | 'unknown';

/** Moves that led up to a pointer action. */
export type PreMove = {
  startMs: number;
  endMs: number;
  eventStartIdx: number;
  count: number;
};

/** One reduced step. */
export type Step = {
  /** Stable id (survives re-reduction where the step still exists), e.g. `agentnet:3`. */
  id: string;
  /** 0-based position among the recording's steps. */
  index: number;
  kind: StepKind;
  /** AgentNet description string (the interchange form). */
  description: string;
  /** Annotator's natural-language label (AgentNet vis `action`). */
  label: string;
  calls: ActionCall[];
  startMs: number;
  endMs: number;
  eventStartIdx: number | null;
  coordinate: { x: number; y: number } | null;
  preMove: PreMove | null;
  /** Element under the pointer / target as recorded. */
  target: Record<string, unknown> | null;
  /** Source-specific extra fields kept for faithful re-export (JSON). */
  extra: Record<string, unknown>;
  diagnostics: string[];
};
