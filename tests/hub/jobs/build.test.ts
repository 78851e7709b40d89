// The dataset build's handlers, run directly (no engine) on PGlite and the folder store: 50
// accepted submissions (copies of the bundle of the example's 10-second clip, each with the same
// label edit; the video is the same bytes, nothing re-encoded; each build decodes every
// submission's keyframes, hence the clip) → one build-item per submission, then the
// merge once the last item is in. The merged dataset equals, byte for byte, the CLI `export` of
// the same 50 recordings (restored into one library) with the same edits; built twice, the
// bytes (manifest included) are identical. A submission that cannot be exported is left out and
// named in the datasheet; rerunning an item or the merge changes nothing.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_VERSION } from '../../../src/cli/version';
import {
  findBuild,
  insertUser,
  openHubDb,
  setSubmissionStatus,
  setUserRoles,
  type HubDatabase,
} from '../../../src/hub/db';
import { startDatasetBuild } from '../../../src/hub/jobs/datasets';
import {
  buildOutPrefix,
  createBuildItemHandler,
  createBuildMergeHandler,
  type DatasetManifest,
} from '../../../src/hub/jobs/handlers';
import type { HubJobQueue } from '../../../src/hub/jobs/queues';
import { FolderObjectStore } from '../../../src/hub/storage';
import { openLibrary } from '../../../src/services/library/library';
import { parseManifest } from '../../../src/services/upload/manifest';
import { importBundle } from '../../../src/services/upload/pull';
import { runCli } from '../../helpers/cli';
import {
  bundleTemplate,
  makeBundle,
  submitBundle,
  testContext,
  type BundleTemplate,
} from './bundle-fixture';

const N = Number(process.env.CUA_TEST_BUILD_N ?? 50);
let dir: string;
let hub: HubDatabase;
let store: FolderObjectStore;
let template: BundleTemplate;
const submitted: { submissionId: number; recordingId: string; prefix: string }[] = [];

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hub-build-'));
  [hub, template] = await Promise.all([
    openHubDb({ data: path.join(dir, 'hub') }),
    bundleTemplate({ relabel: 'open the display settings (edited)', clip: true }),
  ]);
  store = new FolderObjectStore({ dir: path.join(dir, 'objects'), secret: randomBytes(32) });
  const id = await insertUser(hub.db, { name: 'ann', passwordHash: '$argon2id$test-not-a-hash' });
  await setUserRoles(hub.db, id!, ['annotator']);
  for (let i = 0; i < N; i += 1) {
    const b = await makeBundle(template, { annotator: 'ann' });
    const r = await submitBundle(hub.db, store, b, { userId: id!, name: 'ann' });
    await setSubmissionStatus(hub.db, r.submissionId, 'accepted');
    submitted.push({
      submissionId: r.submissionId,
      recordingId: b.recordingId,
      prefix: `ann/${b.recordingId}/${createHash('sha256').update(b.text).digest('hex')}`,
    });
  }
}, 300_000);

afterAll(async () => {
  await hub?.close();
  template?.cleanup();
  await fs.rm(dir, { recursive: true, force: true });
});

// Runs a build the way the engine would: every enqueued job once, in order, until none is left.
async function build(format: 'agentnet-jsonl' | 'standardized' | 'agentnet-raw') {
  const queue: { name: HubJobQueue; payload: unknown; key: string }[] = [];
  const keys = new Set<string>();
  const enqueue = (name: string, payload: unknown, { key }: { key: string }) => {
    if (!keys.has(key)) {
      keys.add(key);
      queue.push({ name: name as HubJobQueue, payload, key });
    }
    return Promise.resolve();
  };
  const deps = { db: hub.db, store, enqueue, appVersion: APP_VERSION };
  const handlers = {
    'build-item': createBuildItemHandler(deps),
    'build-merge': createBuildMergeHandler(deps),
  };
  const started = await startDatasetBuild(deps, {
    format,
    filters: { statuses: ['accepted'] },
    createdBy: null,
  });
  const ran: string[] = [];
  for (let job = queue.shift(); job; job = queue.shift()) {
    const handler = handlers[job.name as keyof typeof handlers] as (
      p: unknown,
      c: ReturnType<typeof testContext>,
    ) => Promise<unknown>;
    await handler(job.payload, testContext(job.key));
    ran.push(job.name);
  }
  return { id: started.id, ran, handlers };
}

async function readTree(root: string, rel = ''): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await fs.readdir(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      for (const [k, v] of await readTree(root, p)) {
        out.set(k, v);
      }
    } else {
      out.set(p, await fs.readFile(path.join(root, p)));
    }
  }
  return out;
}

