// `cua-annotator hub`: the team hub (docs/team-mode.md). `hub [--data DIR | --database URL] …`
// runs the server until Ctrl+C/SIGTERM; `hub user …` (hub-user.ts) manages accounts.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { countActiveAdmins, openHubDb, type HubDatabase } from '../../hub/db';
import { openJobEngine, type JobEngine, type JobEvent } from '../../hub/jobs/engine';
import { createHandlers } from '../../hub/jobs/handlers';
import { enqueuePendingIntakes, startJobRunner } from '../../hub/jobs/worker';
import { createHubServer } from '../../hub/http';
import { openHubStorage, type HubObjectStore } from '../../hub/storage';
import { isLoopbackHost } from '../../infra/http/guards';
import { AppError } from '../../shared/errors';
import { parseCommandArgs, UsageError } from '../args';
import type { Command } from '../command';
import { untilSignal } from '../signals';
import { APP_VERSION } from '../version';
import { errLine, out } from '../output';
import { HUB_DATABASE_ENV, HUB_USER_HELP, runHubUser, targetOf } from './hub-user';
import { runHubStats } from './hub-stats';

/** The hub's default port. */
export const HUB_DEFAULT_PORT = 8470;

const HELP = `Usage: cua-annotator hub (--data DIR | --database URL) [--host 127.0.0.1] [--port ${HUB_DEFAULT_PORT}]
                         [--storage s3://BUCKET/PREFIX [--endpoint URL] [--path-style]]
                         [--tls-cert FILE --tls-key FILE] [--trust-proxy] [--renderer DIR] [--json]
       cua-annotator hub user add|roles|password|remove|list … (--data DIR | --database URL)
       cua-annotator hub status (--data DIR | --database URL) [--json]
       cua-annotator hub stats (--data DIR | --database URL) [filters] [--svg DIR] [--json]

The team hub: accounts and roles for annotators, reviewers and admins on several machines
(docs/team-mode.md). Its data lives in a folder (--data DIR: an embedded PostgreSQL, no other
server; one hub holds the folder) or in PostgreSQL 15 or newer (--database URL, else
$${HUB_DATABASE_ENV}). Make the first admin with \`hub user add NAME --role admin\` before the
first start. Prints its URL and runs until Ctrl+C (SIGINT) or SIGTERM, then stops taking
requests, lets the running ones finish and closes the database.

Options:
  --host ADDR        interface to listen on (default 127.0.0.1)
  --port N           TCP port (default ${HUB_DEFAULT_PORT}; 0: any free port)
  --storage URL      keep submitted bundles in s3://BUCKET/PREFIX (credentials from the AWS
                     environment); default: DIR/objects of --data, served by the hub itself
  --endpoint URL     the S3 endpoint of --storage (any S3-compatible store)
  --path-style       path-style S3 addressing (endpoint/bucket/key)
  --tls-cert FILE    PEM certificate (chain) for HTTPS; with --tls-key
  --tls-key FILE     PEM private key for HTTPS
  --trust-proxy      behind a reverse proxy that terminates TLS: trust its X-Forwarded-Proto and
                     X-Forwarded-For (never set this without a proxy in front)
  --renderer DIR     built renderer to serve as the team pages at / (default out/renderer, the
                     build serve uses; npm run build:renderer)
  --json             print {"url": …} as one JSON line once listening
  -h, --help         show this help

Commands:
  hub user …         manage accounts, whether the hub runs or not (hub user --help)
  hub status         the job queues: waiting, running, done, failed (hub status --help)
  hub stats          the admin dashboard's figures, as text, JSON or SVG (hub stats --help)

Jobs (docs/jobs.md): with --data the hub runs the intake, keyframe and dataset-build jobs in
its own process; with --database it queues them for \`cua-annotator worker\` processes.

${HUB_USER_HELP.split('\n').slice(0, 5).join('\n')}`;

