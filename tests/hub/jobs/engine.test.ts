// The job layer (src/hub/jobs/engine.ts, pg-boss) with one test body on both of its connections:
// the embedded PGlite (the hub's own process, pg-boss's PGlite adapter) and Debian's PostgreSQL
// (tests/helpers/postgres.ts; a fresh database per test). Test queues of their own, so nothing
// here depends on the real handlers. Short engine timings (supervise every second, poll every
// 0.5 s, retries after 1–2 s) keep it fast; nothing asserts a duration.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHubDb, type HubDatabase } from '../../../src/hub/db';
import { jobIdOfKey, openJobEngine, type JobEngine } from '../../../src/hub/jobs/engine';
import type { JobQueueSpec } from '../../../src/hub/jobs/queues';
import { JobHandedBack, JobRefused, type JobHandler } from '../../../src/hub/jobs/types';
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { untilValue } from '../../helpers/wait';

let pgServer: Postgres;
let pgliteDir: string;
let shared: HubDatabase | null = null;
let runs = 0;

beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-jobs-')),
  ]);
}, 120_000);
afterAll(async () => {
  await shared?.close();
  await pgServer?.stop();
  await rm(pgliteDir, { recursive: true, force: true });
});

type Backend = {
  name: string;
  open: () => Promise<HubDatabase>;
  done: (h: HubDatabase) => Promise<void>;
};
const BACKENDS: Backend[] = [
  {
    name: 'PGlite (embedded, in the hub process)',
    open: async () => (shared ??= await openHubDb({ data: pgliteDir })),
    done: () => Promise.resolve(),
  },
  {
    name: 'PostgreSQL',
    open: async () => await openHubDb({ url: await pgServer.createDatabase() }),
    done: (h) => h.close(),
  },
];

const FAST = { heartbeatSeconds: 10, superviseSeconds: 1, pollSeconds: 0.5 };
const POLICY = {
  retryLimit: 2,
  retryDelaySeconds: 1,
  retryDelayMaxSeconds: 2,
  expireInSeconds: 60,
};

// every test has queues of its own (the PGlite database is shared by the file's tests)
function queues(...names: string[]): JobQueueSpec[] {
  runs += 1;
  return names.map((n) => ({
    name: `${n}-${runs}`,
    schema: v.strictObject({ n: v.number() }),
    policy: POLICY,
  }));
}

async function withEngine(
  backend: Backend,
  specs: JobQueueSpec[],
  body: (engine: JobEngine, hub: HubDatabase) => Promise<void>,
): Promise<void> {
  const hub = await backend.open();
  const engine = await openJobEngine({ database: hub, queues: specs, timing: FAST });
  try {
    await body(engine, hub);
  } finally {
    await engine.stop({ timeoutMs: 1000 });
    await backend.done(hub);
  }
}

