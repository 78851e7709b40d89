// The job engine across processes on a real PostgreSQL (tests/helpers/postgres.ts): worker
// processes (fixtures/effect-worker.ts: the runner of `cua-annotator worker` with a test queue
// whose handler logs every run and writes its effect once per key) against the faults of issue
// 29: 200 jobs over 2 workers, a worker SIGKILLed mid-job, PostgreSQL restarted mid-run. The
// effect table says what happened: one row per key, never two; the run log shows the re-runs.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHubDb, type HubDatabase } from '../../../src/hub/db';
import { openJobEngine, type JobEngine } from '../../../src/hub/jobs/engine';
import { REPO_ROOT } from '../../helpers/paths';
import { startPostgres, type Postgres } from '../../helpers/postgres';

const FIXTURE = path.join(REPO_ROOT, 'tests', 'hub', 'jobs', 'fixtures', 'effect-worker.ts');
const QUEUE = 'effects';
const SPEC = {
  name: QUEUE,
  schema: v.strictObject({ n: v.number() }),
  policy: { retryLimit: 6, retryDelaySeconds: 1, retryDelayMaxSeconds: 4, expireInSeconds: 120 },
};

type WorkerEvent = { pid: number; event: string; key?: string };
type Worker = {
  child: ChildProcess;
  pid: number;
  events: WorkerEvent[];
  stderr: () => string;
  waitFor: (what: string, pred: (e: WorkerEvent) => boolean, ms?: number) => Promise<WorkerEvent>;
  stop: () => Promise<void>;
};

let pgServer: Postgres;
const children: ChildProcess[] = [];

beforeAll(async () => {
  pgServer = await startPostgres();
}, 120_000);
afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
    }
  }
  await pgServer?.stop();
});