function parsePort(text: string | undefined): number {
  if (text === undefined) {
    return HUB_DEFAULT_PORT;
  }
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535 (got "${text}")`);
  }
  return port;
}

async function readPem(file: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (e) {
    throw new AppError(
      'PATH_INVALID',
      `cannot read ${flag} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { file },
      `Give ${flag} a readable PEM file.`,
    );
  }
}

async function runHubServer(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    data: { type: 'string' },
    database: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'tls-cert': { type: 'string' },
    'tls-key': { type: 'string' },
    'trust-proxy': { type: 'boolean' },
    storage: { type: 'string' },
    endpoint: { type: 'string' },
    'path-style': { type: 'boolean' },
    renderer: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(HELP);
    return 0;
  }
  if (positionals.length) {
    throw new UsageError(`unknown hub command "${positionals[0] ?? ''}" (user)`);
  }
  const target = targetOf(values);
  const host = values.host ?? '127.0.0.1';
  const port = parsePort(values.port);
  if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) {
    throw new UsageError('--tls-cert and --tls-key go together (both PEM files)');
  }
  const tls =
    values['tls-cert'] !== undefined && values['tls-key'] !== undefined
      ? {
          cert: await readPem(values['tls-cert'], '--tls-cert'),
          key: await readPem(values['tls-key'], '--tls-key'),
        }
      : undefined;
  const trustProxy = values['trust-proxy'] ?? false;
  // listen for signals before the slow open: a SIGTERM during it still shuts down cleanly
  const { stopped, dispose } = untilSignal();
  try {
    const hub = await openHubDb(target, { holder: 'cua-annotator hub', purpose: 'hub' });
    let store: HubObjectStore | undefined;
    try {
      // submissions' bytes: S3 with --storage, else the data folder's objects/ (§9)
      if (values.storage !== undefined) {
        store = await openHubStorage({
          url: values.storage,
          ...(values.endpoint ? { endpoint: values.endpoint } : {}),
          ...(values['path-style'] ? { pathStyle: true } : {}),
        });
      } else if ('data' in target) {
        store = await openHubStorage({ data: target.data });
      }
      // the job layer (docs/jobs.md): embedded, the hub runs the jobs itself; on PostgreSQL it
      // enqueues them and `cua-annotator worker` processes run them
      const jobs = await startHubJobs(hub, store ?? null);
      const server = await createHubServer({
        db: hub.db,
        jobs: jobs.engine,
        ...(store ? { store } : {}),
        host,
        port,
        tls,
        trustProxy,
        ...(values.renderer ? { staticDir: path.resolve(values.renderer) } : {}),
        log: errLine,
      });
      try {
        if (values.json) {
          out(JSON.stringify({ url: server.url }));
        } else {
          out(`Hub listening at ${server.url} (data: ${hub.location})`);
          out(`Team pages: open ${server.url}/ in a browser and sign in.`);
          out('Press Ctrl+C to stop.');
        }
        if ((await countActiveAdmins(hub.db)) === 0) {
          errLine(
            'warning: this hub has no admin yet: nobody can manage accounts from a client. ' +
              'Stop it and run `cua-annotator hub user add NAME --role admin` with the same ' +
              '--data/--database.',
          );
        }
        if (!store) {
          errLine(
            'warning: no object store (--storage s3://BUCKET/PREFIX): accounts work, ' +
              'submissions are refused.',
          );
        }
        if (!tls && !trustProxy && !isLoopbackHost(host)) {
          errLine(
            `warning: listening on ${host} without TLS: passwords and tokens cross the network ` +
              'in clear. Give --tls-cert/--tls-key, or put a TLS proxy in front (--trust-proxy).',
          );
        }
        const signal = await stopped;
        errLine(`${signal}: stopping the hub…`);
      } finally {
        await server.close();
        await jobs.stop();
      }
    } finally {
      await store?.close();
      await hub.close();
    }
  } finally {
    dispose();
  }
  return 0;
}

// jobs in hand at a hub's stop get this long, then go back to the queue (the next start or a
// worker runs them)
const HUB_JOBS_STOP_MS = 10_000;

