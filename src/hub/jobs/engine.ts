// The job layer over pg-boss (docs/jobs.md): the only importer of the job engine. The same code
// runs on the hub's PostgreSQL (`--database URL`: worker processes on any machine) and on the
// embedded PGlite (`--data DIR`: the hub's own process, through pg-boss's PGlite adapter on the
// hub's one PGlite connection) — one engine, two connections, no queue written here.
//
// What it adds to pg-boss: payload schemas checked on enqueue and on run; one job per
// idempotency key, ever (the job id is a UUID derived from the key, and completed jobs are kept);
// handlers as plain functions with a JobContext (types.ts); progress rows for the UI; the counts,
// the dead-letter list (jobs failed for good, with their error; jobs a handler refused, at once and
// with its reasons) and its retry action.
import { createHash } from 'node:crypto';
import {
  fromPglite,
  PgBoss,
  type ConstructorOptions,
  type JobResult,
  type JobWithMetadata,
} from 'pg-boss';
import * as v from 'valibot';
import { AppError } from '../../shared/errors';
import type { HubDatabase } from '../db';
import { HUB_JOB_QUEUES, type JobQueueSpec } from './queues';
import { JobHandedBack, JobRefused, type JobContext, type JobHandler } from './types';

/** How quickly a dead worker's job comes back and how often idle workers look for work. */
export type JobTiming = {
  /** A running job's worker refreshes its claim every half of this (pg-boss: ≥ 10 s); a claim
   * not refreshed for this long goes back to the queue (a SIGKILLed worker's job). */
  heartbeatSeconds: number;
  /** How often the engine looks for lapsed claims and expired jobs. */
  superviseSeconds: number;
  /** How often an idle worker polls (besides LISTEN/NOTIFY on PostgreSQL). */
  pollSeconds: number;
};

/** Production timing: a dead worker's job is back within ~25 s. */
export const DEFAULT_JOB_TIMING: JobTiming = {
  heartbeatSeconds: 10,
  superviseSeconds: 15,
  pollSeconds: 2,
};

/** What a worker reports as it runs (the CLI's `--json` lines). */
export type JobEvent =
  | { event: 'started'; queue: string; key: string; id: string; attempt: number }
  | { event: 'completed'; queue: string; key: string; id: string; attempt: number; ms: number }
  | {
      event: 'failed';
      queue: string;
      key: string;
      id: string;
      attempt: number;
      ms: number;
      error: string;
      /** No attempts left: the job is in the dead-letter list. */
      final: boolean;
      /** The handler refused the job (JobRefused): dead-lettered at once, no retries. */
      refused?: boolean;
    }
  | { event: 'handed-back'; queue: string; key: string; id: string; attempt: number }
  | { event: 'log'; queue: string; key: string; message: string }
  | { event: 'error'; message: string };

/** One queue's counts. */
export type JobQueueCounts = {
  name: string;
  /** Created or waiting for a retry. */
  waiting: number;
  active: number;
  /** Completed (kept: completed jobs are never deleted, so their keys stay taken). */
  done: number;
  /** Failed for good: the dead-letter list. */
  failed: number;
};

/** A job failed for good. */
export type DeadJob = {
  id: string;
  queue: string;
  key: string;
  payload: unknown;
  /** The last attempt's error. */
  error: string;
  code: string | null;
  /** Why a refused job (JobRefused) was refused, e.g. a failed intake's reasons; empty for a job
   * that failed by throwing. */
  reasons: { code: string; message: string }[];
  attempts: number;
  failedAtMs: number;
};

/** A job as {@link JobEngine.find} reads it. */
export type JobState = {
  id: string;
  queue: string;
  state: 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';
  attempts: number;
  /** The last progress a running job reported (null before any, and once it ended). */
  progress: { done: number; total: number; message: string | null; atMs: number } | null;
  /** What the handler returned (completed), or the error (failed). */
  output: unknown;
};

