// Reduced steps: derived from raw events, kept apart from them.
import * as v from 'valibot';
import { ACTION_NAMES, type ActionCall } from './action';

/** Every step kind: the main action of the step, or `unknown`. */
export const STEP_KINDS = [...ACTION_NAMES, 'unknown'] as const;
/** One of {@link STEP_KINDS}. */
export const StepKindSchema = v.picklist(STEP_KINDS);
/** A step kind = the main action of the step. */
export type StepKind = v.InferOutput<typeof StepKindSchema>;

/** Moves that led up to a pointer action. */
export const PreMoveSchema = v.strictObject({
  startMs: v.number(),
  endMs: v.number(),
  eventStartIdx: v.number(),
  count: v.number(),
});
/** Moves that led up to a pointer action. */
export type PreMove = v.InferOutput<typeof PreMoveSchema>;

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
