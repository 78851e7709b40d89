// The hub's `cot` job (issue 30 item 5, docs/cot.md "In team mode") on the embedded hub: a real
// server on PGlite with the folder store and the job layer (pg-boss on the same PGlite) running
// the cot handler against the OpenAI-compatible stub. With the setting off an accepted submission
// gets no job; an admin turns it on (`cot:settings`), the next accept enqueues
// `cot:<id>@<version>`, the job restores the bundle, applies the reviewer's edit log (a step
// marked incorrect is a prior judge), and stores derived/cot.json with one CoT step per
// trajectory step; a rerun answers it with no request; the dataset export path (build-item's)
// fills observation/thought/action/reflection from it; the API key is in no hub table or object.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJobVersion, findUserByName } from '../../../src/hub/db';
import { openJobEngine, type JobEngine } from '../../../src/hub/jobs/engine';
import { createCotHandler, type CotJobResult } from '../../../src/hub/jobs/handlers';
import { withBundleLibrary } from '../../../src/hub/jobs/handlers/bundle-library';
import {
  DERIVED_COT,
  restoreDerivedCot,
  type DerivedCot,
} from '../../../src/hub/jobs/handlers/cot';
import { applyReviewerEdits } from '../../../src/hub/jobs/handlers/reviewer-edits';
import { jobKeys } from '../../../src/hub/jobs/queues';
import { FolderObjectStore } from '../../../src/hub/storage';
import { readCotInputs } from '../../../src/services/cot/cot-inputs';
import { runExport } from '../../../src/services/export/export-service';
import { AGENTNET_JSONL_FILE } from '../../../src/services/export/format-agentnet-jsonl';
import {
  fence,
  startOpenAiStub,
  type OpenAiStub,
  type StubRequest,
} from '../../helpers/openai-stub';
import { startHubFixture, type HubFixture } from '../http/hub-fixture';
import {
  bundleTemplate,
  makeBundle,
  submitBundle,
  testContext,
  type BundleTemplate,
} from './bundle-fixture';

const KEY = 'sk-hub-cot-job-4f1d9c2e7a0b5e8d';

function answer(req: StubRequest) {
  const t = req.promptText;
  if (t.startsWith('Your task is to generate three components')) {
    return {
      text: `## Observation:\nA window.\n\n## Thought:\nI go on (request ${req.index}).\n\n## Action:\nClick it.`,
    };
  }
  if (t.startsWith('You will be given a task, agent last action')) {
    // the reviewer judged this step: the model only explains it
    return { text: fence({ reflection: 'The reviewer marked it.' }) };
  }
  if (t.startsWith('You are an judge')) {
    return {
      text: fence({
        last_step_correct: true,
        last_step_redundant: false,
        reflection: 'It worked.',
      }),
    };
  }
  return {
    text: JSON.stringify({
      task_completed: true,
      alignment_score: 9,
      efficiency_score: 8,
      reason: 'ok',
      actual_task: 'Change the display settings',
      natural_language_task: 'Change my display settings',
      task_difficulty: 4,
    }),
  };
}

let dir: string;
let stub: OpenAiStub;
let store: FolderObjectStore;
let template: BundleTemplate;
let fixture: HubFixture;
let engine: JobEngine | null = null;
let annotator: { userId: number; name: string };
const handlerDeps = () => ({
  db: fixture.hub.db,
  store,
  env: { CUA_COT_API_KEY: KEY },
});

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hub-cot-job-'));
  stub = await startOpenAiStub({ apiKey: KEY, models: ['stub-model'] });
  stub.fallback(answer);
  store = new FolderObjectStore({ dir: path.join(dir, 'objects'), secret: randomBytes(32) });
  template = await bundleTemplate();
  const lazy: Pick<JobEngine, 'enqueue' | 'counts' | 'dead' | 'retry' | 'find'> = {
    enqueue: (...a) => engine!.enqueue(...a),
    counts: () => engine!.counts(),
    dead: (o) => engine!.dead(o),
    retry: (id) => engine!.retry(id),
    find: (k) => engine!.find(k),
  };
  fixture = await startHubFixture({ jobs: lazy, store });
  engine = await openJobEngine({
    database: fixture.hub,
    timing: { heartbeatSeconds: 10, superviseSeconds: 1, pollSeconds: 0.5 },
  });
  await engine.work({ cot: createCotHandler(handlerDeps()) });
  const ann = await findUserByName(fixture.hub.db, 'ann');
  annotator = { userId: ann!.id, name: 'ann' };
}, 300_000);

afterAll(async () => {
  await engine?.stop({ timeoutMs: 1000 });
  await fixture?.close();
  await stub?.close();
  template?.cleanup();
  await fs.rm(dir, { recursive: true, force: true });
});

