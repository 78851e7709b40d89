// The handlers under the real job layer (pg-boss on the embedded PGlite, src/hub/jobs/worker.ts)
// behind the hub's HTTP API: submissions registered over HTTP are taken in by the intake job
// before any reviewer sees them; a poisoned one (its manifest lies about the recording it
// carries) comes back to its annotator as intake-failed with the reason in submissions:mine
// (what `sync` prints) and its job is in the admin's dead-letter list (jobs:dead) with the
// reason after one attempt, while the good ones — and one sent after it — move on through the
// queue; the admin's retry of it re-checks nothing and it comes back; an admin's dataset:build
// runs one build-item job per accepted submission and the merge, and dataset:status hands out
// the finished dataset's files, each matching the manifest.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_VERSION } from '../../../src/cli/version';
import { addUser, localActor } from '../../../src/hub/accounts/accounts';
import { createApiToken } from '../../../src/hub/auth/tokens';
import { findUserByName, openHubDb, type HubDatabase } from '../../../src/hub/db';
import { createHubServer, type HubServerHandle } from '../../../src/hub/http';
import { createHandlers } from '../../../src/hub/jobs/handlers';
import { startJobRunner, type JobRunner } from '../../../src/hub/jobs/worker';
import { FolderObjectStore } from '../../../src/hub/storage';
import { saveCredentials } from '../../../src/services/team/credentials';
import { runCli } from '../../helpers/cli';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, listObjects, objectSha256, rawClient } from '../../services/upload/helpers';
import { request } from '../http/hub-fixture';
import { bundleTemplate, makeBundle, storeBundle, type BundleTemplate } from './bundle-fixture';

let dir: string;
let hub: HubDatabase;
let store: FolderObjectStore;
let runner: JobRunner;
let server: HubServerHandle;
let template: BundleTemplate;
let swift: Swift;
const tokens: Record<string, string> = {};

const call = async (who: string, method: string, body: unknown = {}) => {
  const r = await request(server.url, method, body, { token: tokens[who]! });
  if (!r.body.ok) {
    throw new Error(`${method}: ${JSON.stringify(r.body.error)}`);
  }
  return r.body.value as Record<string, unknown>;
};

async function until<T>(what: string, probe: () => Promise<T | null>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== null) {
      return v;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-jobs-e2e-'));
  [hub, template, swift] = await Promise.all([
    openHubDb({ data: path.join(dir, 'hub') }),
    // the example's 10-second clip: the intakes hash it, the dataset build decodes its keyframes
    bundleTemplate({ clip: true }),
    startSwift(),
  ]);
  store = new FolderObjectStore({ dir: path.join(dir, 'objects'), secret: randomBytes(32) });
  const by = localActor('cli');
  for (const [name, role] of [
    ['ann', 'annotator'],
    ['rev', 'reviewer'],
    ['boss', 'admin'],
  ] as const) {
    await addUser(hub.db, { name, roles: [role], by });
    const user = await findUserByName(hub.db, name);
    tokens[name] = (
      await createApiToken(hub.db, { userId: user!.id, userName: name, name: 't', by })
    ).token;
  }
  runner = await startJobRunner({
    database: hub,
    handlers: (engine) =>
      createHandlers({
        db: hub.db,
        store,
        enqueue: async (q, p, o) => {
          await engine.enqueue(q, p, o);
        },
        appVersion: APP_VERSION,
      }),
  });
  server = await createHubServer({ db: hub.db, store, jobs: runner.engine });
}, 180_000);

