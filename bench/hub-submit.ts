// Benchmark: 50 annotators submitting small bundles to one hub at once (issue 27): each
// submitter runs what `submit` does over HTTP — submissions:plan-upload, a PUT of every file to
// its presigned URL (with the manifest's MD5 as Content-MD5, as `submit` sends it),
// submissions:register (the hub checks every file against the manifest, then registers) —
// against a plain upload of the same bytes (the same presigned PUTs of the same store only, no
// plan, no verification, no registration) at the same concurrency. Rounds alternate plain and
// hub runs (the machine's load shifts between them); prints each round, the median ratio (the
// issue aims at ≥ 0.9), the time each phase took per submitter, the process's RSS over each hub
// run (hub and clients share this process), and the hub's start time and memory. With
// PostgreSQL the hub has its job layer as `hub --database` has (pg-boss: each registration
// enqueues the version's intake, which `worker` processes elsewhere run; none runs here), so
// registration checks ETags against the manifest's MD5s and leaves the SHA-256s to the intake.
// The embedded hub runs without one (its own intake runner would take the bench's CPU).
//   npx tsx bench/hub-submit.ts                 embedded: PGlite + the folder store
//   BENCH_BACKEND=postgres npx tsx bench/hub-submit.ts
//                                               PostgreSQL 15 + Swift's S3 (started as the
//                                               tests start them: tests/helpers/postgres.ts,
//                                               tests/helpers/swift.ts)
//   BENCH_SUBMITTERS=50 BENCH_FILES=4 BENCH_FILE_KIB=256 BENCH_ROUNDS=3
//   BENCH_PROFILE=FILE: a CPU profile of the last hub run (open it in Chrome's DevTools)
//   BENCH_JOBS=0 (PostgreSQL): no job layer, registration reads every SHA-256 back
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiToken } from '../src/hub/auth/tokens';
import type { HubRootDb } from '../src/hub/db';
import { insertUser, openHubDb, setUserRoles } from '../src/hub/db';
import { createHubServer } from '../src/hub/http';
import { openJobEngine, type JobEngine } from '../src/hub/jobs/engine';
import { openHubStorage, type HubObjectStore } from '../src/hub/storage';
import {
  SUBMISSION_SCHEMA,
  manifestText,
  type SubmissionManifest,
} from '../src/services/upload/manifest';
import { startPostgres } from '../tests/helpers/postgres';
import { startSwift } from '../tests/helpers/swift';

const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 50);
const FILES = Number(process.env.BENCH_FILES ?? 4);
const FILE_BYTES = Number(process.env.BENCH_FILE_KIB ?? 256) * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BACKEND = process.env.BENCH_BACKEND === 'postgres' ? 'postgres' : 'embedded';
const MIB = 1024 * 1024;

type Transfer = { path: string; request: { url: string; headers: Record<string, string> } };

function bundle(annotator: string, recordingId: string) {
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < FILES; i++) {
    files[`files/part-${i}.bin`] = randomBytes(FILE_BYTES);
  }
  const manifest: SubmissionManifest = {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: 1,
    recordingId,
    episodeId: `ep-${recordingId}`,
    task: `bench ${recordingId}`,
    platform: { os: 'linux' } as SubmissionManifest['platform'],
    toolVersion: 'bench',
    librarySchemaVersion: 1,
    annotator,
    createdAt: new Date().toISOString(),
    submittedAt: new Date().toISOString(),
    stepCount: 1,
    files: Object.entries(files).map(([p, b]) => ({
      path: p,
      sizeBytes: b.length,
      sha256: createHash('sha256').update(b).digest('hex'),
      md5: createHash('md5').update(b).digest('hex'),
      role: 'file' as const,
    })),
    totals: { files: FILES, bytes: FILES * FILE_BYTES },
  };
  const text = manifestText(manifest);
  const all: Record<string, Buffer> = { ...files, 'manifest.json': Buffer.from(text) };
  return { files: all, text };
}

