// The review page's view of a recording's CoT (docs/cot.md §9): each trajectory step's
// observation, thought, action and reflection with its verdict, and the summary; people edit the
// texts and the summary like other step fields. The synthesis itself runs from the `cot` command.
import * as v from 'valibot';
import { boolField, idField, integer, obj, text } from './fields';

/** One trajectory step's stored CoT. */
export const CotStepDtoSchema = v.strictObject({
  /** Trajectory index (0-based; the terminate step last). */
  index: v.number(),
  /** The step it shows (the first reduced step of an exported step); null for terminate. */
  stepId: v.nullable(v.string()),
  code: v.string(),
  observation: v.string(),
  thought: v.string(),
  action: v.string(),
  lastStepCorrect: v.boolean(),
  lastStepRedundant: v.boolean(),
  reflection: v.string(),
  /** Whose verdict `lastStepCorrect` is. */
  verdictSource: v.picklist(['model', 'reviewer', 'final-step']),
  /** The step (or one before it) changed since: the next `cot` run makes it again. */
  isStale: v.boolean(),
  /** A person edited its texts. */
  isEdited: v.boolean(),
  model: v.string(),
});
/** One trajectory step's stored CoT. */
export type CotStepDto = v.InferOutput<typeof CotStepDtoSchema>;

/** The summarizer's evaluation of the trajectory. */
export const CotSummaryDtoSchema = v.strictObject({
  taskCompleted: v.nullable(v.boolean()),
  alignmentScore: v.nullable(v.number()),
  efficiencyScore: v.nullable(v.number()),
  taskDifficulty: v.nullable(v.number()),
  reason: v.nullable(v.string()),
  actualTask: v.nullable(v.string()),
  naturalLanguageTask: v.nullable(v.string()),
  isStale: v.boolean(),
  isEdited: v.boolean(),
  model: v.string(),
});
/** The summarizer's evaluation. */
export type CotSummaryDto = v.InferOutput<typeof CotSummaryDtoSchema>;

/** A recording's CoT as the review page shows it. */
export const CotViewDtoSchema = v.strictObject({
  recordingId: v.string(),
  /** Steps of the exported trajectory. */
  totalSteps: v.number(),
  /** The stored steps, by trajectory index (steps never synthesised are absent). */
  steps: v.array(CotStepDtoSchema),
  summary: v.nullable(CotSummaryDtoSchema),
});
/** A recording's CoT. */
export type CotViewDto = v.InferOutput<typeof CotViewDtoSchema>;

const cotText = v.optional(text(50_000));
/** Edit an accepted recording (it goes back to review), as the other edit methods' `force`. */
const force = v.optional(boolField);
const score = v.optional(integer(0, 10));

/** The CoT methods (spread into the contract's METHOD_SCHEMAS). */
export const COT_METHOD_SCHEMAS = {
  /** A recording's stored CoT, with what is stale. */
  'cot:get': { input: obj({ id: idField }), output: CotViewDtoSchema },
  /** Edits a stored step's texts (absent fields unchanged). */
  'cot:edit-step': {
    input: obj({
      id: idField,
      index: integer(0),
      observation: cotText,
      thought: cotText,
      action: cotText,
      reflection: cotText,
      force,
    }),
    output: CotViewDtoSchema,
  },
  /** Edits the stored summary (absent fields unchanged). */
  'cot:edit-summary': {
    input: obj({
      id: idField,
      taskCompleted: v.optional(v.boolean()),
      alignmentScore: score,
      efficiencyScore: score,
      taskDifficulty: score,
      reason: cotText,
      actualTask: cotText,
      naturalLanguageTask: cotText,
      force,
    }),
    output: CotViewDtoSchema,
  },
} as const;

/** The CoT method names. */
export const COT_METHODS = ['cot:get', 'cot:edit-step', 'cot:edit-summary'] as const;