afterAll(async () => {
  await server?.close();
  await runner?.stop({ timeoutMs: 2000 });
  await hub?.close();
  template?.cleanup();
  await swift?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function register(b: Awaited<ReturnType<typeof makeBundle>>) {
  const manifestSha256 = await storeBundle(store, b);
  return await call('ann', 'submissions:register', { recording: b.recordingId, manifestSha256 });
}

describe('jobs end to end (pg-boss on PGlite, the hub over HTTP)', () => {
  it('intake before review: a poisoned submission goes back to its annotator with the reason and into the dead-letter list, the good ones move on; a dataset build of the accepted ones', async () => {
    const good = [
      await makeBundle(template, { annotator: 'ann' }),
      await makeBundle(template, { annotator: 'ann' }),
    ];
    // the manifest names one recording, the rows it carries are another's: the bytes match
    // their hashes (registration accepts it), the bundle lies
    const liar = await makeBundle(template, {
      annotator: 'ann',
      edit: (key, text) =>
        key === 'raw/recording.json'
          ? JSON.stringify({ ...(JSON.parse(text) as object), id: randomUUID() })
          : text,
    });
    const poisoned = await register(liar);
    expect(poisoned).toMatchObject({ status: 'intake', isNew: true });
    const registered = [await register(good[0]!), await register(good[1]!)];
    const mine = await until('every intake', async () => {
      const { submissions } = (await call('ann', 'submissions:mine')) as {
        submissions: {
          id: number;
          status: string;
          intake: { status: string; reasons: { code: string; message: string }[] } | null;
        }[];
      };
      return submissions.every((s) => s.intake && s.intake.status !== 'pending')
        ? submissions
        : null;
    });
    const byId = new Map(mine.map((s) => [s.id, s]));
    expect(byId.get(poisoned.id as number)).toMatchObject({
      status: 'intake-failed',
      intake: { status: 'failed', reasons: [expect.objectContaining({ code: 'PULL_INVALID' })] },
    });
    for (const r of registered) {
      expect(byId.get(r.id as number)).toMatchObject({
        status: 'submitted',
        intake: { status: 'passed', reasons: [] },
      });
    }
    // the admin's dead-letter list: the poisoned intake, with its reason, after one attempt (a
    // refusal wastes no retries); nothing else in it
    type Dead = {
      id: string;
      queue: string;
      key: string;
      code: string | null;
      error: string;
      reasons: { code: string; message: string }[];
      attempts: number;
    };
    const deadList = async () => ((await call('boss', 'jobs:dead')) as { jobs: Dead[] }).jobs;
    const dead = await deadList();
    expect(dead).toEqual([
      expect.objectContaining({
        queue: 'intake',
        key: `intake:${String(poisoned.id)}@1`,
        code: 'INTAKE_FAILED',
        error: expect.stringContaining('PULL_INVALID') as string,
        reasons: [expect.objectContaining({ code: 'PULL_INVALID' })],
        attempts: 1,
      }),
    ]);
    // the queue keeps moving: a submission sent after the refusal is taken in
    const after = await register(await makeBundle(template, { annotator: 'ann' }));
    registered.push(after);
    await until('the intake after the dead letter', async () => {
      const { submissions } = (await call('ann', 'submissions:mine')) as {
        submissions: { id: number; status: string }[];
      };
      return submissions.find((s) => s.id === after.id && s.status === 'submitted') ?? null;
    });
    const { queues } = (await call('boss', 'jobs:status')) as {
      queues: { name: string; done: number; failed: number }[];
    };
    expect(queues.find((q) => q.name === 'intake')).toMatchObject({ done: 3, failed: 1 });
    // the admin's retry: one more attempt that re-checks nothing (the version's intake is
    // decided) and refuses again with the same reason; the annotator's view is unchanged
    expect(await call('boss', 'jobs:retry', { id: dead[0]!.id })).toMatchObject({
      key: `intake:${String(poisoned.id)}@1`,
    });
    const back = await until('the retried refusal back in the list', async () => {
      const d = await deadList();
      return d.length === 1 && d[0]!.attempts === 2 ? d[0]! : null;
    });
    expect(back).toMatchObject({ code: 'INTAKE_FAILED', reasons: dead[0]!.reasons });
    const { submissions: mineAgain } = (await call('ann', 'submissions:mine')) as {
      submissions: { id: number; status: string; intake: { reasons: unknown[] } }[];
    };
    expect(mineAgain.find((s) => s.id === poisoned.id)).toMatchObject({
      status: 'intake-failed',
      intake: { reasons: byId.get(poisoned.id as number)!.intake!.reasons },
    });
    // what the annotator's `sync` prints: the refused one with its reason and fix
    const annLib = path.join(dir, 'ann-library');
    await saveCredentials(annLib, {
      url: server.url,
      user: 'ann',
      tokenId: 0,
      token: tokens.ann!,
      createdAtMs: Date.now(),
    });
    const synced = await runCli(['sync', '--library', annLib]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toMatch(
      new RegExp(`${String(poisoned.id)} \\S+ v1 intake-failed\\n {4}PULL_INVALID: .+ — Submit`),
    );
    // the reviewer gets the two good ones, never the poisoned one, and accepts them
    const leased: number[] = [];
    for (;;) {
      const { submission } = (await call('rev', 'review:next')) as {
        submission: { id: number; version: number } | null;
      };
      if (!submission) {
        break;
      }
      leased.push(submission.id);
      await call('rev', 'review:verdict', {
        id: submission.id,
        version: submission.version,
        verdict: 'accept',
      });
    }
    expect(leased.sort()).toEqual(registered.map((r) => r.id as number).sort());

    // a dataset of the accepted ones, built by the jobs
    const started = await call('boss', 'dataset:build', { format: 'agentnet-jsonl' });
    expect(started).toMatchObject({ submissions: 3, format: 'agentnet-jsonl' });
    const done = await until('the build', async () => {
      const { build } = (await call('boss', 'dataset:status', { id: started.build })) as {
        build: { status: string; manifest: string | null; done: number };
      };
      return build.status === 'done' || build.status === 'failed' ? build : null;
    });
    expect(done).toMatchObject({ status: 'done', done: 3 });
    const { files } = (await call('boss', 'dataset:status', {
      id: started.build,
      files: true,
    })) as {
      files: {
        path: string;
        sizeBytes: number;
        request: { url: string; headers: Record<string, string> };
      }[];
    };
    expect(files[0]!.path).toBe('manifest.json');
    const fetched = new Map<string, Buffer>();
    for (const f of files) {
      const res = await fetch(f.request.url, { headers: f.request.headers });
      expect(res.status, f.path).toBe(200);
      fetched.set(f.path, Buffer.from(await res.arrayBuffer()));
    }
    const manifestBytes = fetched.get('manifest.json')!;
    expect(createHash('sha256').update(manifestBytes).digest('hex')).toBe(done.manifest);
    const manifest = JSON.parse(manifestBytes.toString()) as {
      files: { path: string; sha256: string }[];
      submissions: { id: number }[];
    };
    expect(manifest.submissions.map((s) => s.id)).toEqual(
      registered.map((r) => r.id as number).sort((a, b) => a - b),
    );
    for (const f of manifest.files) {
      expect(createHash('sha256').update(fetched.get(f.path)!).digest('hex'), f.path).toBe(
        f.sha256,
      );
    }
    const { builds } = (await call('boss', 'dataset:list')) as { builds: { build: number }[] };
    expect(builds.map((b) => b.build)).toContain(started.build);
    // an annotator may not build datasets
    const refused = await request(server.url, 'dataset:list', {}, { token: tokens.ann! });
    expect(refused.status).toBe(403);

    // the CLI, signed in as the admin: build again, wait, download into a folder → the same
    // manifest (the same inputs give the same bytes), every file there
    const libDir = path.join(dir, 'admin-library');
    await saveCredentials(libDir, {
      url: server.url,
      user: 'boss',
      tokenId: 0,
      token: tokens.boss!,
      createdAtMs: Date.now(),
    });
    const outDir = path.join(dir, 'dataset-out');
    const cli = await runCli([
      'dataset',
      'build',
      '--format',
      'agentnet-jsonl',
      '--out',
      outDir,
      '--json',
      '--library',
      libDir,
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    const printed = JSON.parse(cli.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ status: 'done', submissions: 3, manifest: done.manifest });
    expect(printed.build).not.toBe(started.build);
    const local = await readFile(path.join(outDir, 'manifest.json'));
    expect(local.equals(manifestBytes)).toBe(true);
    for (const f of manifest.files) {
      const body = await readFile(path.join(outDir, ...f.path.split('/')));
      expect(createHash('sha256').update(body).digest('hex'), f.path).toBe(f.sha256);
    }
    // --out s3://: the same dataset copied to an S3-compatible store (Swift's s3api), every
    // object equal to the manifest's entry, manifest.json byte for byte
    const client = rawClient(swift);
    await createBucket(client, 'datasets');
    const copied = await runCli(
      [
        'dataset',
        'status',
        String(printed.build),
        '--out',
        's3://datasets/release-1',
        '--path-style',
        '--json',
        '--library',
        libDir,
      ],
      swift.env,
    );
    expect(copied.code, copied.stderr).toBe(0);
    expect(JSON.parse(copied.stdout)).toMatchObject({
      status: 'done',
      out: 's3://datasets/release-1',
      files: manifest.files.length + 1,
    });
    const objects = await listObjects(client, 'datasets', 'release-1/');
    expect([...objects.keys()].sort()).toEqual(
      ['manifest.json', ...manifest.files.map((f) => f.path)].map((p) => `release-1/${p}`).sort(),
    );
    for (const f of manifest.files) {
      expect(await objectSha256(client, 'datasets', `release-1/${f.path}`), f.path).toBe(f.sha256);
    }
    expect(await objectSha256(client, 'datasets', 'release-1/manifest.json')).toBe(
      createHash('sha256').update(manifestBytes).digest('hex'),
    );
    client.destroy();

    const listed = await runCli(['dataset', 'list', '--json', '--library', libDir]);
    expect((JSON.parse(listed.stdout) as { builds: unknown[] }).builds).toHaveLength(2);
    const status = await runCli(['dataset', 'status', String(started.build), '--library', libDir]);
    expect(status.stdout).toContain(`build ${String(started.build)} done: 3/3 exported`);
  }, 300_000);
});