/** Options of {@link openJobEngine}. */
export type JobEngineOptions = {
  /** The hub database: the engine connects to the same PGlite or PostgreSQL. */
  database: HubDatabase;
  queues?: readonly JobQueueSpec[];
  timing?: Partial<JobTiming>;
  /** Runs the engine's upkeep (lapsed claims, retention): true in the hub and in workers. */
  supervise?: boolean;
  onEvent?: (event: JobEvent) => void;
};

/** The job layer. */
export type JobEngine = {
  /** Enqueues a job once per key: `isNew` false when the key was enqueued before (whatever its
   * state: waiting, running, done or dead). The payload is checked against the queue's schema. */
  enqueue: (
    queue: string,
    payload: unknown,
    options: { key: string },
  ) => Promise<{ id: string; isNew: boolean }>;
  /** Starts running jobs of the queues with a handler, `concurrency` at a time per queue. */
  work: (
    handlers: Readonly<Record<string, JobHandler<never, unknown>>>,
    options?: { concurrency?: number },
  ) => Promise<void>;
  counts: () => Promise<JobQueueCounts[]>;
  dead: (options?: { limit?: number }) => Promise<DeadJob[]>;
  /** Gives a dead job one more attempt (from its queue's end, with its id and key). */
  retry: (id: string) => Promise<{ id: string; queue: string; key: string }>;
  /** The job of a key, if enqueued: its state, its progress while it runs, its result once done. */
  find: (key: string) => Promise<JobState | null>;
  /** Stops taking jobs; jobs in hand get `timeoutMs` to finish, then their signal is aborted and
   * they go back to the queue for another worker (pg-boss's graceful stop). */
  stop: (options?: { timeoutMs?: number }) => Promise<void>;
};

const JOB_ID_NAMESPACE = 'cua-annotator job:';

/** The job id of an idempotency key: a UUID (version 8, RFC 9562) from its SHA-256. */
export function jobIdOfKey(key: string): string {
  const h = createHash('sha256')
    .update(JOB_ID_NAMESPACE + key)
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

// what pg-boss stores as a job's data: the key travels with the payload
type Envelope = { key: string; payload: unknown };

const SCHEMA = 'pgboss';
// what pg-boss stores on the jobs it fails back to the queue when a graceful stop times out
const SHUTDOWN_OUTPUT = 'pg-boss shut down while active';

function checkPayload(spec: JobQueueSpec, payload: unknown): unknown {
  const r = v.safeParse(spec.schema, payload);
  if (!r.success) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `a ${spec.name} job's payload is not valid: ${r.issues.map((i) => i.message).join('; ')}`,
      { queue: spec.name },
      'Enqueue the payload the queue’s schema describes (src/hub/jobs/queues.ts).',
    );
  }
  return r.output;
}

function errorText(output: unknown): {
  error: string;
  code: string | null;
  reasons: DeadJob['reasons'];
} {
  if (output && typeof output === 'object') {
    const o = output as { message?: unknown; code?: unknown; reasons?: unknown };
    const message = typeof o.message === 'string' ? o.message : JSON.stringify(output);
    const reasons = Array.isArray(o.reasons)
      ? (o.reasons as { code?: unknown; message?: unknown }[]).map((r) => ({
          code: typeof r?.code === 'string' ? r.code : '',
          message: typeof r?.message === 'string' ? r.message : '',
        }))
      : [];
    return { error: message, code: typeof o.code === 'string' ? o.code : null, reasons };
  }
  return { error: String(output), code: null, reasons: [] };
}

