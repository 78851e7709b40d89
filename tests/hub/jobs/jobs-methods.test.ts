// The admin's view of the jobs through the hub's HTTP API (jobs:status, jobs:dead, jobs:retry) on
// the embedded hub: a real server (tests/hub/http/hub-fixture.ts, PGlite) with the job layer
// attached and a test queue whose job fails until it is "fixed". Who may call them is
// tests/hub/http/authorization.test.ts's.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJobEngine, type JobEngine } from '../../../src/hub/jobs/engine';
import type { JobQueueSpec } from '../../../src/hub/jobs/queues';
import type { JobHandler } from '../../../src/hub/jobs/types';
import { enqueuePendingIntakes } from '../../../src/hub/jobs/worker';
import { findUserByName } from '../../../src/hub/db';
import { registerVersion } from '../../../src/hub/review/queue';
import { startHubFixture, type HubFixture } from '../http/hub-fixture';
import { untilValue } from '../../helpers/wait';

const QUEUE: JobQueueSpec = {
  name: 'api-test',
  schema: v.strictObject({ n: v.number() }),
  policy: { retryLimit: 1, retryDelaySeconds: 1, retryDelayMaxSeconds: 1, expireInSeconds: 60 },
};

let fixture: HubFixture;
let engine: JobEngine | null = null;
let fixed = false;

beforeAll(async () => {
  // the server takes the job layer at start; the engine opens on the fixture's database after
  const lazy: Pick<JobEngine, 'enqueue' | 'counts' | 'dead' | 'retry' | 'find'> = {
    enqueue: (...a) => engine!.enqueue(...a),
    counts: () => engine!.counts(),
    dead: (o) => engine!.dead(o),
    retry: (id) => engine!.retry(id),
    find: (k) => engine!.find(k),
  };
  fixture = await startHubFixture({ jobs: lazy });
  engine = await openJobEngine({
    database: fixture.hub,
    queues: [QUEUE],
    timing: { heartbeatSeconds: 10, superviseSeconds: 1, pollSeconds: 0.5 },
  });
  const handler: JobHandler<{ n: number }, string> = async (p) => {
    if (!fixed) {
      throw Object.assign(new Error(`job ${p.n}: steps.jsonl does not match the manifest`), {
        code: 'INTEGRITY_FAILED',
      });
    }
    return await Promise.resolve('ok');
  };
  await engine.work({ [QUEUE.name]: handler });
}, 120_000);
afterAll(async () => {
  await engine?.stop({ timeoutMs: 1000 });
  await fixture?.close();
});

describe('jobs:* on the hub', () => {
  it('shows the counts and the dead-letter list with the error; retry runs the job again, audited', async () => {
    const token = await fixture.token('admin');
    await engine!.enqueue(QUEUE.name, { n: 7 }, { key: 'api-test:7' });
    const dead = await untilValue('the job dead-lettered', async () => {
      const r = await fixture.call('jobs:dead', {}, { token });
      expect(r.status).toBe(200);
      const jobs = (r.body.value as { jobs: { id: string }[] }).jobs;
      return jobs.length ? jobs : null;
    });
    expect(dead).toEqual([
      {
        id: expect.any(String) as string,
        queue: QUEUE.name,
        key: 'api-test:7',
        payload: { n: 7 },
        error: 'job 7: steps.jsonl does not match the manifest',
        code: 'INTEGRITY_FAILED',
        // a job that threw has no reasons (a refused one's: jobs-e2e.test.ts)
        reasons: [],
        attempts: 2,
        failedAtMs: expect.any(Number) as number,
      },
    ]);
    const status = await fixture.call('jobs:status', {}, { token });
    expect(status.body.value).toEqual({
      queues: [{ name: QUEUE.name, waiting: 0, active: 0, done: 0, failed: 1 }],
    });

    // an id that is not in the list
    const unknown = await fixture.call(
      'jobs:retry',
      { id: '00000000-0000-8000-8000-000000000000' },
      { token },
    );
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    const notAnId = await fixture.call('jobs:retry', { id: 'seven' }, { token });
    expect([notAnId.status, notAnId.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);

    fixed = true;
    const retried = await fixture.call('jobs:retry', { id: dead[0]!.id }, { token });
    expect(retried.body.value).toEqual({ id: dead[0]!.id, queue: QUEUE.name, key: 'api-test:7' });
    await untilValue('the retried job done', async () => {
      const r = await fixture.call('jobs:status', {}, { token });
      const [q] = (r.body.value as { queues: { done: number }[] }).queues;
      return q!.done === 1 ? q : null;
    });
    expect((await fixture.call('jobs:status', {}, { token })).body.value).toEqual({
      queues: [{ name: QUEUE.name, waiting: 0, active: 0, done: 1, failed: 0 }],
    });
    expect((await fixture.call('jobs:dead', {}, { token })).body.value).toEqual({ jobs: [] });
    const audit = await fixture.call('audit:list', { limit: 5 }, { token });
    const entries = (audit.body.value as { entries: { action: string; target: string }[] }).entries;
    expect(entries.find((e) => e.action === 'job.retry')).toMatchObject({
      target: 'job:api-test:7',
    });
  }, 90_000);

  it('queues the intake of a version registered while the enqueue was lost, once', async () => {
    const ann = (await findUserByName(fixture.hub.db, 'ann'))!;
    // registered for an intake, and the hub stopped before it enqueued it
    const r = await registerVersion(fixture.hub.db, {
      annotator: { userId: ann.id, name: ann.name, client: 'test' },
      recordingId: 'rec-lost-enqueue',
      task: 'a task',
      manifestSha256: 'a'.repeat(64),
      objectPrefix: 'ann/rec-lost-enqueue/aaaa',
      awaitIntake: true,
    });
    expect(r.status).toBe('intake');
    const intakes = await openJobEngine({ database: fixture.hub });
    try {
      expect(await enqueuePendingIntakes(fixture.hub.db, intakes)).toBe(1);
      expect(await intakes.find(`intake:${r.submissionId}@${r.version}`)).toMatchObject({
        queue: 'intake',
        state: 'created',
      });
      // the next start finds it queued already
      expect(await enqueuePendingIntakes(fixture.hub.db, intakes)).toBe(0);
    } finally {
      await intakes.stop({ timeoutMs: 1000 });
    }
  });
});
