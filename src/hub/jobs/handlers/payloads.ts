// The handlers' side of the job payloads: the schemas and keys are the queues' (src/hub/jobs/
// queues.ts, the one source of what a job accepts); a handler checks its payload again before
// it runs (a payload that fails is a coded error, never a half-run job).
import * as v from 'valibot';
import { AppError } from '../../../shared/errors';
import type { JobDeps } from '../types';
import type {
  BuildItemPayloadSchema,
  BuildMergePayloadSchema,
  SubmissionVersionPayloadSchema,
} from '../queues';
import { type HubJobQueue } from '../queues';

export {
  BuildItemPayloadSchema,
  BuildMergePayloadSchema,
  SubmissionVersionPayloadSchema,
  jobKeys,
} from '../queues';

/** The payload of `intake`. */
export type IntakePayload = v.InferOutput<typeof SubmissionVersionPayloadSchema>;
/** The payload of `keyframes`. */
export type KeyframesPayload = IntakePayload;
/** The payload of `build-item`. */
export type BuildItemPayload = v.InferOutput<typeof BuildItemPayloadSchema>;
/** The payload of `build-merge`. */
export type BuildMergePayload = v.InferOutput<typeof BuildMergePayloadSchema>;

/** Adds a job (the engine's enqueue; idempotent by key). */
export type JobEnqueue = NonNullable<JobDeps['enqueue']>;

/** Checks a payload against its schema (INVALID_PAYLOAD naming the job and the problem). */
export function parsePayload<S extends v.GenericSchema>(
  job: HubJobQueue,
  schema: S,
  payload: unknown,
): v.InferOutput<S> {
  const r = v.safeParse(schema, payload);
  if (!r.success) {
    const issue = r.issues[0];
    const where = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    throw new AppError(
      'INVALID_PAYLOAD',
      `the ${job} job's payload is not valid: ${where ? `${where}: ` : ''}${issue.message}`,
      { job },
      'Enqueue it through the hub (the job names and payloads of docs/jobs.md).',
    );
  }
  return r.output;
}