async function until<T>(what: string, fn: () => Promise<T | null>, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await fn();
    if (got) {
      return got;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Submits a new copy of the example bundle and has `rev` take it. */
async function submitAndLease(): Promise<{ id: number; prefix: string; rev: string }> {
  const r = await submitBundle(
    fixture.hub.db,
    store,
    await makeBundle(template, { annotator: 'ann' }),
    annotator,
  );
  const rev = await fixture.token('reviewer');
  const next = await fixture.call('review:next', {}, { token: rev });
  expect(next.body.value?.submission?.id, JSON.stringify(next.body)).toBe(r.submissionId);
  const version = await findJobVersion(fixture.hub.db, r.submissionId, 1);
  return { id: r.submissionId, prefix: version!.objectPrefix, rev };
}

async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(root, { withFileTypes: true })) {
    const p = path.join(root, e.name);
    out.push(...(e.isDirectory() ? await walk(p) : [p]));
  }
  return out;
}

describe('the cot job', () => {
  it('off: an accept enqueues nothing; on: the accept runs the CoT once, stored beside the version', async () => {
    // off (a new hub's setting)
    const a = await submitAndLease();
    const acceptA = await fixture.call(
      'review:verdict',
      { id: a.id, version: 1, verdict: 'accept' },
      { token: a.rev },
    );
    expect(acceptA.body.value).toMatchObject({ status: 'accepted' });
    expect(await engine!.find(jobKeys.cot(a.id, 1))).toBeNull();
    expect(await store.stat(`${a.prefix}/${DERIVED_COT}`)).toBeNull();

    // an admin turns it on; a reviewer may not
    const adm = await fixture.token('admin');
    const settings = { enabled: true, baseUrl: stub.baseUrl, model: 'stub-model' };
    const denied = await fixture.call('cot:settings', settings, { token: a.rev });
    expect(denied.status).toBe(403);
    const set = await fixture.call('cot:settings', settings, { token: adm });
    expect(set.body.value).toEqual({
      ...settings,
      maxCostPerTrajectory: null,
      pricePerMillion: null,
    });

    // the reviewer marks one step incorrect and accepts
    const b = await submitAndLease();
    const marked = await withBundleLibrary(store, b.prefix, async (x) => {
      const inputs = await readCotInputs(x.lib, x.recordingId, {
        workDir: path.join(x.dir, 'w'),
      });
      return inputs.loaded.steps[inputs.trajectory[2]!.imageIndex]!.id;
    });
    const before = stub.requests.length;
    const accept = await fixture.call(
      'review:verdict',
      {
        id: b.id,
        version: 1,
        verdict: 'accept',
        editLog: [
          {
            atMs: Date.UTC(2026, 0, 2),
            author: 'rev',
            edit: { op: 'mark', stepId: marked, mark: 'incorrect' },
          },
        ],
      },
      { token: b.rev },
    );
    expect(accept.body.value).toMatchObject({ status: 'accepted' });
    const key = jobKeys.cot(b.id, 1);
    const job = await until('the cot job done', async () => {
      const j = await engine!.find(key);
      if (j?.state === 'retry' || j?.state === 'failed') {
        throw new Error(JSON.stringify(j.output));
      }
      return j?.state === 'completed' ? j : null;
    });
    const result = job.output as CotJobResult;
    expect(result).toMatchObject({ outcome: 'stored', path: DERIVED_COT });

    // the stored CoT: one step per trajectory step (the reviewed trajectory), the reviewer's
    // mark kept as the verdict of that step
    const cot = JSON.parse(
      await fs.readFile(
        path.join(dir, 'objects', ...`${b.prefix}/${DERIVED_COT}`.split('/')),
        'utf8',
      ),
    ) as DerivedCot;
    const trajectory = await withBundleLibrary(store, b.prefix, async (x) => {
      await applyReviewerEdits(fixture.hub.db, x.lib, x.recordingId, {
        submissionId: b.id,
        version: 1,
      });
      return (await readCotInputs(x.lib, x.recordingId, { workDir: path.join(x.dir, 'w') })).steps;
    });
    expect(cot.steps.map((s) => s.index)).toEqual(trajectory.map((s) => s.index));
    expect(cot.steps.map((s) => s.inputSha256)).toEqual(trajectory.map((s) => s.inputSha256));
    expect(trajectory[2]!.mark).toBe('incorrect');
    expect(
      cot.steps
        .filter((s) => s.verdictSource === 'reviewer')
        .map((s) => [s.lastStepCorrect, s.reflection]),
    ).toEqual([[false, 'The reviewer marked it.']]);
    expect(cot.summary?.fields).toMatchObject({ actual_task: 'Change the display settings' });
    expect(result.steps).toBe(trajectory.length);
    expect(result.calls).toBe(2 * trajectory.length);
    expect(stub.requests.length - before).toBe(2 * trajectory.length);
    expect(
      stub.requests.slice(before).every((q) => q.headers.authorization === `Bearer ${KEY}`),
    ).toBe(true);

    // a rerun (the same key enqueued again, or the handler run again) asks nothing
    expect(await engine!.enqueue('cot', { submissionId: b.id, version: 1 }, { key })).toMatchObject(
      { isNew: false },
    );
    const again = await createCotHandler(handlerDeps())(
      { submissionId: b.id, version: 1 },
      testContext(key),
    );
    expect(again).toMatchObject({
      outcome: 'reused',
      steps: trajectory.length,
      calls: 0,
      sha256: result.sha256,
    });
    expect(stub.requests.length - before).toBe(2 * trajectory.length);

    // the dataset export (what build-item does) writes the stored CoT
    const record = await withBundleLibrary(store, b.prefix, async (x) => {
      await applyReviewerEdits(fixture.hub.db, x.lib, x.recordingId, {
        submissionId: b.id,
        version: 1,
      });
      expect(await restoreDerivedCot(store, b.prefix, x.lib, x.recordingId)).toBe(true);
      const outDir = path.join(x.dir, 'export');
      await runExport(x.lib, [x.recordingId], {
        format: 'agentnet-jsonl',
        outDir,
        appVersion: x.manifest.toolVersion,
      });
      const text = await fs.readFile(path.join(outDir, AGENTNET_JSONL_FILE), 'utf8');
      return JSON.parse(text.trim()) as {
        actual_task: string;
        traj: { value: { thought: string | null; reflection: string | null } }[];
      };
    });
    expect(record.traj).toHaveLength(trajectory.length);
    expect(record.traj.every((s) => s.value.thought?.startsWith('I go on'))).toBe(true);
    expect(record.traj.slice(0, -1).every((s) => s.value.reflection !== null)).toBe(true);
    expect(record.actual_task).toBe('Change the display settings');

    // the key: in no hub table (pg-boss's included) and no stored object
    const tables = await sql<{ s: string; t: string }>`
      SELECT table_schema AS s, table_name AS t FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`.execute(
      fixture.hub.db,
    );
    expect(tables.rows.some((r) => r.t === 'hub_settings')).toBe(true);
    for (const { s, t } of tables.rows) {
      const rows = await sql`SELECT * FROM ${sql.id(s, t)}`.execute(fixture.hub.db);
      expect(JSON.stringify(rows.rows).includes(KEY), `${s}.${t}`).toBe(false);
    }
    const files = await walk(path.join(dir, 'objects'));
    expect(files.some((f) => f.endsWith('cot.json'))).toBe(true);
    for (const f of files) {
      expect((await fs.readFile(f)).includes(KEY), f).toBe(false);
    }
  }, 300_000);

  it('a model error fails the attempt with its code; the next attempt asks only for the rest', async () => {
    const adm = await fixture.token('admin');
    await fixture.call('cot:settings', { enabled: false }, { token: adm });
    const c = await submitAndLease();
    await fixture.call(
      'review:verdict',
      { id: c.id, version: 1, verdict: 'accept' },
      { token: c.rev },
    );
    expect(await engine!.find(jobKeys.cot(c.id, 1))).toBeNull();
    await fixture.call('cot:settings', { enabled: true }, { token: adm });

    const run = createCotHandler(handlerDeps());
    const p = { submissionId: c.id, version: 1 };
    const before = stub.requests.length;
    // the 6th request (step 2's reflector) is refused
    stub.when(
      (q) => q.index === before + 5,
      { status: 401, body: { error: { message: 'Incorrect API key', code: 'invalid_api_key' } } },
      1,
    );
    const failed = await run(p, testContext(jobKeys.cot(c.id, 1))).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'MODEL_AUTH' });
    expect(String((failed as Error).message)).not.toContain(KEY);
    expect(stub.requests.length - before).toBe(6);
    expect(await store.stat(`${c.prefix}/${DERIVED_COT}`)).toBeNull();
    const partial = JSON.parse(
      await fs.readFile(
        path.join(dir, 'objects', ...`${c.prefix}/derived/cot.partial.json`.split('/')),
        'utf8',
      ),
    ) as DerivedCot;
    expect(partial.steps.map((s) => s.index)).toEqual([0, 1]);

    const mid = stub.requests.length;
    const done = await run(p, testContext(jobKeys.cot(c.id, 1)));
    expect(done).toMatchObject({ outcome: 'stored' });
    // steps 0 and 1 are not asked again
    expect(stub.requests.length - mid).toBe(2 * done.steps - 4);
    expect(done.calls).toBe(2 * done.steps - 4);
    expect(await store.stat(`${c.prefix}/derived/cot.partial.json`)).toBeNull();
  }, 300_000);
});