async function startHubJobs(
  hub: HubDatabase,
  store: HubObjectStore | null,
): Promise<{ engine: JobEngine; stop: () => Promise<void> }> {
  const jobs = await openHubJobs(hub, store);
  try {
    const lost = await enqueuePendingIntakes(hub.db, jobs.engine);
    if (lost) {
      errLine(`jobs: ${lost} submission version(s) waiting for their intake were queued again`);
    }
  } catch (e) {
    await jobs.stop();
    throw e;
  }
  return jobs;
}

async function openHubJobs(
  hub: HubDatabase,
  store: HubObjectStore | null,
): Promise<{ engine: JobEngine; stop: () => Promise<void> }> {
  const onEvent = (e: JobEvent) => {
    if (e.event === 'failed' || e.event === 'error') {
      errLine(
        e.event === 'failed'
          ? `job ${e.key} failed (attempt ${e.attempt}${e.final ? ', dead-lettered' : ''}): ${e.error}`
          : `jobs: ${e.message}`,
      );
    }
  };
  if ('pglite' in hub.jobTarget && store) {
    const runner = await startJobRunner({
      database: hub,
      concurrency: 1,
      onEvent,
      handlers: (engine) =>
        createHandlers({
          db: hub.db,
          store,
          appVersion: APP_VERSION,
          enqueue: async (name, payload, options) => {
            await engine.enqueue(name, payload, options);
          },
        }),
    });
    return { engine: runner.engine, stop: () => runner.stop({ timeoutMs: HUB_JOBS_STOP_MS }) };
  }
  const engine = await openJobEngine({ database: hub, onEvent });
  return { engine, stop: () => engine.stop({ timeoutMs: HUB_JOBS_STOP_MS }) };
}

const STATUS_HELP = `Usage: cua-annotator hub status (--data DIR | --database URL) [--json]

The hub's job queues (docs/jobs.md): per queue the jobs waiting (new or waiting for a retry),
running, done and failed for good (the dead-letter list: jobs:dead on the hub's API). --json
prints {"queues":[{"name","waiting","active","done","failed"}]}. With --data the hub must be
stopped (it holds the folder); a running hub answers the same on its API (jobs:status, admin).`;

async function runHubStatus(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    data: { type: 'string' },
    database: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out(STATUS_HELP);
    return 0;
  }
  if (positionals.length) {
    throw new UsageError(`hub status takes no arguments (got "${positionals[0] ?? ''}")`);
  }
  const hub = await openHubDb(targetOf(values), {
    holder: 'cua-annotator hub status',
    create: false,
  });
  try {
    const engine = await openJobEngine({ database: hub, supervise: false });
    try {
      const queues = await engine.counts();
      if (values.json) {
        out(JSON.stringify({ queues }));
      } else {
        out('queue          waiting   active     done   failed');
        for (const q of queues) {
          out(
            `${q.name.padEnd(12)} ${[q.waiting, q.active, q.done, q.failed]
              .map((n) => String(n).padStart(8))
              .join(' ')}`,
          );
        }
      }
    } finally {
      await engine.stop({ timeoutMs: 1000 });
    }
  } finally {
    await hub.close();
  }
  return 0;
}

/** The `hub` command. */
export const hubCommand: Command = {
  name: 'hub',
  summary:
    'run the team hub (--data DIR | --database URL); hub user add|roles|password|remove|list',
  help: HELP,
  run: async (argv) => {
    const [sub, ...rest] = argv;
    if (sub === 'user') {
      return await runHubUser(rest);
    }
    if (sub === 'status') {
      return await runHubStatus(rest);
    }
    if (sub === 'stats') {
      return await runHubStats(rest);
    }
    if (sub === 'help') {
      out(HELP);
      return 0;
    }
    if (sub === undefined && !process.env[HUB_DATABASE_ENV]) {
      out(HELP);
      return 1;
    }
    return await runHubServer(argv);
  },
};
