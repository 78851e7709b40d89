// Issue 29's engine choice, measured (docs/jobs.md §2): pg-boss on PostgreSQL (and on PGlite,
// in-process) against BullMQ on Redis 7, on the same job — SHA-256 of 256 KiB, about what the
// intake spends per small file — with the same settings where they have one (a dead worker's job
// comes back after 10 s without a heartbeat/lock renewal, checked every 5 s; 5 retries).
//
//   npx tsx bench/job-engines.ts [--jobs 2000] [--concurrency 8]
//
// Per engine: throughput (N jobs enqueued, then one worker with concurrency C drains them),
// latency from enqueue to start (200 jobs one every 20 ms to an idle worker; p50/p99), a worker
// process SIGKILLed mid-run (2 worker processes, 300 jobs, one killed after 60 effects), and the
// engine's server restarted mid-run (PostgreSQL fast shutdown + start; Redis kill -9 + start,
// AOF everysec) — each job appends its key to an effect log after its work and before its ack,
// so the log shows lost jobs (no line) and re-runs (two lines: at-least-once delivery).
//
// BullMQ needs a Redis client that is not a dependency of this project: set
// CUA_BENCH_IOREDIS to an installed ioredis (e.g. `npm i --prefix /tmp/x ioredis@5`, then
// CUA_BENCH_IOREDIS=/tmp/x/node_modules/ioredis); without it the Redis rows are skipped.
// Redis is Debian's redis-server (7.0), started here as the redis user when run as root.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { Queue, Worker } from 'bullmq';
import { fromPglite, PgBoss } from 'pg-boss';
import { startPostgres } from '../tests/helpers/postgres';

const run = promisify(execFile);
const QUEUE = 'bench';
const WORK = randomBytes(256 * 1024);
const work = (): string => createHash('sha256').update(WORK).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const phase = (what: string) => process.stderr.write(`… ${what}\n`);

type Data = { key: string; t: number };
type Adapter = {
  enqueue: (data: Data) => Promise<void>;
  /** Starts working: `onJob` runs for each job (its work, then the effect). */
  work: (concurrency: number, onJob: (data: Data) => Promise<void>) => Promise<void>;
  stop: () => Promise<void>;
};

// ---- adapters -----------------------------------------------------------------------------

async function pgBossAdapter(opts: { url?: string; pglite?: PGlite }): Promise<Adapter> {
  const common = {
    supervise: true,
    schedule: false,
    superviseIntervalSeconds: 5,
    monitorIntervalSeconds: 5,
    registerInstance: false,
    openTelemetry: { enabled: false },
    useListenNotify: true,
  };
  const boss = opts.pglite
    ? new PgBoss({ ...common, backend: 'pglite', db: fromPglite(opts.pglite) })
    : new PgBoss({ ...common, connectionString: opts.url!, max: 6 });
  boss.on('error', () => undefined);
  await boss.start({ attempts: 5 });
  if (!(await boss.getQueue(QUEUE))) {
    await boss
      .createQueue(QUEUE, {
        retryLimit: 5,
        retryDelay: 1,
        heartbeatSeconds: 10,
        notify: true,
        deleteAfterSeconds: 0,
      })
      .catch((e: Error) => phase(`createQueue: ${e.message}`));
  }
  return {
    enqueue: async (data) => {
      await boss.send(QUEUE, data);
    },
    work: async (concurrency, onJob) => {
      // as src/hub/jobs/engine.ts: one pg-boss worker per slot, fetching again right after a job
      // (pg-boss alone waits its poll interval after every fetch of a batch of 1)
      for (let i = 0; i < concurrency; i++) {
        let id = '';
        id = await boss.work<Data>(
          QUEUE,
          { batchSize: 1, pollingIntervalSeconds: 0.5 },
          async ([job]) => {
            try {
              if (job) {
                await onJob(job.data);
              }
            } finally {
              boss.notifyWorker(id);
            }
          },
        );
      }
    },
    stop: async () => await boss.stop({ graceful: true, timeout: 2000 }),
  };
}

type RedisCtor = new (
  url: string,
  options: Record<string, unknown>,
) => {
  quit: () => Promise<unknown>;
  on: (e: string, f: () => void) => void;
};
async function loadIORedis(): Promise<RedisCtor | null> {
  const where = process.env.CUA_BENCH_IOREDIS;
  if (!where) {
    return null;
  }
  const mod = (await import(path.join(where, 'built', 'index.js'))) as {
    default: RedisCtor | { default: RedisCtor };
  };
  return 'default' in mod.default ? mod.default.default : mod.default;
}