/** Opens the job layer on the hub database's connection and creates its queues. */
export async function openJobEngine(options: JobEngineOptions): Promise<JobEngine> {
  const timing = { ...DEFAULT_JOB_TIMING, ...options.timing };
  const specs = options.queues ?? HUB_JOB_QUEUES;
  const byName = new Map(specs.map((s) => [s.name, s]));
  const emit = options.onEvent ?? (() => undefined);
  const { database } = options;
  const supervise = options.supervise ?? true;
  const config: ConstructorOptions = {
    schema: SCHEMA,
    supervise,
    schedule: false,
    superviseIntervalSeconds: timing.superviseSeconds,
    monitorIntervalSeconds: timing.superviseSeconds,
    registerInstance: false,
    openTelemetry: { enabled: false },
    // a new job wakes an idle worker at once (PostgreSQL LISTEN/NOTIFY; PGlite delivers its own
    // NOTIFYs in-process); polling stays as the floor
    useListenNotify: true,
  };
  const target = database.jobTarget;
  const boss =
    'pglite' in target
      ? new PgBoss({ ...config, backend: 'pglite', db: fromPglite(target.pglite) })
      : new PgBoss({
          ...config,
          connectionString: target.url,
          max: 4,
          application_name: 'cua-annotator jobs',
        });
  boss.on('error', (e: Error) => emit({ event: 'error', message: e.message }));
  try {
    await boss.start({ attempts: 3 });
    for (const spec of specs) {
      const queueOptions = {
        retryLimit: spec.policy.retryLimit,
        retryDelay: spec.policy.retryDelaySeconds,
        retryBackoff: true,
        retryDelayMax: spec.policy.retryDelayMaxSeconds,
        expireInSeconds: spec.policy.expireInSeconds,
        // completed jobs are kept: their ids keep their keys taken (one job per key, ever)
        deleteAfterSeconds: 0,
        // waiting jobs are never dropped
        retentionSeconds: 10 * 365 * 24 * 3600,
        heartbeatSeconds: timing.heartbeatSeconds,
      };
      if (await boss.getQueue(spec.name)) {
        await boss.updateQueue(spec.name, queueOptions);
      } else {
        try {
          await boss.createQueue(spec.name, { ...queueOptions, notify: true });
        } catch (e) {
          // another process created it between our look and our create
          if (!(await boss.getQueue(spec.name))) {
            throw e;
          }
        }
      }
    }
  } catch (e) {
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    throw new AppError(
      'HUB_DB_UNREACHABLE',
      `the job engine could not start on ${database.location}: ${(e as Error).message}`,
      undefined,
      'Check that the hub database runs and accepts connections, then start again.',
    );
  }
  const sqlDb = boss.getDb();
  const queueNames = specs.map((s) => s.name);

  // a job handed back at a stop was failed by pg-boss ("shut down while active"), using an
  // attempt; on its last attempt that dead-lettered it. A hand-back is no failure: such jobs get
  // their attempt back here, at the next start of any hub or worker
  if (supervise) {
    const res = await sqlDb.executeSql(
      `SELECT name, id::text AS id FROM ${SCHEMA}.job WHERE name = ANY($1::text[])
        AND state = 'failed' AND output->>'value' = $2`,
      [queueNames, SHUTDOWN_OUTPUT],
    );
    for (const row of res.rows as { name: string; id: string }[]) {
      await boss.retry(row.name, row.id);
    }
  }

  const specOf = (queue: string): JobQueueSpec => {
    const spec = byName.get(queue);
    if (!spec) {
      throw new AppError(
        'NOT_FOUND',
        `no job queue named "${queue}"`,
        { queue },
        `Use one of: ${queueNames.join(', ')}.`,
      );
    }
    return spec;
  };

  // settles one job: completed with the handler's result, or dead-lettered at once when the
  // handler refused it (JobRefused: pg-boss's `deadletter` disposition skips the retries left);
  // any other error is thrown, and pg-boss fails the attempt (retried, then dead-lettered)
  const runOne = async (
    spec: JobQueueSpec,
    handler: JobHandler<never, unknown>,
    job: JobWithMetadata<Envelope>,
  ): Promise<JobResult> => {
    const { key } = job.data;
    const attempt = job.retryCount + 1;
    const started = Date.now();
    emit({ event: 'started', queue: spec.name, key, id: job.id, attempt });
    let lastWrite = 0;
    const ctx: JobContext = {
      key,
      attempt,
      signal: job.signal,
      progress: async (done, total, message) => {
        const now = Date.now();
        // cheap to call often: one row write per 250 ms at most, and the last one
        if (now - lastWrite < 250 && done < total) {
          return;
        }
        lastWrite = now;
        // kept in the running job's own output (replaced by its result when it completes)
        await sqlDb.executeSql(
          `UPDATE ${SCHEMA}.job SET output = $3::jsonb WHERE name = $1 AND id = $2::uuid
            AND state = 'active'`,
          [
            spec.name,
            job.id,
            JSON.stringify({ progress: { done, total, message: message ?? null, atMs: now } }),
          ],
        );
      },
      log: (message) => emit({ event: 'log', queue: spec.name, key, message }),
    };
    try {
      const payload = checkPayload(spec, job.data.payload) as never;
      const result = await handler(payload, ctx);
      emit({
        event: 'completed',
        queue: spec.name,
        key,
        id: job.id,
        attempt,
        ms: Date.now() - started,
      });
      // pg-boss keeps an object as the job's output: the result travels wrapped
      return { id: job.id, status: 'completed', output: { result: result ?? null } };
    } catch (e) {
      if (e instanceof JobRefused && !job.signal.aborted) {
        emit({
          event: 'failed',
          queue: spec.name,
          key,
          id: job.id,
          attempt,
          ms: Date.now() - started,
          error: e.message,
          final: true,
          refused: true,
        });
        return {
          id: job.id,
          status: 'deadletter',
          output: { message: e.message, code: e.code, fix: e.fix, ...e.details },
        };
      }
      if (e instanceof JobHandedBack || job.signal.aborted) {
        emit({ event: 'handed-back', queue: spec.name, key, id: job.id, attempt });
      } else {
        emit({
          event: 'failed',
          queue: spec.name,
          key,
          id: job.id,
          attempt,
          ms: Date.now() - started,
          error: (e as Error).message,
          final: job.retryCount >= job.retryLimit,
        });
      }
      // pg-boss stores what it can serialise of the error as the job's output
      const err = e as Error & { code?: unknown; fix?: unknown };
      const thrown = new Error(err.message ?? String(e)) as Error & Record<string, unknown>;
      if (typeof err.code === 'string') {
        thrown.code = err.code;
      }
      if (typeof err.fix === 'string') {
        thrown.fix = err.fix;
      }
      throw thrown;
    }
  };

  let stopped = false;
  return {
    enqueue: async (queue, payload, { key }) => {
      const spec = specOf(queue);
      const checked = checkPayload(spec, payload);
      const id = jobIdOfKey(key);
      const envelope: Envelope = { key, payload: checked };
      const sent = await boss.send(queue, envelope, { id, singletonKey: key });
      return { id, isNew: sent !== null };
    },
    work: async (handlers, workOptions = {}) => {
      const concurrency = Math.max(1, Math.floor(workOptions.concurrency ?? 1));
      for (const [queue, handler] of Object.entries(handlers)) {
        const spec = specOf(queue);
        // one pg-boss worker per slot: each fetches one job at a time and, after a job, fetches
        // again at once (notifyWorker) instead of waiting out the poll interval as pg-boss does
        // after every fetch of a batch of 1; an empty fetch waits the interval
        for (let slot = 0; slot < concurrency; slot++) {
          let workerId = '';
          workerId = await boss.work<Envelope>(
            queue,
            {
              batchSize: 1,
              includeMetadata: true,
              perJobResults: true,
              pollingIntervalSeconds: timing.pollSeconds,
              // retries come due without a NOTIFY: poll at the same pace
              notifyPollingIntervalSeconds: timing.pollSeconds,
            },
            async ([job]) => {
              try {
                return job ? [await runOne(spec, handler, job as JobWithMetadata<Envelope>)] : [];
              } finally {
                boss.notifyWorker(workerId);
              }
            },
          );
        }
      }
    },
    counts: async () => {
      const res = await sqlDb.executeSql(
        `SELECT name, state::text AS state, count(*)::int AS n FROM ${SCHEMA}.job
          WHERE name = ANY($1::text[]) GROUP BY name, state`,
        [queueNames],
      );
      const out = new Map<string, JobQueueCounts>(
        queueNames.map((name) => [name, { name, waiting: 0, active: 0, done: 0, failed: 0 }]),
      );
      for (const row of res.rows as { name: string; state: string; n: number }[]) {
        const c = out.get(row.name);
        if (!c) {
          continue;
        }
        const n = Number(row.n);
        if (row.state === 'created' || row.state === 'retry') {
          c.waiting += n;
        } else if (row.state === 'active') {
          c.active += n;
        } else if (row.state === 'completed') {
          c.done += n;
        } else if (row.state === 'failed') {
          c.failed += n;
        }
      }
      return [...out.values()];
    },
    dead: async ({ limit = 100 } = {}) => {
      const res = await sqlDb.executeSql(
        `SELECT id::text AS id, name, data, output, retry_count, completed_on FROM ${SCHEMA}.job
          WHERE name = ANY($1::text[]) AND state = 'failed'
          ORDER BY completed_on DESC NULLS LAST, id LIMIT $2`,
        [queueNames, Math.max(1, Math.min(1000, Math.floor(limit)))],
      );
      return (
        res.rows as {
          id: string;
          name: string;
          data: Envelope | null;
          output: unknown;
          retry_count: number;
          completed_on: Date | string | null;
        }[]
      ).map((row) => ({
        id: row.id,
        queue: row.name,
        key: row.data?.key ?? '',
        payload: row.data?.payload ?? null,
        ...errorText(row.output),
        attempts: Number(row.retry_count) + 1,
        failedAtMs: row.completed_on ? new Date(row.completed_on).getTime() : 0,
      }));
    },
    retry: async (id) => {
      const res = await sqlDb.executeSql(
        `SELECT name, data FROM ${SCHEMA}.job WHERE id = $1::uuid AND name = ANY($2::text[])
          AND state = 'failed'`,
        [id, queueNames],
      );
      const row = res.rows[0] as { name: string; data: Envelope | null } | undefined;
      if (!row) {
        throw new AppError(
          'NOT_FOUND',
          `no job ${id} in the dead-letter list`,
          { id },
          'Take the id from `jobs:dead` (the admin’s Jobs page); a job already retried is not ' +
            'in it any more.',
        );
      }
      await boss.retry(row.name, id);
      return { id, queue: row.name, key: row.data?.key ?? '' };
    },
    find: async (key) => {
      const res = await sqlDb.executeSql(
        `SELECT id::text AS id, name, state::text AS state, retry_count, output FROM ${SCHEMA}.job
          WHERE id = $1::uuid AND name = ANY($2::text[])`,
        [jobIdOfKey(key), queueNames],
      );
      const row = res.rows[0] as
        | {
            id: string;
            name: string;
            state: JobState['state'];
            retry_count: number;
            output: unknown;
          }
        | undefined;
      if (!row) {
        return null;
      }
      const progress =
        row.state === 'active' && row.output && typeof row.output === 'object'
          ? ((row.output as { progress?: JobState['progress'] }).progress ?? null)
          : null;
      return {
        id: row.id,
        queue: row.name,
        state: row.state,
        attempts: Number(row.retry_count) + 1,
        progress,
        output:
          row.state === 'active'
            ? null
            : row.state === 'completed'
              ? ((row.output as { result?: unknown } | null)?.result ?? null)
              : (row.output ?? null),
      };
    },
    stop: async ({ timeoutMs = 20_000 } = {}) => {
      if (stopped) {
        return;
      }
      stopped = true;
      // graceful: no new jobs; jobs in hand get timeoutMs, then pg-boss fails them back to the
      // queue (a retry: another worker takes them) and aborts their signals
      await boss.stop({ graceful: true, timeout: Math.max(1000, timeoutMs), close: true });
    },
  };
}