describe('dataset build', () => {
  it(`${N} accepted submissions → the same bytes as the CLI export of the same recordings; built twice → identical`, async () => {
    const first = await build('agentnet-jsonl');
    expect(first.ran).toEqual([...Array<string>(N).fill('build-item'), 'build-merge']);
    const b1 = await findBuild(hub.db, first.id);
    expect(b1).toMatchObject({ status: 'done', total: N, done: N, failed: 0 });
    const out1 = await readTree(path.join(dir, 'objects', buildOutPrefix(first.id)));
    const manifest = JSON.parse(out1.get('manifest.json')!.toString()) as DatasetManifest;
    expect(manifest.submissions.map((s) => s.id)).toEqual(submitted.map((s) => s.submissionId));
    // every file of the manifest is there with its size and SHA-256
    for (const f of manifest.files) {
      const body = out1.get(f.path);
      expect(body?.length, f.path).toBe(f.sizeBytes);
      expect(createHash('sha256').update(body!).digest('hex'), f.path).toBe(f.sha256);
    }
    expect(b1!.manifestSha256).toBe(
      createHash('sha256').update(out1.get('manifest.json')!).digest('hex'),
    );
    const sheet = JSON.parse(out1.get('datasheet.json')!.toString()) as Record<string, unknown>;
    expect(sheet).toMatchObject({ trajectories: N, byOs: { win32: N }, leftOut: [] });

    // the reference: the same recordings restored into one library, exported by the CLI
    const libDir = path.join(dir, 'reference-library');
    const lib = openLibrary(libDir);
    try {
      for (const s of submitted) {
        const text = await fs.readFile(
          path.join(dir, 'objects', ...s.prefix.split('/'), 'manifest.json'),
          'utf8',
        );
        await importBundle(
          lib,
          { where: s.prefix, get: (p) => store.get(`${s.prefix}/${p}`) },
          parseManifest(text, s.prefix),
          { retry: (op) => op(), call: {}, concurrency: 4, onBytes: () => undefined },
        );
      }
    } finally {
      lib.close();
    }
    const refDir = path.join(dir, 'reference-export');
    const cli = await runCli([
      'export',
      ...submitted.map((s) => s.recordingId),
      '--format',
      'agentnet-jsonl',
      '--out',
      refDir,
      '--library',
      libDir,
      '--json',
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    const ref = await readTree(refDir);
    const built = new Map(
      [...out1].filter(([k]) => k !== 'manifest.json' && k !== 'datasheet.json'),
    );
    expect([...built.keys()].sort()).toEqual([...ref.keys()].sort());
    for (const [k, v] of ref) {
      expect(built.get(k)!.equals(v), k).toBe(true);
    }
    // the edit is in the export
    expect(ref.get('agentnet.jsonl')!.toString()).toContain('open the display settings (edited)');

    // built again from the same inputs: the very same bytes, manifest included
    const second = await build('agentnet-jsonl');
    const out2 = await readTree(path.join(dir, 'objects', buildOutPrefix(second.id)));
    expect([...out2.keys()].sort()).toEqual([...out1.keys()].sort());
    for (const [k, v] of out1) {
      expect(out2.get(k)!.equals(v), k).toBe(true);
    }
    // a rerun of the merge (the same key again) returns the stored result and writes nothing
    const again = await second.handlers['build-merge'](
      { buildId: second.id },
      testContext(`build-merge:${second.id}`),
    );
    expect(again.manifestSha256).toBe(b1!.manifestSha256);
  }, 600_000);

  it('selects by status, date, OS and task tag; nothing selected → an empty dataset with a manifest', async () => {
    // three submissions recorded for a task tagged "display" (migration 13's tasks)
    const task = await sql<{ id: number }>`
      INSERT INTO tasks (instruction, instruction_key, platform, target, tags)
      VALUES ('Change the display settings', 'change the display settings', 'win', 10,
              '["display","settings"]'::jsonb)
      RETURNING id`.execute(hub.db);
    const tagged = submitted.slice(0, 3).map((s) => s.submissionId);
    await sql`UPDATE submissions SET task_id = ${task.rows[0]!.id}
              WHERE id = ANY(${tagged}::bigint[])`.execute(hub.db);
    const chosen = async (filters: Parameters<typeof startDatasetBuild>[1]['filters']) => {
      const queued: number[] = [];
      const b = await startDatasetBuild(
        {
          db: hub.db,
          store,
          enqueue: (name, payload) => {
            if (name === 'build-item') {
              queued.push((payload as { submissionId: number }).submissionId);
            }
            return Promise.resolve();
          },
        },
        { format: 'agentnet-jsonl', filters, createdBy: null },
      );
      expect(b.total).toBe(queued.length);
      return queued;
    };
    const all = submitted.map((s) => s.submissionId);
    expect(await chosen({ statuses: ['accepted'], tags: ['display'] })).toEqual(tagged);
    expect(await chosen({ statuses: ['accepted'], tags: ['nothing-has-it'] })).toEqual([]);
    expect(await chosen({ statuses: ['accepted'], os: ['windows'] })).toEqual(all);
    expect(await chosen({ statuses: ['accepted'], os: ['mac', 'ubuntu'] })).toEqual([]);
    expect(await chosen({ statuses: ['submitted'] })).toEqual([]);
    expect(await chosen({ statuses: ['accepted'], sinceMs: Date.now() + 3_600_000 })).toEqual([]);
    expect(await chosen({ statuses: ['accepted'], untilMs: Date.now() + 3_600_000 })).toEqual(all);
    await expect(chosen({ statuses: ['accepted'], os: ['beos'] })).rejects.toMatchObject({
      code: 'INVALID_PAYLOAD',
    });
    // an empty build merges at once into a dataset with no trajectory
    const empty = await chosen({ statuses: ['rejected'] });
    expect(empty).toEqual([]);
    const merge = createBuildMergeHandler({ db: hub.db, store });
    const builds = await hub.db
      .selectFrom('dataset_builds')
      .select('id')
      .orderBy('id', 'desc')
      .execute();
    const r = await merge({ buildId: builds[0]!.id }, testContext('merge-empty'));
    expect(r).toMatchObject({ submissions: 0, files: 1 });
  }, 120_000);
});
