// Issue 29's intake wall time with 1 vs 2 worker processes: N submissions registered as waiting
// for their intake (as submissions:register does with a job layer) and enqueued, then drained by
// 1, then by 2 real `cua-annotator worker` processes (the CLI from source) on PostgreSQL 15 and
// Swift's S3, all on this machine (tests/helpers/postgres.ts, tests/helpers/swift.ts); a fresh
// database for each run, the same bundles. The clock runs from the first worker's `ready` (the
// workers start together) to the last intake stored (its transaction's time). bench/jobs-scale.ts is the same comparison for the engine alone (CPU jobs);
// bench/jobs-intake.ts the handlers in one process.
//
//   npx tsx bench/jobs-intake-workers.ts                 60 small submissions (17 files, 89 KiB)
//   BENCH_N=20 BENCH_EXAMPLE=1 npx tsx bench/jobs-intake-workers.ts
//                                                        copies of the example recording (2 min of
//                                                        video, 16 steps, an 18.7 MiB bundle)
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { insertUser, openHubDb, setUserRoles } from '../src/hub/db';
import { openJobEngine } from '../src/hub/jobs/engine';
import { jobKeys } from '../src/hub/jobs/queues';
import { openHubStorage } from '../src/hub/storage';
import {
  bundleTemplate,
  makeBundle,
  smallBundleTemplate,
  submitBundle,
  type BundleTemplate,
} from '../tests/hub/jobs/bundle-fixture';
import { REPO_ROOT } from '../tests/helpers/paths';
import { startPostgres, type Postgres } from '../tests/helpers/postgres';
import { startSwift, type Swift } from '../tests/helpers/swift';
import { createBucket, rawClient } from '../tests/services/upload/helpers';

const N = Number(process.env.BENCH_N ?? 60);
const EXAMPLE = process.env.BENCH_EXAMPLE === '1';
const BUCKET = 'intake-workers-bench';
const BIN = path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs');

function startWorker(
  url: string,
  swift: Swift,
  children: ChildProcess[],
  onReady: () => void,
): Promise<ChildProcess> {
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
    {
      env: { ...process.env, ...swift.env, CUA_ANNOTATOR_FROM_SOURCE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`worker exited ${code}: ${err}`));
    child.once('exit', onExit);
    const onData = (d: Buffer) => {
      if (d.toString().includes('"ready"')) {
        onReady();
        child.stdout.off('data', onData);
        child.stdout.resume();
        child.off('exit', onExit);
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
  });
}

async function run(
  pg: Postgres,
  swift: Swift,
  template: BundleTemplate,
  workers: number,
): Promise<{ seconds: number; perIntake: number }> {
  const url = await pg.createDatabase();
  const hub = await openHubDb({ url }, { holder: 'bench', purpose: 'hub', maxConnections: 4 });
  const store = await openHubStorage({
    url: `s3://${BUCKET}/team`,
    endpoint: swift.endpoint,
    region: swift.region,
    pathStyle: true,
    auth: { kind: 'static', credentials: swift.credentials },
  });
  const engine = await openJobEngine({ database: hub, supervise: false });
  const children: ChildProcess[] = [];
  try {
    const userId = (await insertUser(hub.db, { name: 'ann', passwordHash: '$argon2id$bench' }))!;
    await setUserRoles(hub.db, userId, ['annotator']);
    for (let i = 0; i < N; i++) {
      const b = await makeBundle(template, { annotator: 'ann' });
      const r = await submitBundle(
        hub.db,
        store,
        b,
        { userId, name: 'ann' },
        { awaitIntake: true },
      );
      const p = { submissionId: r.submissionId, version: r.version };
      await engine.enqueue('intake', p, { key: jobKeys.intake(p.submissionId, p.version) });
    }
    // started together; the clock runs from the first one ready
    let t0 = 0;
    await Promise.all(
      Array.from({ length: workers }, () =>
        startWorker(url, swift, children, () => {
          t0 ||= Date.now();
        }),
      ),
    );
    for (;;) {
      const c = (await engine.counts()).find((q) => q.name === 'intake')!;
      if (c.done + c.failed === N) {
        if (c.failed) {
          throw new Error(
            `${c.failed} intakes dead-lettered: ${JSON.stringify(await engine.dead())}`,
          );
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const last = await sql<{ at_ms: number }>`
      SELECT (extract(epoch from max(intake_at)) * 1000)::float8 AS at_ms
      FROM submission_versions`.execute(hub.db);
    const seconds = (Number(last.rows[0]!.at_ms) - t0) / 1000;
    const passed = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM submission_versions
      WHERE intake_status = 'passed'`.execute(hub.db);
    if (passed.rows[0]!.n !== N) {
      throw new Error(`${passed.rows[0]!.n} of ${N} intakes passed`);
    }
    return { seconds, perIntake: seconds / N };
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((r) => {
            c.once('exit', () => r());
            c.kill('SIGTERM');
          }),
      ),
    );
    await engine.stop({ timeoutMs: 1000 });
    await store.close();
    await hub.close();
  }
}

async function main(): Promise<void> {
  const [pg, swift, template] = await Promise.all([
    startPostgres(),
    startSwift(),
    EXAMPLE ? bundleTemplate() : smallBundleTemplate(),
  ]);
  try {
    await createBucket(rawClient(swift), BUCKET);
    console.log(
      `jobs-intake-workers: ${N} ${EXAMPLE ? 'copies of the example recording' : 'small submissions'}` +
        `, workers of concurrency 1; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
    );
    const one = await run(pg, swift, template, 1);
    console.log(
      `1 worker:  ${one.seconds.toFixed(1)} s, ${(N / one.seconds).toFixed(2)} intakes/s ` +
        `(${(one.perIntake * 1000).toFixed(0)} ms wall per intake)`,
    );
    const two = await run(pg, swift, template, 2);
    console.log(
      `2 workers: ${two.seconds.toFixed(1)} s, ${(N / two.seconds).toFixed(2)} intakes/s ` +
        `(${(two.perIntake * 1000).toFixed(0)} ms wall per intake)`,
    );
    console.log(
      `ratio 2/1: ${(one.seconds / two.seconds).toFixed(2)} (load now ${os.loadavg()[0]!.toFixed(1)})`,
    );
  } finally {
    template.cleanup();
    await Promise.all([pg.stop(), swift.stop()]);
  }
  process.exit(0);
}

await main();