async function call(url: string, token: string, method: string, input: unknown) {
  const res = await fetch(`${url}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { ok: boolean; value?: unknown; error?: unknown };
  if (!body.ok) {
    throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  }
  return body.value as Record<string, unknown>;
}

async function put(t: Transfer, bytes: Buffer): Promise<void> {
  const res = await fetch(t.request.url, {
    method: 'PUT',
    headers: t.request.headers,
    body: bytes,
  });
  if (!res.ok) {
    throw new Error(`PUT ${t.path}: ${res.status} ${await res.text()}`);
  }
}

/** The hub under test: its database, store and job layer, and how to take it down. */
type Backend = {
  db: HubRootDb;
  store: HubObjectStore;
  jobs?: JobEngine;
  description: string;
  close: () => Promise<void>;
};

async function embeddedBackend(dir: string): Promise<Backend> {
  const hub = await openHubDb({ data: dir }, { holder: 'bench', purpose: 'hub' });
  const store = await openHubStorage({ data: dir });
  return {
    db: hub.db,
    store,
    description: 'embedded (PGlite + the folder store)',
    close: async () => {
      await store.close();
      await hub.close();
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const [pg, swift] = await Promise.all([startPostgres(), startSwift()]);
  try {
    const bucket = 'bench-hub';
    const { S3Client, CreateBucketCommand } = await import('@aws-sdk/client-s3');
    const s3 = new S3Client({
      endpoint: swift.endpoint,
      region: swift.region,
      credentials: swift.credentials,
      forcePathStyle: true,
    });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    s3.destroy();
    const hub = await openHubDb(
      { url: await pg.createDatabase() },
      { holder: 'bench', purpose: 'hub', maxConnections: 25 },
    );
    // the hub reads S3 credentials from its environment (AWS_*), as `hub --storage` does
    Object.assign(process.env, swift.env);
    const store = await openHubStorage({
      url: `s3://${bucket}/team`,
      endpoint: swift.endpoint,
      pathStyle: true,
    });
    // as `hub --database` opens it: the hub enqueues, workers elsewhere run the jobs
    const jobs =
      process.env.BENCH_JOBS === '0' ? undefined : await openJobEngine({ database: hub });
    return {
      db: hub.db,
      store,
      ...(jobs ? { jobs } : {}),
      description:
        'PostgreSQL 15 (fsync off, 25-connection pool) + Swift s3api' +
        (jobs ? ', job layer (intakes enqueued, no worker)' : ', no job layer'),
      close: async () => {
        await jobs?.stop({ timeoutMs: 1000 });
        await store.close();
        await hub.close();
        await Promise.all([pg.stop(), swift.stop()]);
      },
    };
  } catch (e) {
    await Promise.all([pg.stop(), swift.stop()]);
    throw e;
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-hub-submit-'));
  try {
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const backend = BACKEND === 'postgres' ? await postgresBackend() : await embeddedBackend(dir);
    const { db, store, jobs } = backend;
    const server = await createHubServer({ db, store, ...(jobs ? { jobs } : {}) });
    const startMs = performance.now() - t0;
    const startRss = process.memoryUsage().rss;
    console.log(
      `${backend.description}: hub start (a new database + migrations + listen` +
        `${BACKEND === 'postgres' ? ', PostgreSQL and Swift started too' : ''}): ` +
        `${(startMs / 1000).toFixed(2)} s, RSS ${(startRss / MIB).toFixed(0)} MiB ` +
        `(${(rss0 / MIB).toFixed(0)} MiB before)`,
    );
    const people: { name: string; token: string }[] = [];
    for (let i = 0; i < SUBMITTERS; i++) {
      const name = `bench-${i}`;
      const id = (await insertUser(db, { name, passwordHash: '$argon2id$bench' }))!;
      await setUserRoles(db, id, ['annotator']);
      const by = { actor: 'bench', actorUserId: null, client: 'cli' };
      people.push({
        name,
        token: (await createApiToken(db, { userId: id, userName: name, name: 'b', by })).token,
      });
    }
    const phases = { plan: 0, puts: 0, register: 0 };
    const rss: number[] = [];
    const rssRounds: string[] = [];
    const ratios: number[] = [];
    // CPU time of this process (hub and clients) over each run: less swayed by the machine's
    // other load than wall time; with PostgreSQL + Swift their CPU is not in it
    const cpuRatios: number[] = [];
    const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
    let bytes = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const bundles = people.map((p, i) => bundle(p.name, `rec-${round}-${i}`));
      bytes = bundles.reduce(
        (n, b) => n + Object.values(b.files).reduce((m, f) => m + f.length, 0),
        0,
      );

      // plain: the same bytes PUT to presigned URLs, no plan, no verification, no registration
      const plainStart = performance.now();
      const plainCpu = process.cpuUsage();
      await Promise.all(
        bundles.map(async (b, i) => {
          for (const [p, data] of Object.entries(b.files)) {
            const req = await store.presignPut(`plain/${round}/${i}/${p}`, {
              sizeBytes: data.length,
              md5Hex: createHash('md5').update(data).digest('hex'),
            });
            await put({ path: p, request: req }, data);
          }
        }),
      );
      const plainMs = performance.now() - plainStart;
      const plainCpuMs = cpuMs(process.cpuUsage(plainCpu));

      // through the hub, with RSS sampled
      const roundRss: number[] = [];
      const sampler = setInterval(() => roundRss.push(process.memoryUsage().rss), 50);
      const profiler = process.env.BENCH_PROFILE && round === ROUNDS ? new Session() : null;
      if (profiler) {
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.start');
      }
      const hubStart = performance.now();
      const hubCpu = process.cpuUsage();
      await Promise.all(
        bundles.map(async (b, i) => {
          const who = people[i]!;
          let t = performance.now();
          const lap = (phase: keyof typeof phases) => {
            const now = performance.now();
            phases[phase] += now - t;
            t = now;
          };
          // as `submit` sends them: a manifest made now (fresh), its text again at registration
          const plan = await call(server.url, who.token, 'submissions:plan-upload', {
            manifest: b.text,
            fresh: true,
          });
          lap('plan');
          for (const t of plan.uploads as Transfer[]) {
            await put(t, b.files[t.path]!);
          }
          lap('puts');
          await call(server.url, who.token, 'submissions:register', {
            recording: plan.recording,
            manifestSha256: plan.manifestSha256,
            manifest: b.text,
          });
          lap('register');
        }),
      );
      const hubMs = performance.now() - hubStart;
      const hubCpuMs = cpuMs(process.cpuUsage(hubCpu));
      cpuRatios.push(plainCpuMs / hubCpuMs);
      if (profiler) {
        const { profile } = await profiler.post('Profiler.stop');
        await writeFile(process.env.BENCH_PROFILE!, JSON.stringify(profile));
        profiler.disconnect();
      }
      clearInterval(sampler);
      roundRss.push(process.memoryUsage().rss);
      rss.push(...roundRss);
      rssRounds.push(
        `${(roundRss[0]! / MIB).toFixed(0)}/${(Math.max(...roundRss) / MIB).toFixed(0)}/` +
          `${(roundRss.at(-1)! / MIB).toFixed(0)}`,
      );
      const mibs = (ms: number) => bytes / MIB / (ms / 1000);
      ratios.push(plainMs / hubMs);
      console.log(
        `round ${round}: plain ${(plainMs / 1000).toFixed(2)} s (${mibs(plainMs).toFixed(1)} ` +
          `MiB/s), through the hub ${(hubMs / 1000).toFixed(2)} s (${mibs(hubMs).toFixed(1)} ` +
          `MiB/s): ratio ${(plainMs / hubMs).toFixed(2)}; CPU of this process ` +
          `${(plainCpuMs / 1000).toFixed(2)} s vs ${(hubCpuMs / 1000).toFixed(2)} s`,
      );
    }
    const per = (ms: number) => (ms / SUBMITTERS / ROUNDS).toFixed(0);
    console.log(
      `${SUBMITTERS} submitters × ${FILES} files of ${FILE_BYTES / 1024} KiB (+ manifest), ` +
        `${(bytes / MIB).toFixed(1)} MiB a round; median ratio ${median(ratios).toFixed(2)} ` +
        `(${ratios.map((r) => r.toFixed(2)).join(', ')}); CPU ratio (plain / hub CPU of this ` +
        `process) median ${median(cpuRatios).toFixed(2)}`,
    );
    console.log(
      `  mean per submitter: plan ${per(phases.plan)} ms, PUTs ${per(phases.puts)} ms, ` +
        `register (verify + record) ${per(phases.register)} ms`,
    );
    console.log(
      `RSS over the hub runs: first ${(rss[0]! / MIB).toFixed(0)} MiB, max ` +
        `${(Math.max(...rss) / MIB).toFixed(0)} MiB, last ${(rss.at(-1)! / MIB).toFixed(0)} MiB ` +
        `(${rss.length} samples); first/max/last MiB by round: ${rssRounds.join(', ')}`,
    );
    await server.close();
    await backend.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
