// Benchmark: the review queue's leaseNext (src/hub/review/queue.ts) with 10,000 submissions
// waiting (and 40,000 already judged, so the partial index has history to skip), on PostgreSQL
// (Debian's, started like the tests do) and on embedded PGlite. Each timed call hands one
// submission to a reviewer; the verdict that frees the reviewer again is not timed. Prints p50,
// p99 and max of leaseNext one caller at a time and 20 callers at once, and the query plan of
// "the oldest waiting submission".
//   npx tsx bench/hub-queue.ts            (BENCH_WAITING, BENCH_CALLS, BENCH_BACKENDS=pg,pglite)
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import {
  insertUser,
  openHubDb,
  setUserRoles,
  type HubDatabase,
  type HubRootDb,
} from '../src/hub/db';
import { leaseNext, recordVerdict, type QueueActor } from '../src/hub/review/queue';
import { startPostgres } from '../tests/helpers/postgres';

const WAITING = Number(process.env.BENCH_WAITING ?? 10_000);
const JUDGED = Number(process.env.BENCH_JUDGED ?? 40_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 500);
const CONCURRENCY = 20;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pg,pglite').split(',');

async function person(db: HubRootDb, name: string, role: 'annotator' | 'reviewer') {
  const id = await insertUser(db, { name, passwordHash: '$argon2id$bench-not-a-hash' });
  await setUserRoles(db, id!, [role]);
  return { userId: id!, name, client: 'bench' } satisfies QueueActor;
}

async function seed(db: HubRootDb): Promise<void> {
  const annotators = [];
  for (let i = 0; i < 10; i++) {
    annotators.push(await person(db, `bench-annotator-${i}`, 'annotator'));
  }
  const first = annotators[0]!.userId;
  // judged history first (older), then the waiting ones, one second apart in queue order
  await sql`
    INSERT INTO submissions (annotator_id, recording_id, task, status, current_version,
                             waiting_since)
    SELECT ${first} + (g % 10), 'rec-' || g, 'task ' || g,
           CASE WHEN g <= ${JUDGED} THEN 'accepted' ELSE 'submitted' END, 1,
           CASE WHEN g <= ${JUDGED} THEN NULL
                ELSE now() - make_interval(secs => ${JUDGED + WAITING} - g) END
    FROM generate_series(1, ${JUDGED + WAITING}) AS g`.execute(db);
  await sql`
    INSERT INTO submission_versions (submission_id, version, manifest_sha256, object_prefix)
    SELECT id, 1, lpad(to_hex(id), 64, '0'), 'subs/' || id || '/v1' FROM submissions`.execute(db);
  await sql`ANALYZE`.execute(db);
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function report(what: string, times: number[]): string {
  const s = [...times].sort((a, b) => a - b);
  return `${what}: n=${s.length} p50 ${pct(s, 50).toFixed(2)} ms, p99 ${pct(s, 99).toFixed(2)} ms, max ${s.at(-1)!.toFixed(2)} ms`;
}

// one reviewer's timed leaseNext, then its untimed verdict (so it may lease again)
async function round(db: HubRootDb, reviewer: QueueActor): Promise<number> {
  const t0 = performance.now();
  const got = await leaseNext(db, reviewer, 60_000);
  const ms = performance.now() - t0;
  if (!got || got.isResumed) {
    throw new Error('the queue ran dry or handed back a held lease');
  }
  await recordVerdict(db, {
    reviewer,
    submissionId: got.submissionId,
    version: got.version,
    verdict: 'accept',
    grade: 'good',
  });
  return ms;
}

async function bench(name: string, hub: HubDatabase): Promise<void> {
  const { db } = hub;
  const s0 = performance.now();
  await seed(db);
  const seedSec = (performance.now() - s0) / 1000;
  const reviewers: QueueActor[] = [];
  for (let i = 0; i < CONCURRENCY; i++) {
    reviewers.push(await person(db, `bench-reviewer-${i}`, 'reviewer'));
  }
  const plan = await sql<{ 'QUERY PLAN': string }>`
    EXPLAIN SELECT id, current_version FROM submissions
    WHERE status = 'submitted' AND annotator_id <> ${reviewers[0]!.userId}
    ORDER BY waiting_since, id LIMIT 1 FOR UPDATE SKIP LOCKED`.execute(db);
  // warm-up (connections, plans)
  for (let i = 0; i < 20; i++) {
    await round(db, reviewers[0]!);
  }
  const sequential: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    sequential.push(await round(db, reviewers[i % CONCURRENCY]!));
  }
  const concurrent: number[] = [];
  for (let i = 0; i < CALLS / CONCURRENCY; i++) {
    concurrent.push(...(await Promise.all(reviewers.map((r) => round(db, r)))));
  }
  const left = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM submissions WHERE status = 'submitted'`.execute(db);
  console.log(
    `\n${name}: ${WAITING.toLocaleString('en')} waiting + ${JUDGED.toLocaleString('en')} judged ` +
      `(seeded in ${seedSec.toFixed(1)} s); ${left.rows[0]!.n} still waiting at the end`,
  );
  console.log(`  ${report('leaseNext, one caller at a time', sequential)}`);
  console.log(`  ${report(`leaseNext, ${CONCURRENCY} callers at once`, concurrent)}`);
  console.log(`  plan: ${plan.rows.map((r) => r['QUERY PLAN'].trim()).join(' / ')}`);
}

if (BACKENDS.includes('pg')) {
  const server = await startPostgres();
  try {
    const hub = await openHubDb(
      { url: await server.createDatabase('hub_bench') },
      { maxConnections: CONCURRENCY + 5 },
    );
    try {
      await bench('PostgreSQL', hub);
    } finally {
      await hub.close();
    }
  } finally {
    await server.stop();
  }
}
if (BACKENDS.includes('pglite')) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-bench-'));
  try {
    const hub = await openHubDb({ data: dir });
    try {
      await bench('PGlite (embedded)', hub);
    } finally {
      await hub.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
console.log(
  `\nload average: ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, ${os.cpus().length} cores`,
);