async function startWorker(url: string, concurrency: number, sleepMs: number): Promise<Worker> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', FIXTURE, url, QUEUE, String(concurrency), String(sleepMs)],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  const events: WorkerEvent[] = [];
  const waiters: { pred: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const e = JSON.parse(line) as WorkerEvent;
      events.push(e);
      for (const w of [...waiters]) {
        if (w.pred(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    }
  });
  const waitFor = (what: string, pred: (e: WorkerEvent) => boolean, ms = 60_000) => {
    const seen = events.find(pred);
    if (seen) {
      return Promise.resolve(seen);
    }
    return new Promise<WorkerEvent>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker ${child.pid}: no ${what} in ${ms} ms; stderr: ${stderr}`)),
        ms,
      );
      waiters.push({
        pred,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  };
  await waitFor('ready', (e) => e.event === 'ready');
  return {
    child,
    pid: child.pid!,
    events,
    stderr: () => stderr,
    waitFor,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return;
      }
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

async function setup(): Promise<{ url: string; hub: HubDatabase; engine: JobEngine }> {
  const url = await pgServer.createDatabase();
  const hub = await openHubDb({ url });
  await sql`CREATE TABLE job_runs (key text NOT NULL, pid int NOT NULL, attempt int NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp())`.execute(hub.db);
  await sql`CREATE TABLE job_effects (key text PRIMARY KEY, n int NOT NULL, pid int NOT NULL)`.execute(
    hub.db,
  );
  const engine = await openJobEngine({
    database: hub,
    queues: [SPEC],
    timing: { heartbeatSeconds: 10, superviseSeconds: 1, pollSeconds: 0.5 },
  });
  return { url, hub, engine };
}

async function enqueueAll(engine: JobEngine, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const r = await engine.enqueue(QUEUE, { n }, { key: `job:${n}` });
    expect(r.isNew).toBe(true);
  }
}

// counts through the outage: a refused connection is "not yet"
async function untilDone(engine: JobEngine, count: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const c = await engine.counts().catch(() => null);
    if (c?.[0]?.done === count) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`not all ${count} jobs done in ${ms} ms: ${JSON.stringify(c)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function effects(hub: HubDatabase) {
  const rows = await sql<{
    key: string;
    n: number;
    pid: number;
  }>`SELECT key, n, pid FROM job_effects ORDER BY n`.execute(hub.db);
  return rows.rows;
}

async function runs(hub: HubDatabase) {
  const rows = await sql<{
    key: string;
    pid: number;
    attempt: number;
  }>`SELECT key, pid, attempt FROM job_runs ORDER BY at`.execute(hub.db);
  return rows.rows;
}

describe('job engine with worker processes on PostgreSQL', () => {
  it('200 jobs over 2 worker processes: every result present exactly once, both workers worked', async () => {
    const { hub, engine, url } = await setup();
    try {
      await enqueueAll(engine, 200);
      const [a, b] = await Promise.all([startWorker(url, 4, 20), startWorker(url, 4, 20)]);
      await untilDone(engine, 200, 90_000);
      const got = await effects(hub);
      expect(got.map((r) => r.n)).toEqual([...Array(200).keys()]);
      expect(new Set(got.map((r) => r.key)).size).toBe(200);
      // no fault: every handler ran once
      expect(await runs(hub)).toHaveLength(200);
      const byPid = new Set(got.map((r) => r.pid));
      expect(byPid).toEqual(new Set([a.pid, b.pid]));
      expect(await engine.counts()).toEqual([
        { name: QUEUE, waiting: 0, active: 0, done: 200, failed: 0 },
      ]);
      await Promise.all([a.stop(), b.stop()]);
      expect(a.child.exitCode).toBe(0);
    } finally {
      await engine.stop();
      await hub.close();
    }
  }, 150_000);

  it('a worker SIGKILLed mid-job: the other worker finishes its jobs, each effect exists once', async () => {
    const { hub, engine, url } = await setup();
    try {
      await enqueueAll(engine, 12);
      const a = await startWorker(url, 2, 1500);
      const started = await a.waitFor('a started job', (e) => e.event === 'started');
      // mid-job: its run is logged, its effect (1.5 s later) not yet written
      while (!(await runs(hub)).some((r) => r.key === started.key)) {
        await new Promise((r) => setTimeout(r, 20));
      }
      a.child.kill('SIGKILL');
      await new Promise((r) => a.child.once('exit', r));
      const b = await startWorker(url, 4, 200);
      await untilDone(engine, 12, 90_000);
      const got = await effects(hub);
      expect(got.map((r) => r.n)).toEqual([...Array(12).keys()]);
      expect(got.every((r) => r.pid !== a.pid || r.key !== started.key)).toBe(true);
      // the killed job: ran on A (cut short before its effect), then on B, whose effect it is
      const killed = got.find((r) => r.key === started.key)!;
      expect(killed.pid).toBe(b.pid);
      const itsRuns = (await runs(hub)).filter((r) => r.key === started.key);
      expect(itsRuns.map((r) => r.pid)).toEqual([a.pid, b.pid]);
      expect(itsRuns[1]!.attempt).toBeGreaterThan(itsRuns[0]!.attempt);
      expect(await engine.dead()).toEqual([]);
      await b.stop();
    } finally {
      await engine.stop();
      await hub.close();
    }
  }, 150_000);

  it('PostgreSQL restarted mid-run: no job lost, none done twice', async () => {
    const { hub, engine, url } = await setup();
    try {
      await enqueueAll(engine, 200);
      const [a, b] = await Promise.all([startWorker(url, 4, 30), startWorker(url, 4, 30)]);
      // restart once some work is done and much is left
      for (;;) {
        const n = (await effects(hub)).length;
        if (n >= 40) {
          expect(n).toBeLessThan(200);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await pgServer.pause();
      await new Promise((r) => setTimeout(r, 2000));
      await pgServer.resume();
      await untilDone(engine, 200, 120_000);
      const got = await effects(hub);
      expect(got.map((r) => r.n)).toEqual([...Array(200).keys()]);
      expect(new Set(got.map((r) => r.key)).size).toBe(200);
      expect(await engine.counts()).toEqual([
        { name: QUEUE, waiting: 0, active: 0, done: 200, failed: 0 },
      ]);
      expect(await engine.dead()).toEqual([]);
      // both workers lived through it
      expect(a.child.exitCode, a.stderr()).toBeNull();
      expect(b.child.exitCode, b.stderr()).toBeNull();
      await Promise.all([a.stop(), b.stop()]);
    } finally {
      await engine.stop();
      await hub.close();
    }
  }, 200_000);
});
