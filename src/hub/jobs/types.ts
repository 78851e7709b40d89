// The job layer's contract between the engine adapter (src/hub/jobs/engine*.ts, the only
// importer of the job engine) and the handlers (src/hub/jobs/handlers/*.ts, which know nothing
// of the engine). Handlers are plain async functions: the same code runs in a worker process, in
// the embedded hub's process, and in unit tests.
import type { HubDb } from '../db/schema';
import type { HubObjectStore } from '../storage/object-store';

/** What a running job may use besides its payload. */
export type JobContext = {
  /** The job's idempotency key, e.g. `intake:<submissionId>@<version>`, `build:<buildId>`. */
  key: string;
  /** 1 on the first run, then 2, 3, … on retries. */
  attempt: number;
  /** Aborted when the worker shuts down: stop at the next safe point and throw
   * {@link JobHandedBack} (the engine gives the job to another worker, not counted as a
   * failure). */
  signal: AbortSignal;
  /** Reports progress (shown in the UI and in `dataset status --json`); cheap to call often. */
  progress: (done: number, total: number, message?: string) => Promise<void>;
  /** A line for the worker's log. */
  log: (message: string) => void;
};

/** A handler: payload in, a JSON-serialisable result out. Throwing fails this attempt (retried
 * with backoff, then dead-lettered with the error). Must be idempotent: running it twice for the
 * same key has the effect of running it once. */
export type JobHandler<P, R> = (payload: P, ctx: JobContext) => Promise<R>;

/** What handlers are built from (one per worker process or hub). */
export type JobDeps = {
  db: HubDb;
  store: HubObjectStore;
  /** Enqueues another job (a fan-in's last item enqueues the merge). The same key is never run
   * twice: enqueueing a key that exists does nothing. Filled in by the engine. */
  enqueue?: (name: string, payload: unknown, options: { key: string }) => Promise<void>;
};

/** Thrown by a handler that stopped because {@link JobContext.signal} was aborted. */
export class JobHandedBack extends Error {
  constructor(key: string) {
    super(`job ${key} handed back: the worker is shutting down`);
    this.name = 'JobHandedBack';
  }
}

/** Thrown by a handler whose work is done and whose outcome is a refusal (an intake that found
 * the bundle lying): the job goes to the dead-letter list at once — no retry would find anything
 * else — with this error's code, message and details (the reasons). Its effect (the refusal
 * recorded) must already be stored: the engine only settles the job. */
export class JobRefused extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly fix: string;
  constructor(code: string, message: string, details: Record<string, unknown>, fix: string) {
    super(message);
    this.name = 'JobRefused';
    this.code = code;
    this.details = details;
    this.fix = fix;
  }
}