async function bullAdapter(url: string): Promise<Adapter> {
  const IORedis = (await loadIORedis())!;
  const conn = () => {
    const c = new IORedis(url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
    c.on('error', () => undefined);
    return c;
  };
  const q = new Queue(QUEUE, { connection: conn() });
  q.on('error', () => undefined);
  let worker: Worker | null = null;
  return {
    enqueue: async (data) => {
      await q.add(QUEUE, data, { attempts: 6, backoff: { type: 'fixed', delay: 1000 } });
    },
    work: async (concurrency, onJob) => {
      worker = new Worker<Data>(QUEUE, async (job) => await onJob(job.data), {
        connection: conn(),
        concurrency,
        lockDuration: 10_000,
        stalledInterval: 5_000,
        maxStalledCount: 5,
      });
      worker.on('error', () => undefined);
      await worker.waitUntilReady();
    },
    stop: async () => {
      await worker?.close();
      await q.close();
    },
  };
}

// ---- servers --------------------------------------------------------------------------------

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

type Redis = {
  url: string;
  restart: (how: 'SIGTERM' | 'SIGKILL') => Promise<void>;
  stop: () => Promise<void>;
};
async function startRedis(): Promise<Redis> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-redis-'));
  const asRedis = process.getuid?.() === 0;
  if (asRedis) {
    const [, , uid, gid] =
      readFileSync('/etc/passwd', 'utf8')
        .split('\n')
        .find((l) => l.startsWith('redis:'))
        ?.split(':') ?? [];
    chownSync(dir, Number(uid), Number(gid));
  }
  const port = await freePort();
  const pidFile = path.join(dir, 'redis.pid');
  const args = [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--save',
    '',
    '--daemonize',
    'yes',
    '--pidfile',
    pidFile,
    '--logfile',
    path.join(dir, 'log'),
  ];
  const start = async () => {
    await (asRedis
      ? run('runuser', ['-u', 'redis', '--', 'redis-server', ...args])
      : run('redis-server', args));
    for (;;) {
      try {
        const { stdout } = await run('redis-cli', ['-p', String(port), 'ping']);
        if (stdout.trim() === 'PONG') {
          return;
        }
      } catch {
        // not yet
      }
      await sleep(50);
    }
  };
  const halt = async (sig: 'SIGTERM' | 'SIGKILL') => {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    process.kill(pid, sig);
    for (;;) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await sleep(20);
    }
    await rm(pidFile, { force: true });
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    restart: async (how) => {
      await halt(how);
      await sleep(1000);
      await start();
    },
    stop: async () => {
      await halt('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---- child worker -------------------------------------------------------------------------

async function adapterFor(engine: string, url: string): Promise<Adapter> {
  return engine === 'bullmq' ? await bullAdapter(url) : await pgBossAdapter({ url });
}

async function childMain(engine: string, url: string, effects: string, conc: number) {
  const a = await adapterFor(engine, url);
  await a.work(conc, async (data) => {
    work();
    await sleep(20);
    appendFileSync(effects, `${data.key}\n`);
  });
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => void a.stop().finally(() => process.exit(0)));
}

function startChild(engine: string, url: string, effects: string, conc: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, '--child', engine, url, effects, String(conc)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = new Promise<void>((r) => child.stdout.once('data', () => r()));
  return { child, ready };
}

function readEffects(file: string): Map<string, number> {
  const m = new Map<string, number>();
  if (!existsSync(file)) {
    return m;
  }
  for (const k of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

// ---- measurements -------------------------------------------------------------------------

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function throughput(make: () => Promise<Adapter>, jobs: number, conc: number) {
  phase('throughput');
  const a = await make();
  for (let i = 0; i < jobs; i++) {
    await a.enqueue({ key: `t${i}`, t: Date.now() });
  }
  let done = 0;
  const t0 = performance.now();
  const all = new Promise<void>((resolve) => {
    void a.work(conc, async () => {
      work();
      done += 1;
      if (done === jobs) {
        resolve();
      }
      await Promise.resolve();
    });
  });
  await all;
  const s = (performance.now() - t0) / 1000;
  await a.stop();
  return jobs / s;
}

async function latency(make: () => Promise<Adapter>) {
  phase('latency');
  const a = await make();
  const lat: number[] = [];
  await a.work(4, async (d) => {
    lat.push(Date.now() - d.t);
    work();
    await Promise.resolve();
  });
  await sleep(1000);
  for (let i = 0; i < 200; i++) {
    await a.enqueue({ key: `l${i}`, t: Date.now() });
    await sleep(20);
  }
  while (lat.length < 200) {
    await sleep(50);
  }
  await a.stop();
  return { p50: pct(lat, 50), p99: pct(lat, 99) };
}

async function faultRun(
  engine: string,
  url: string,
  jobs: number,
  fault: (kill: () => void) => Promise<void>,
) {
  phase(`fault run on ${engine}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-effects-'));
  const effects = path.join(dir, 'effects');
  const producer = await adapterFor(engine, url);
  for (let i = 0; i < jobs; i++) {
    await producer.enqueue({ key: `f${i}`, t: Date.now() });
  }
  const workers = [startChild(engine, url, effects, 4), startChild(engine, url, effects, 4)];
  await Promise.all(workers.map((w) => w.ready));
  const t0 = performance.now();
  while (readEffects(effects).size < jobs * 0.2) {
    await sleep(20);
  }
  await fault(() => workers[0]!.child.kill('SIGKILL'));
  const deadline = Date.now() + 180_000;
  while (readEffects(effects).size < jobs && Date.now() < deadline) {
    await sleep(100);
  }
  const s = (performance.now() - t0) / 1000;
  const m = readEffects(effects);
  const lost = jobs - m.size;
  const reruns = [...m.values()].filter((n) => n > 1).length;
  for (const w of workers) {
    if (w.child.exitCode === null && w.child.signalCode === null) {
      const gone = new Promise((r) => w.child.once('exit', r));
      w.child.kill('SIGTERM');
      await gone;
    }
  }
  await producer.stop();
  await rm(dir, { recursive: true, force: true });
  return { lost, reruns, seconds: s };
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') {
    await childMain(argv[1]!, argv[2]!, argv[3]!, Number(argv[4]));
    return;
  }
  const flag = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  const jobs = flag('--jobs', 2000);
  const conc = flag('--concurrency', 8);
  const rows: string[] = [];
  const row = (...cells: (string | number)[]) => {
    const line = `| ${cells.join(' | ')} |`;
    rows.push(line);
    console.log(line);
  };
  console.log(
    `job engines: ${jobs} jobs, concurrency ${conc}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log(
    '| engine | jobs/s | enqueue→start p50 / p99 ms | worker SIGKILLed: lost / doubled / s | server restart: lost / doubled / s |',
  );

  // pg-boss on PostgreSQL
  const pgs = await startPostgres();
  try {
    const fresh = async () => await pgs.createDatabase();
    const tput = await throughput(
      async () => await pgBossAdapter({ url: await fresh() }),
      jobs,
      conc,
    );
    const lat = await latency(async () => await pgBossAdapter({ url: await fresh() }));
    const kill = await faultRun('pgboss', await fresh(), 300, async (k) => {
      k();
      await Promise.resolve();
    });
    const restart = await faultRun('pgboss', await fresh(), 300, async () => {
      await pgs.pause();
      await sleep(1000);
      await pgs.resume();
    });
    row(
      'pg-boss 12.38.0 / PostgreSQL 15',
      tput.toFixed(0),
      `${lat.p50} / ${lat.p99}`,
      `${kill.lost} / ${kill.reruns} / ${kill.seconds.toFixed(1)}`,
      `${restart.lost} / ${restart.reruns} / ${restart.seconds.toFixed(1)} (fast shutdown)`,
    );
  } finally {
    await pgs.stop();
  }

  // pg-boss on PGlite, in-process (the embedded hub): throughput and latency only
  {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-pglite-'));
    const pglite = await PGlite.create({ dataDir: path.join(dir, 'pg') });
    try {
      const tput = await throughput(
        async () => await pgBossAdapter({ pglite }),
        Math.min(jobs, 1000),
        conc,
      );
      const lat = await latency(async () => await pgBossAdapter({ pglite }));
      row(
        'pg-boss 12.38.0 / PGlite 0.6.1 (in-process)',
        tput.toFixed(0),
        `${lat.p50} / ${lat.p99}`,
        '— (one process)',
        '— (one process)',
      );
    } finally {
      await pglite.close();
      await rm(dir, { recursive: true, force: true });
    }
  }

  // BullMQ on Redis 7 (AOF everysec)
  if (await loadIORedis()) {
    const redis = await startRedis();
    try {
      const flush = async () => {
        await run('redis-cli', ['-u', redis.url, 'FLUSHALL']);
      };
      await flush();
      const tput = await throughput(async () => await bullAdapter(redis.url), jobs, conc);
      await flush();
      const lat = await latency(async () => await bullAdapter(redis.url));
      await flush();
      const kill = await faultRun('bullmq', redis.url, 300, async (k) => {
        k();
        await Promise.resolve();
      });
      await flush();
      const restart9 = await faultRun(
        'bullmq',
        redis.url,
        300,
        async () => await redis.restart('SIGKILL'),
      );
      await flush();
      const restartT = await faultRun(
        'bullmq',
        redis.url,
        300,
        async () => await redis.restart('SIGTERM'),
      );
      row(
        'BullMQ 6.7.0 / Redis 7.0.15 (AOF everysec)',
        tput.toFixed(0),
        `${lat.p50} / ${lat.p99}`,
        `${kill.lost} / ${kill.reruns} / ${kill.seconds.toFixed(1)}`,
        `kill -9: ${restart9.lost} / ${restart9.reruns} / ${restart9.seconds.toFixed(1)}; SIGTERM: ${restartT.lost} / ${restartT.reruns} / ${restartT.seconds.toFixed(1)}`,
      );
    } finally {
      await redis.stop();
    }
  } else {
    console.log('BullMQ skipped: set CUA_BENCH_IOREDIS to an installed ioredis (see the header)');
  }
  console.log(rows.join('\n'));
  process.exit(0);
}

await main();
