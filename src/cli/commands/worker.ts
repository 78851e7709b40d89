// `cua-annotator worker`: runs the hub's jobs (intake, keyframes, dataset builds) on this machine
// until Ctrl+C/SIGTERM (docs/jobs.md §4). It connects to the hub's PostgreSQL (where the jobs
// are, pg-boss) and to the hub's object store (where the bundles are); start more of them on more
// machines to go faster. The embedded hub (--data DIR) runs its jobs in its own process instead.
import { openHubDb } from '../../hub/db';
import { DEFAULT_JOB_TIMING, type JobEvent } from '../../hub/jobs/engine';
import { createHandlers } from '../../hub/jobs/handlers';
import { HUB_JOB_QUEUES } from '../../hub/jobs/queues';
import type { JobHandler } from '../../hub/jobs/types';
import { startJobRunner } from '../../hub/jobs/worker';
import { openHubStorage } from '../../hub/storage';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { errLine, out } from '../output';
import { untilSignal } from '../signals';
import { APP_VERSION } from '../version';
import { HUB_DATABASE_ENV } from './hub-user';

const QUEUE_NAMES = HUB_JOB_QUEUES.map((q) => q.name);

const HELP = `Usage: cua-annotator worker --database URL --storage s3://BUCKET/PREFIX [--endpoint URL]
                            [--path-style] [--concurrency N] [--queues ${QUEUE_NAMES.join(',')}]
                            [--stop-timeout SECONDS] [--json]

Runs the team hub's jobs on this machine: the intake of every submission (re-hash, PII scan,
check), missing keyframes, and dataset builds (docs/jobs.md). Connects to the hub's PostgreSQL
(--database, else $${HUB_DATABASE_ENV}), where the jobs wait, and to the hub's object store
(--storage, with the same credentials the hub uses), where the bundles are. Start more workers
on more machines to go faster; each job runs once (a worker that dies mid-job: another takes the
job over within about ${DEFAULT_JOB_TIMING.heartbeatSeconds + DEFAULT_JOB_TIMING.superviseSeconds} s).
A hub started with --data DIR runs its jobs itself: no worker needed (or possible).

Runs until Ctrl+C (SIGINT) or SIGTERM, then takes no new job, lets the jobs in hand finish for
--stop-timeout seconds and hands the rest back to the queue for another worker.

Options:
  --database URL       the hub's PostgreSQL (postgres://USER:PASSWORD@HOST:PORT/DATABASE)
  --storage URL        the hub's object store, s3://BUCKET/PREFIX
  --endpoint URL       the S3 endpoint of --storage (any S3-compatible store)
  --path-style         path-style S3 addressing (endpoint/bucket/key)
  --concurrency N      jobs at once per queue (default 1; 1–64)
  --queues A,B         work only these queues (default: all: ${QUEUE_NAMES.join(', ')})
  --stop-timeout S     seconds the jobs in hand get to finish at a stop (default 30)
  --json               print one JSON line per event ({"event":"ready"|"started"|"completed"|
                       "failed"|"handed-back"|"stopped", …}) on standard output
  -h, --help           show this help`;

function parseIntFlag(text: string | undefined, flag: string, dflt: number, max: number): number {
  if (text === undefined) {
    return dflt;
  }
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > max) {
    throw new UsageError(`${flag} must be an integer from 1 to ${max} (got "${text}")`);
  }
  return n;
}

function describe(e: JobEvent): string {
  switch (e.event) {
    case 'started':
      return `${e.key}: started (attempt ${e.attempt})`;
    case 'completed':
      return `${e.key}: done in ${(e.ms / 1000).toFixed(1)} s`;
    case 'failed':
      return `${e.key}: failed (attempt ${e.attempt}): ${e.error}${e.refused ? ' — refused: in the dead-letter list (jobs:dead), not retried' : e.final ? ' — no attempts left: in the dead-letter list (jobs:dead)' : ' — will retry'}`;
    case 'handed-back':
      return `${e.key}: handed back to the queue (stopping)`;
    case 'log':
      return `${e.key}: ${e.message}`;
    case 'error':
      return `warning: ${e.message}`;
  }
}

