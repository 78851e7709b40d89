// The hub's job queues: names, payload schemas (the one source of what a job accepts) and retry
// policy (docs/jobs.md §3). The handlers (src/hub/jobs/handlers) implement them; the engine
// (engine.ts) checks every payload against its schema when it is enqueued and again when it runs.
import * as v from 'valibot';

const id = v.pipe(v.number(), v.integer(), v.minValue(1));

/** Payload of `intake` and `keyframes`: one version of one submission. */
export const SubmissionVersionPayloadSchema = v.strictObject({ submissionId: id, version: id });
/** Payload of `build-item`: one submission of one dataset build. */
export const BuildItemPayloadSchema = v.strictObject({
  buildId: id,
  submissionId: id,
  version: id,
});
/** Payload of `build-merge`: the build whose items are all done. */
export const BuildMergePayloadSchema = v.strictObject({ buildId: id });

/** How a queue retries and how long its jobs may run. */
export type JobQueuePolicy = {
  /** Retries after the first attempt before the job is failed for good (dead-lettered). */
  retryLimit: number;
  /** First retry's delay in seconds; doubled on each retry (with jitter), up to retryDelayMax. */
  retryDelaySeconds: number;
  retryDelayMaxSeconds: number;
  /** An attempt running longer than this is failed (and retried). */
  expireInSeconds: number;
};

/** One queue: its name, payload schema and policy. */
export type JobQueueSpec = {
  name: string;
  schema: v.GenericSchema;
  policy: JobQueuePolicy;
};

const DEFAULT_POLICY: JobQueuePolicy = {
  retryLimit: 4,
  retryDelaySeconds: 5,
  retryDelayMaxSeconds: 300,
  expireInSeconds: 30 * 60,
};

/** The hub's queues. */
export const HUB_JOB_QUEUES = [
  { name: 'intake', schema: SubmissionVersionPayloadSchema, policy: DEFAULT_POLICY },
  { name: 'keyframes', schema: SubmissionVersionPayloadSchema, policy: DEFAULT_POLICY },
  { name: 'build-item', schema: BuildItemPayloadSchema, policy: DEFAULT_POLICY },
  {
    name: 'build-merge',
    schema: BuildMergePayloadSchema,
    policy: { ...DEFAULT_POLICY, expireInSeconds: 2 * 60 * 60 },
  },
  // CoT of an accepted version (docs/cot.md "In team mode"): many model calls, an hour at most
  {
    name: 'cot',
    schema: SubmissionVersionPayloadSchema,
    policy: { ...DEFAULT_POLICY, expireInSeconds: 60 * 60 },
  },
] as const satisfies readonly JobQueueSpec[];

/** A hub queue's name. */
export type HubJobQueue = (typeof HUB_JOB_QUEUES)[number]['name'];

/** The idempotency keys: one job per key, ever. */
export const jobKeys = {
  intake: (submissionId: number, version: number): string => `intake:${submissionId}@${version}`,
  keyframes: (submissionId: number, version: number): string =>
    `keyframes:${submissionId}@${version}`,
  buildItem: (buildId: number, submissionId: number): string =>
    `build-item:${buildId}:${submissionId}`,
  buildMerge: (buildId: number): string => `build-merge:${buildId}`,
  cot: (submissionId: number, version: number): string => `cot:${submissionId}@${version}`,
};
