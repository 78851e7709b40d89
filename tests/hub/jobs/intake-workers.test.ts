// Issue 29's first fault with the real intake: 200 submissions registered as waiting for their
// intake (as submissions:register does with a job layer) are taken in by 2 `cua-annotator worker`
// processes (the real CLI, from source) on a real PostgreSQL (tests/helpers/postgres.ts) and
// Swift's S3 (tests/helpers/swift.ts); one worker is SIGKILLed just after it started an intake,
// and the other finishes that one too. The hub's own records say what happened: one intake
// outcome per version, one `submission.intake` audit row per submission, never two. The bundles
// are small (tests/hub/jobs/bundle-fixture.ts smallBundleTemplate) and pass their intake.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser, openHubDb, setUserRoles, type HubDatabase } from '../../../src/hub/db';
import { openJobEngine } from '../../../src/hub/jobs/engine';
import { jobKeys } from '../../../src/hub/jobs/queues';
import { openHubStorage, type HubObjectStore } from '../../../src/hub/storage';
import { REPO_ROOT } from '../../helpers/paths';
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, rawClient } from '../../services/upload/helpers';
import {
  makeBundle,
  smallBundleTemplate,
  submitBundle,
  type BundleTemplate,
} from './bundle-fixture';

const N = 200;
const BUCKET = 'intake-workers';
const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');

type WorkerEvent = { event: string; key?: string; attempt?: number };
type Worker = { child: ChildProcess; events: WorkerEvent[]; stderr: () => string };

let pgServer: Postgres;
let swift: Swift;
let url: string;
let hub: HubDatabase;
let store: HubObjectStore;
let template: BundleTemplate;
const children: ChildProcess[] = [];

beforeAll(async () => {
  [pgServer, swift, template] = await Promise.all([
    startPostgres(),
    startSwift(),
    smallBundleTemplate(),
  ]);
  await createBucket(rawClient(swift), BUCKET);
  url = await pgServer.createDatabase();
  hub = await openHubDb({ url });
  store = await openHubStorage({
    url: `s3://${BUCKET}/team`,
    endpoint: swift.endpoint,
    region: swift.region,
    pathStyle: true,
    auth: { kind: 'static', credentials: swift.credentials },
  });
}, 180_000);

afterAll(async () => {
  for (const c of children) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
    }
  }
  await store?.close();
  await hub?.close();
  template?.cleanup();
  await pgServer?.stop();
  await swift?.stop();
});

// `worker --json`: one event a line; `onEvent` sees each as it arrives
function startWorker(onEvent: (w: Worker, e: WorkerEvent) => void): Promise<Worker> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'worker',
      '--database',
      url,
      '--storage',
      `s3://${BUCKET}/team`,
      '--endpoint',
      swift.endpoint,
      '--path-style',
      '--json',
    ],
    { env: { ...process.env, ...swift.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stderr = '';
  let buffered = '';
  const w: Worker = { child, events: [], stderr: () => stderr };
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`worker exited ${code}: ${stderr}`));
    child.once('exit', onExit);
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const e = JSON.parse(buffered.slice(0, nl)) as WorkerEvent;
        buffered = buffered.slice(nl + 1);
        w.events.push(e);
        if (e.event === 'ready') {
          child.off('exit', onExit);
          resolve(w);
        }
        onEvent(w, e);
      }
    });
  });
}

describe('the intake over 2 worker processes on PostgreSQL and S3', () => {
  it(`${N} submissions, one worker SIGKILLed mid-intake: every intake result present exactly once`, async () => {
    const userId = (await insertUser(hub.db, { name: 'ann', passwordHash: '$argon2id$test' }))!;
    await setUserRoles(hub.db, userId, ['annotator']);
    const engine = await openJobEngine({ database: hub, supervise: false });
    try {
      // registered and enqueued as submissions:register does with a job layer, 8 at a time
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < N; i = next++) {
          const b = await makeBundle(template, { annotator: 'ann' });
          const r = await submitBundle(
            hub.db,
            store,
            b,
            { userId, name: 'ann' },
            {
              awaitIntake: true,
            },
          );
          expect(r.status).toBe('intake');
          const p = { submissionId: r.submissionId, version: r.version };
          await engine.enqueue('intake', p, { key: jobKeys.intake(p.submissionId, p.version) });
        }
      };
      await Promise.all(Array.from({ length: 8 }, lane));

      // worker A is killed at the first intake it starts once 40 are done, before it can finish
      let completed = 0;
      let killed: string | null = null;
      const onEvent = (w: Worker, e: WorkerEvent) => {
        if (e.event === 'completed') {
          completed += 1;
        }
        if (w === a && killed === null && e.event === 'started' && completed >= 40) {
          killed = e.key!;
          w.child.kill('SIGKILL');
        }
      };
      let a: Worker | null = null;
      a = await startWorker(onEvent);
      const b = await startWorker(onEvent);
      const deadline = Date.now() + 10 * 60_000;
      for (;;) {
        const c = (await engine.counts()).find((q) => q.name === 'intake')!;
        if (c.done === N) {
          break;
        }
        expect(c.failed, JSON.stringify(c)).toBe(0);
        if (Date.now() > deadline) {
          throw new Error(`not all ${N} intakes done: ${JSON.stringify(c)}; ${b.stderr()}`);
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(killed).not.toBeNull();
      expect(a.child.signalCode).toBe('SIGKILL');
      expect(b.child.exitCode).toBeNull();

      // the hub's records: every version taken in, once
      const versions = await sql<{ intake_status: string; n: number }>`
        SELECT intake_status, count(*)::int AS n FROM submission_versions
        GROUP BY intake_status`.execute(hub.db);
      expect(versions.rows).toEqual([{ intake_status: 'passed', n: N }]);
      const statuses = await sql<{ status: string; n: number }>`
        SELECT status, count(*)::int AS n FROM submissions GROUP BY status`.execute(hub.db);
      expect(statuses.rows).toEqual([{ status: 'submitted', n: N }]);
      const audits = await sql<{ target: string; n: number }>`
        SELECT target, count(*)::int AS n FROM audit_log WHERE action = 'submission.intake'
        GROUP BY target`.execute(hub.db);
      expect(audits.rows).toHaveLength(N);
      expect(audits.rows.every((r) => r.n === 1)).toBe(true);

      // both worked; the killed intake was finished by the other worker, on its second attempt
      const done = (w: Worker) => w.events.filter((e) => e.event === 'completed').map((e) => e.key);
      expect(done(a).length).toBeGreaterThan(0);
      expect(done(b).length).toBeGreaterThan(0);
      expect(done(a)).not.toContain(killed);
      expect(b.events).toContainEqual(
        expect.objectContaining({ event: 'completed', key: killed, attempt: 2 }),
      );
      // each key completed by exactly one worker, none twice (A's last lines may be lost with it:
      // the database above is the record)
      const all = [...done(a), ...done(b)];
      expect(new Set(all).size).toBe(all.length);
      expect(await engine.dead()).toEqual([]);
    } finally {
      await engine.stop({ timeoutMs: 1000 });
    }
  }, 900_000);
});