describe.each(BACKENDS)('job engine on $name', (backend) => {
  it('runs each key once: a key enqueued twice is one job, run once', async () => {
    const [q] = queues('once');
    const seen: string[] = [];
    await withEngine(backend, [q!], async (engine) => {
      const a = await engine.enqueue(q!.name, { n: 1 }, { key: 'k:1' });
      const b = await engine.enqueue(q!.name, { n: 1 }, { key: 'k:1' });
      expect(a).toEqual({ id: jobIdOfKey('k:1'), isNew: true });
      expect(b).toEqual({ id: jobIdOfKey('k:1'), isNew: false });
      const handler: JobHandler<{ n: number }, { twice: number }> = async (p, ctx) => {
        seen.push(ctx.key);
        return await Promise.resolve({ twice: p.n * 2 });
      };
      await engine.work({ [q!.name]: handler });
      const done = await untilValue('k:1 completed', async () => {
        const j = await engine.find('k:1');
        return j?.state === 'completed' ? j : null;
      });
      expect(done.output).toEqual({ twice: 2 });
      // enqueued again after it ran: still the one job, not run again
      expect(await engine.enqueue(q!.name, { n: 1 }, { key: 'k:1' })).toMatchObject({
        isNew: false,
      });
      await new Promise((r) => setTimeout(r, 1500));
      expect(seen).toEqual(['k:1']);
      expect(await engine.counts()).toEqual([
        { name: q!.name, waiting: 0, active: 0, done: 1, failed: 0 },
      ]);
    });
  });

  it('refuses a payload its queue’s schema does not accept', async () => {
    const [q] = queues('schema');
    await withEngine(backend, [q!], async (engine) => {
      await expect(engine.enqueue(q!.name, { n: 'one' }, { key: 'bad' })).rejects.toMatchObject({
        code: 'INVALID_PAYLOAD',
      });
      await expect(engine.enqueue('no-such-queue', { n: 1 }, { key: 'x' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await engine.find('bad')).toBeNull();
    });
  });

  it('retries with backoff, dead-letters a job that always throws with its error, keeps the queue moving, and retries it on demand', async () => {
    const [q] = queues('poison');
    const attempts: { key: string; attempt: number; at: number }[] = [];
    let healed = false;
    await withEngine(backend, [q!], async (engine) => {
      const handler: JobHandler<{ n: number }, string> = async (p, ctx) => {
        attempts.push({ key: ctx.key, attempt: ctx.attempt, at: Date.now() });
        if (p.n === 0 && !healed) {
          throw Object.assign(new Error('the manifest lies about steps.jsonl'), {
            code: 'INTEGRITY_FAILED',
          });
        }
        return await Promise.resolve(`ok ${p.n}`);
      };
      await engine.enqueue(q!.name, { n: 0 }, { key: 'poison' });
      for (let n = 1; n <= 5; n++) {
        await engine.enqueue(q!.name, { n }, { key: `good:${n}` });
      }
      await engine.work({ [q!.name]: handler }, { concurrency: 2 });
      const dead = await untilValue('the poisoned job in the dead-letter list', async () => {
        const list = await engine.dead();
        return list.length ? list : null;
      });
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({
        id: jobIdOfKey('poison'),
        queue: q!.name,
        key: 'poison',
        payload: { n: 0 },
        error: 'the manifest lies about steps.jsonl',
        code: 'INTEGRITY_FAILED',
        attempts: 3,
      });
      // 1 + retryLimit attempts, each later than the one before by at least the delay's floor
      const tries = attempts.filter((a) => a.key === 'poison');
      expect(tries.map((a) => a.attempt)).toEqual([1, 2, 3]);
      expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(400);
      // the queue kept moving
      await untilValue('the 5 good jobs done', async () => {
        const [c] = await engine.counts();
        return c!.done === 5 ? c : null;
      });
      expect(await engine.counts()).toEqual([
        { name: q!.name, waiting: 0, active: 0, done: 5, failed: 1 },
      ]);
      // the retry action: one more attempt, which now succeeds
      healed = true;
      await expect(engine.retry(dead[0]!.id)).resolves.toEqual({
        id: jobIdOfKey('poison'),
        queue: q!.name,
        key: 'poison',
      });
      const after = await untilValue('the retried job done', async () => {
        const j = await engine.find('poison');
        return j?.state === 'completed' ? j : null;
      });
      expect(after.output).toBe('ok 0');
      expect(await engine.dead()).toEqual([]);
      await expect(engine.retry(dead[0]!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });

  it('dead-letters a refused job at once (no retries) with its code and reasons; a retry of it is one more attempt', async () => {
    const [q] = queues('refuse');
    const attempts: { key: string; attempt: number }[] = [];
    const events: { event: string; refused?: boolean; final?: boolean }[] = [];
    const hub = await backend.open();
    const engine = await openJobEngine({
      database: hub,
      queues: [q!],
      timing: FAST,
      onEvent: (e) => events.push(e),
    });
    try {
      const handler: JobHandler<{ n: number }, string> = async (p, ctx) => {
        attempts.push({ key: ctx.key, attempt: ctx.attempt });
        if (p.n === 0) {
          throw new JobRefused(
            'INTAKE_FAILED',
            'refused: PULL_INVALID',
            { reasons: [{ code: 'PULL_INVALID', message: 'rows of another recording', fix: 'f' }] },
            'send a new version',
          );
        }
        return await Promise.resolve(`ok ${p.n}`);
      };
      await engine.enqueue(q!.name, { n: 0 }, { key: 'refused' });
      await engine.enqueue(q!.name, { n: 1 }, { key: 'next' });
      await engine.work({ [q!.name]: handler });
      const dead = await untilValue('the refused job in the dead-letter list', async () => {
        const list = await engine.dead();
        return list.length ? list : null;
      });
      expect(dead).toEqual([
        expect.objectContaining({
          id: jobIdOfKey('refused'),
          key: 'refused',
          error: 'refused: PULL_INVALID',
          code: 'INTAKE_FAILED',
          reasons: [{ code: 'PULL_INVALID', message: 'rows of another recording' }],
          attempts: 1,
        }),
      ]);
      expect(events).toContainEqual(
        expect.objectContaining({ event: 'failed', final: true, refused: true }),
      );
      // the queue moves on; the refused job ran once although its queue allows 2 retries
      await untilValue('the next job done', async () => {
        const j = await engine.find('next');
        return j?.state === 'completed' ? j : null;
      });
      expect(attempts.filter((a) => a.key === 'refused').map((a) => a.attempt)).toEqual([1]);
      expect(await engine.counts()).toEqual([
        { name: q!.name, waiting: 0, active: 0, done: 1, failed: 1 },
      ]);
      // retried: one more attempt, refused again, back in the list at once
      await engine.retry(dead[0]!.id);
      const back = await untilValue('the retried refusal back in the list', async () => {
        const list = await engine.dead();
        return list[0]?.attempts === 2 ? list[0] : null;
      });
      expect(back).toMatchObject({ code: 'INTAKE_FAILED', key: 'refused' });
      expect(attempts.filter((a) => a.key === 'refused').map((a) => a.attempt)).toEqual([1, 2]);
    } finally {
      await engine.stop({ timeoutMs: 1000 });
      await backend.done(hub);
    }
  });

  it('stores a running job’s progress and lets the job in hand finish on a graceful stop', async () => {
    const [q] = queues('progress');
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const hub = await backend.open();
    const engine = await openJobEngine({ database: hub, queues: [q!], timing: FAST });
    try {
      await engine.enqueue(q!.name, { n: 3 }, { key: 'slow' });
      const handler: JobHandler<{ n: number }, string> = async (p, ctx) => {
        await ctx.progress(1, p.n, 'first of three');
        await gate;
        await ctx.progress(p.n, p.n, 'all');
        return 'finished';
      };
      await engine.work({ [q!.name]: handler });
      const running = await untilValue('progress stored', async () => {
        const j = await engine.find('slow');
        return j?.progress ? j : null;
      });
      expect(running).toMatchObject({
        state: 'active',
        progress: { done: 1, total: 3, message: 'first of three' },
      });
      expect(await engine.counts()).toEqual([
        { name: q!.name, waiting: 0, active: 1, done: 0, failed: 0 },
      ]);
      // stop while the job is in hand: it finishes within the timeout and is completed
      const stopping = engine.stop({ timeoutMs: 10_000 });
      setTimeout(release, 300);
      await stopping;
      const probe = await openJobEngine({ database: hub, queues: [q!], timing: FAST });
      try {
        const j = await probe.find('slow');
        expect(j, JSON.stringify(j)).toMatchObject({ state: 'completed', output: 'finished' });
      } finally {
        await probe.stop();
      }
    } finally {
      release();
      await engine.stop();
      await backend.done(hub);
    }
  });

  it('hands a job back when it outlasts the stop timeout: its signal aborts and another worker finishes it, even on its last attempt', async () => {
    // no retries: the hand-back must not dead-letter it
    const q = { ...queues('handback')[0]!, policy: { ...POLICY, retryLimit: 0 } };
    const hub = await backend.open();
    const first = await openJobEngine({ database: hub, queues: [q], timing: FAST });
    const events: string[] = [];
    let second: JobEngine | null = null;
    try {
      await first.enqueue(q.name, { n: 1 }, { key: 'long' });
      let started = false;
      const stubborn: JobHandler<{ n: number }, string> = async (_p, ctx) => {
        started = true;
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        events.push(`aborted attempt ${ctx.attempt}`);
        throw new JobHandedBack(ctx.key);
      };
      await first.work({ [q.name]: stubborn });
      await untilValue('the first worker holds it', () => Promise.resolve(started));
      await first.stop({ timeoutMs: 1000 });
      second = await openJobEngine({ database: hub, queues: [q], timing: FAST });
      const quick: JobHandler<{ n: number }, string> = async (_p, ctx) => {
        events.push(`ran attempt ${ctx.attempt}`);
        return await Promise.resolve('second worker');
      };
      await second.work({ [q.name]: quick });
      const done = await untilValue('finished by the second worker', async () => {
        const j = await second!.find('long');
        return j?.state === 'completed' ? j : null;
      });
      expect(done.output).toBe('second worker');
      expect(events).toEqual(['aborted attempt 1', 'ran attempt 2']);
      expect(await second.dead()).toEqual([]);
    } finally {
      await first.stop();
      await second?.stop();
      await backend.done(hub);
    }
  });
});
