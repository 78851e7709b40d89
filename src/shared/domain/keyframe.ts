// Stored keyframes: the phases of a background keyframe job.
import * as v from 'valibot';

/** Phases of a keyframe job as its progress reports them (the `keyframes:progress` event). */
export const KEYFRAME_JOB_PHASES = [
  'queued',
  'decoding',
  'storing',
  'done',
  'cancelled',
  'failed',
] as const;
/** One of {@link KEYFRAME_JOB_PHASES}. */
export const KeyframeJobPhaseSchema = v.picklist(KEYFRAME_JOB_PHASES);
/** One of {@link KEYFRAME_JOB_PHASES}. */
export type KeyframeJobPhase = v.InferOutput<typeof KeyframeJobPhaseSchema>;