async function runWorker(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    database: { type: 'string' },
    storage: { type: 'string' },
    endpoint: { type: 'string' },
    'path-style': { type: 'boolean' },
    concurrency: { type: 'string' },
    queues: { type: 'string' },
    'stop-timeout': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(HELP);
    return 0;
  }
  if (positionals.length) {
    throw new UsageError(`worker takes no arguments (got "${positionals[0] ?? ''}")`);
  }
  const url = values.database ?? process.env[HUB_DATABASE_ENV];
  if (!url) {
    throw new UsageError(
      `say where the hub's jobs are: --database URL (the hub's PostgreSQL) or set ${HUB_DATABASE_ENV}`,
    );
  }
  if (!values.storage) {
    throw new UsageError(
      "say where the hub's bundles are: --storage s3://BUCKET/PREFIX (the hub's --storage)",
    );
  }
  const concurrency = parseIntFlag(values.concurrency, '--concurrency', 1, 64);
  const stopTimeoutMs = parseIntFlag(values['stop-timeout'], '--stop-timeout', 30, 3600) * 1000;
  const queues = values.queues ? values.queues.split(',').map((q) => q.trim()) : QUEUE_NAMES;
  for (const q of queues) {
    if (!QUEUE_NAMES.includes(q as (typeof QUEUE_NAMES)[number])) {
      throw new UsageError(`--queues: no queue "${q}" (queues: ${QUEUE_NAMES.join(', ')})`);
    }
  }
  const json = values.json ?? false;
  const emit = (e: JobEvent | Record<string, unknown>) => {
    if (json) {
      out(JSON.stringify(e));
    } else if ('event' in e && typeof e.event === 'string' && e.event !== 'log') {
      errLine(describe(e as JobEvent));
    }
  };
  // listen for signals before the slow opens: a SIGTERM during them still stops cleanly
  const { stopped, dispose } = untilSignal();
  try {
    const hub = await openHubDb({ url }, { holder: 'cua-annotator worker' });
    try {
      const store = await openHubStorage({
        url: values.storage,
        ...(values.endpoint ? { endpoint: values.endpoint } : {}),
        ...(values['path-style'] ? { pathStyle: true } : {}),
      });
      try {
        const runner = await startJobRunner({
          database: hub,
          concurrency,
          onEvent: emit,
          handlers: (engine) => {
            const all = createHandlers({
              db: hub.db,
              store,
              appVersion: APP_VERSION,
              enqueue: async (name, payload, options) => {
                await engine.enqueue(name, payload, options);
              },
            }) as Readonly<Record<string, JobHandler<never, unknown>>>;
            return Object.fromEntries(
              Object.entries(all).filter(([name, handler]) => queues.includes(name) && handler),
            );
          },
        });
        emit({ event: 'ready', queues, concurrency, database: hub.location });
        if (!json) {
          out(
            `Worker running ${concurrency} job(s) at a time per queue on ${queues.join(', ')} ` +
              `(${hub.location}). Press Ctrl+C to stop.`,
          );
        }
        const signal = await stopped;
        if (!json) {
          errLine(
            `${signal}: stopping — the jobs in hand get ${stopTimeoutMs / 1000} s to finish…`,
          );
        }
        await runner.stop({ timeoutMs: stopTimeoutMs });
        emit({ event: 'stopped', signal });
      } finally {
        await store.close();
      }
    } finally {
      await hub.close();
    }
  } finally {
    dispose();
  }
  return 0;
}

/** The `worker` command. */
export const workerCommand: Command = {
  name: 'worker',
  summary: "run the team hub's jobs (intake, keyframes, dataset builds) on this machine",
  help: HELP,
  run: runWorker,
};
