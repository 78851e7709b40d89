// Benchmark of issue 29's intake job (docs/jobs.md §H): the wall time of one intake per
// submission — re-hash every object against the manifest, restore the bundle into a scratch
// library, PII scan (raw files included) and check — run by the handler itself (no engine) on
// PGlite and the folder store, one at a time and two at a time; and a dataset build's per-item
// export time. The submissions are copies of the example recording's bundle (3.5 MB of video,
// 3.0 MB of AgentNet raw text, 16 steps).
//
//   npx tsx bench/jobs-intake.ts [--n 12] [--build 6]
//
// Prints per-phase figures and the paper estimate for AgentNet's scale (22,625 trajectories).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { APP_VERSION } from '../src/cli/version';
import { insertUser, openHubDb, setSubmissionStatus, setUserRoles } from '../src/hub/db';
import { startDatasetBuild } from '../src/hub/jobs/datasets';
import {
  createBuildItemHandler,
  createBuildMergeHandler,
  createIntakeHandler,
} from '../src/hub/jobs/handlers';
import { FolderObjectStore } from '../src/hub/storage';
import {
  bundleTemplate,
  makeBundle,
  submitBundle,
  testContext,
} from '../tests/hub/jobs/bundle-fixture';

const { values } = parseArgs({
  options: { n: { type: 'string', default: '12' }, build: { type: 'string', default: '6' } },
});
const N = Number(values.n);
const BUILD_N = Number(values.build);
const AGENTNET_TRAJECTORIES = 22_625;

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return {
    mean: Math.round(mean),
    p50: s[Math.floor(s.length / 2)]!,
    max: s.at(-1)!,
  };
};

const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-jobs-intake-'));
const hub = await openHubDb({ data: path.join(dir, 'hub') });
const store = new FolderObjectStore({ dir: path.join(dir, 'objects'), secret: randomBytes(32) });
const t = await bundleTemplate();
try {
  const uid = (await insertUser(hub.db, { name: 'ann', passwordHash: '$argon2id$bench' }))!;
  await setUserRoles(hub.db, uid, ['annotator']);
  const made: Awaited<ReturnType<typeof submitBundle>>[] = [];
  for (let i = 0; i < N + BUILD_N; i += 1) {
    const b = await makeBundle(t, { annotator: 'ann' });
    made.push(
      await submitBundle(hub.db, store, b, { userId: uid, name: 'ann' }, { awaitIntake: true }),
    );
  }
  const bytes = (await makeBundle(t, { annotator: 'ann' })).manifest.totals.bytes;
  const intake = createIntakeHandler({ db: hub.db, store });
  const run = async (r: (typeof made)[number]) => {
    const started = performance.now();
    const out = await intake(
      { submissionId: r.submissionId, version: r.version },
      testContext(`intake:${r.submissionId}@${r.version}`),
    );
    if (out.status !== 'passed') {
      throw new Error(`intake failed: ${JSON.stringify(out.reasons)}`);
    }
    return performance.now() - started;
  };
  // one at a time
  const half = Math.floor(N / 2);
  const one: number[] = [];
  const t1 = performance.now();
  for (const r of made.slice(0, half)) {
    one.push(await run(r));
  }
  const wall1 = performance.now() - t1;
  // two at a time (two workers' worth of concurrency in one process)
  const two: number[] = [];
  const t2 = performance.now();
  const rest = made.slice(half, N);
  for (let i = 0; i < rest.length; i += 2) {
    two.push(...(await Promise.all(rest.slice(i, i + 2).map(run))));
  }
  const wall2 = performance.now() - t2;
  // a build of BUILD_N accepted submissions: per-item export and the merge
  for (const r of made.slice(N)) {
    await setSubmissionStatus(hub.db, r.submissionId, 'accepted');
  }
  const queue: { name: string; payload: unknown; key: string }[] = [];
  const enqueue = (name: string, payload: unknown, { key }: { key: string }) => {
    queue.push({ name, payload, key });
    return Promise.resolve();
  };
  const deps = { db: hub.db, store, enqueue, appVersion: APP_VERSION };
  const item = createBuildItemHandler(deps);
  const merge = createBuildMergeHandler(deps);
  // only the intaken-and-accepted ones: the others are still 'submitted'
  await startDatasetBuild(deps, {
    format: 'agentnet-jsonl',
    filters: { statuses: ['accepted'] },
    createdBy: null,
  });
  const itemMs: number[] = [];
  let mergeMs = 0;
  for (let job = queue.shift(); job; job = queue.shift()) {
    const started = performance.now();
    if (job.name === 'build-item') {
      await item(job.payload as never, testContext(job.key));
      itemMs.push(performance.now() - started);
    } else {
      await merge(job.payload as never, testContext(job.key));
      mergeMs = performance.now() - started;
    }
  }
  const s1 = stats(one);
  const s2 = stats(two);
  const si = stats(itemMs);
  const perTrajectory1 = wall1 / one.length;
  const perTrajectory2 = wall2 / two.length;
  const hours = (ms: number) => (ms * AGENTNET_TRAJECTORIES) / 3_600_000;
  const out = {
    bundleMiB: Math.round((bytes / 2 ** 20) * 100) / 100,
    loadAverage: os.loadavg().map((x) => Math.round(x * 10) / 10),
    intakeOneAtATime: { n: one.length, ...s1, wallPerSubmissionMs: Math.round(perTrajectory1) },
    intakeTwoAtATime: { n: two.length, ...s2, wallPerSubmissionMs: Math.round(perTrajectory2) },
    buildItem: { n: itemMs.length, ...si },
    buildMergeMs: Math.round(mergeMs),
    agentnetEstimate: {
      trajectories: AGENTNET_TRAJECTORIES,
      intakeWorkerHours: Math.round(hours(perTrajectory1) * 10) / 10,
      buildWorkerHours: Math.round(hours(si.mean) * 10) / 10,
      workersForIntakeInOneHour: Math.ceil(hours(perTrajectory1)),
      workersForBuildInOneHour: Math.ceil(hours(si.mean)),
    },
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  await hub.close();
  t.cleanup();
  await rm(dir, { recursive: true, force: true });
}
