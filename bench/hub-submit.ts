// Benchmark: 50 annotators submitting small bundles to one embedded hub at once (issue 27):
// each submitter runs what `submit` does over HTTP — submissions:plan-upload, a PUT of every file
// to the folder store's presigned URL (served by the hub), submissions:register (the hub reads
// every file back against the manifest, then registers) — against a plain upload of the same
// bytes (presigned PUTs only, no plan, no verification, no registration) at the same
// concurrency. Prints both throughputs and their ratio (the issue aims at ≥ 0.9), the process's
// RSS over the hub run (hub and clients share this process), and the embedded hub's start time
// and memory (a new PGlite folder, migrations, the server listening).
//   npx tsx bench/hub-submit.ts     (BENCH_SUBMITTERS=50, BENCH_FILES=4, BENCH_FILE_KIB=256)
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiToken } from '../src/hub/auth/tokens';
import { insertUser, openHubDb, setUserRoles } from '../src/hub/db';
import { createHubServer } from '../src/hub/http';
import { openHubStorage } from '../src/hub/storage';
import {
  SUBMISSION_SCHEMA,
  manifestText,
  type SubmissionManifest,
} from '../src/services/upload/manifest';

const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 50);
const FILES = Number(process.env.BENCH_FILES ?? 4);
const FILE_BYTES = Number(process.env.BENCH_FILE_KIB ?? 256) * 1024;
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

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-hub-submit-'));
  try {
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const hub = await openHubDb({ data: dir }, { holder: 'bench', purpose: 'hub' });
    const store = await openHubStorage({ data: dir });
    const server = await createHubServer({ db: hub.db, store });
    const startMs = performance.now() - t0;
    const startRss = process.memoryUsage().rss;
    console.log(
      `embedded hub start (new PGlite folder + migrations + listen): ${(startMs / 1000).toFixed(2)} s, ` +
        `RSS ${(startRss / MIB).toFixed(0)} MiB (${(rss0 / MIB).toFixed(0)} MiB before)`,
    );
    const people: { name: string; token: string }[] = [];
    for (let i = 0; i < SUBMITTERS; i++) {
      const name = `bench-${i}`;
      const id = (await insertUser(hub.db, { name, passwordHash: '$argon2id$bench' }))!;
      await setUserRoles(hub.db, id, ['annotator']);
      const by = { actor: 'bench', actorUserId: null, client: 'cli' };
      people.push({
        name,
        token: (await createApiToken(hub.db, { userId: id, userName: name, name: 'b', by })).token,
      });
    }
    const bundles = people.map((p, i) => bundle(p.name, `rec-${i}`));
    const bytes = bundles.reduce(
      (n, b) => n + Object.values(b.files).reduce((m, f) => m + f.length, 0),
      0,
    );

    // plain: the same bytes PUT to presigned URLs, no plan, no verification, no registration
    const plainStart = performance.now();
    await Promise.all(
      bundles.map(async (b, i) => {
        for (const [p, data] of Object.entries(b.files)) {
          const req = await store.presignPut(`plain/${i}/${p}`, { sizeBytes: data.length });
          await put({ path: p, request: req }, data);
        }
      }),
    );
    const plainMs = performance.now() - plainStart;

    // through the hub, with RSS sampled
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(process.memoryUsage().rss), 50);
    const hubStart = performance.now();
    await Promise.all(
      bundles.map(async (b, i) => {
        const who = people[i]!;
        const plan = await call(server.url, who.token, 'submissions:plan-upload', {
          manifest: b.text,
        });
        for (const t of plan.uploads as Transfer[]) {
          await put(t, b.files[t.path]!);
        }
        await call(server.url, who.token, 'submissions:register', {
          recording: plan.recording,
          manifestSha256: plan.manifestSha256,
        });
      }),
    );
    const hubMs = performance.now() - hubStart;
    clearInterval(sampler);
    const mibs = (ms: number) => bytes / MIB / (ms / 1000);
    console.log(
      `${SUBMITTERS} submitters × ${FILES} files of ${FILE_BYTES / 1024} KiB ` +
        `(+ manifest), ${(bytes / MIB).toFixed(1)} MiB in all`,
    );
    console.log(
      `plain upload (presigned PUTs only): ${(plainMs / 1000).toFixed(2)} s, ${mibs(plainMs).toFixed(1)} MiB/s`,
    );
    console.log(
      `through the hub (plan + PUTs + verify + register): ${(hubMs / 1000).toFixed(2)} s, ` +
        `${mibs(hubMs).toFixed(1)} MiB/s — ratio ${(plainMs / hubMs).toFixed(2)}`,
    );
    console.log(
      `RSS over the hub run: first ${(rss[0]! / MIB).toFixed(0)} MiB, max ` +
        `${(Math.max(...rss) / MIB).toFixed(0)} MiB, last ${(rss.at(-1)! / MIB).toFixed(0)} MiB ` +
        `(${rss.length} samples)`,
    );
    await server.close();
    await store.close();
    await hub.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
