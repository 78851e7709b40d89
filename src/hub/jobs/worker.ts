// Runs jobs until told to stop: what `cua-annotator worker` does on another machine and what the
// embedded hub does in its own process (docs/jobs.md §4). The handlers come from the caller
// (src/hub/jobs/handlers for the real ones), so tests run the same loop with handlers of their
// own.
import { pendingIntakes, type HubDatabase, type HubDb } from '../db';
import { openJobEngine, type JobEngine, type JobEvent, type JobTiming } from './engine';
import { jobKeys, type JobQueueSpec } from './queues';
import type { JobHandler } from './types';

/** Options of {@link startJobRunner}. */
export type JobRunnerOptions = {
  database: HubDatabase;
  /** Handlers by queue name; the runner works the queues it has a handler for. */
  handlers: (engine: JobEngine) => Readonly<Record<string, JobHandler<never, unknown>>>;
  /** Jobs at once per queue (default 1). */
  concurrency?: number;
  queues?: readonly JobQueueSpec[];
  timing?: Partial<JobTiming>;
  onEvent?: (event: JobEvent) => void;
};

/** A running job runner. */
export type JobRunner = {
  engine: JobEngine;
  /** Stops taking jobs and waits up to `timeoutMs` for the jobs in hand; those still running
   * then are handed back to the queue (their signal aborts). */
  stop: (options?: { timeoutMs?: number }) => Promise<void>;
};

/** Opens the job engine on the hub database and starts working the handlers' queues. */
export async function startJobRunner(options: JobRunnerOptions): Promise<JobRunner> {
  const engine = await openJobEngine({
    database: options.database,
    ...(options.queues ? { queues: options.queues } : {}),
    ...(options.timing ? { timing: options.timing } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  try {
    await engine.work(options.handlers(engine), { concurrency: options.concurrency ?? 1 });
  } catch (e) {
    await engine.stop({ timeoutMs: 1000 });
    throw e;
  }
  return { engine, stop: async (o) => await engine.stop(o) };
}

/** Enqueues the intake of every version still waiting for one (a version whose enqueue was lost
 * when the hub stopped between its registration and the enqueue); keys already enqueued are
 * left alone. Returns how many were new. */
export async function enqueuePendingIntakes(
  db: HubDb,
  engine: Pick<JobEngine, 'enqueue'>,
): Promise<number> {
  let added = 0;
  for (const v of await pendingIntakes(db)) {
    const r = await engine.enqueue('intake', v, { key: jobKeys.intake(v.submissionId, v.version) });
    added += r.isNew ? 1 : 0;
  }
  return added;
}
