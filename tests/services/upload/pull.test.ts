// Pull against Swift: a submission with edits, labels and a review is reproduced exactly in an
// empty library (same checksums, same rows, same steps with edits), and also in a library whose
// own edit ids collide; partial, invalid, damaged, present and older submissions are skipped.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { CopyObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import type { Library } from '../../../src/services/library/library';
import { saveRecordingLabels, setReviewStatus } from '../../../src/services/review-service';
import { effectiveSteps } from '../../../src/services/steps';
import { runUpload } from '../../../src/services/upload/engine';
import { parseManifest } from '../../../src/services/upload/manifest';
import { pullSubmissions } from '../../../src/services/upload/pull';
import { enqueueUpload } from '../../../src/services/upload/queue';
import {
  dumpRecordingRow,
  dumpTableLines,
  recordingTables,
} from '../../../src/services/upload/recording-dump';
import { S3ObjectStore } from '../../../src/services/upload/s3-client';
import { getRecording, listEdits } from '../../../src/store';
import { getPull } from '../../../src/store/queries/uploads';
import { librarySnapshot, tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';
import { exampleLibrary } from '../../helpers/example-library';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, objectText, rawClient, swiftTarget } from './helpers';

const BUCKET = 'reviews';
const PREFIX = 'batch-1';
let swift: Swift;
let client: S3Client;
let store: S3ObjectStore;
let source: Awaited<ReturnType<typeof exampleLibrary>>;
const libs: { lib: Library; dir: string; cleanup: () => void }[] = [];
let recordingId = '';
let insertedStepId = '';

function newLibrary() {
  const l = tempLibrary();
  libs.push(l);
  return l;
}

beforeAll(async () => {
  [swift] = await Promise.all([
    startSwift(),
    (async () => {
      source = await exampleLibrary();
      recordingId = source.id;
    })(),
  ]);
  client = rawClient(swift);
  await createBucket(client, BUCKET);
  const target = swiftTarget(swift, BUCKET, PREFIX);
  store = new S3ObjectStore(target, { kind: 'static', credentials: swift.credentials });

  // review work on the source recording: edits (one naming an inserted step), labels, a verdict
  const steps = effectiveSteps(source.lib, getRecording(source.lib.db, recordingId).seq);
  applyEdit(source.lib, recordingId, {
    op: 'relabel',
    stepId: steps[0]!.id,
    label: 'Open Settings',
  });
  const insert = applyEdit(source.lib, recordingId, {
    op: 'insert',
    afterStepId: steps[1]!.id,
    kind: 'wait',
  });
  insertedStepId = `edit:${insert.id}`;
  applyEdit(source.lib, recordingId, {
    op: 'relabel',
    stepId: insertedStepId,
    label: 'Wait for it',
  });
  applyEdit(source.lib, recordingId, { op: 'delete', stepId: steps[3]!.id });
  saveRecordingLabels(source.lib, recordingId, {
    taskCompleted: true,
    taskDifficulty: 2,
    alignmentScore: 5,
    efficiencyScore: 4,
  });
  setReviewStatus(source.lib, recordingId, { status: 'accepted', reviewer: 'rita' });

  const { uploadId } = enqueueUpload(source.lib, recordingId, { target, annotator: 'alice' });
  await runUpload(source.lib, uploadId, store, {
    appVersion: '0.0.0-test',
    includeKeyframes: false,
  });
}, 90_000);

afterAll(async () => {
  store?.close();
  client?.destroy();
  source?.cleanup();
  for (const l of libs) {
    l.cleanup();
  }
  await swift?.stop();
});

function dumpAll(lib: Library, id: string): Record<string, string[]> {
  const seq = getRecording(lib.db, id).seq;
  const out: Record<string, string[]> = {
    recordings: [JSON.stringify(dumpRecordingRow(lib.db, seq))],
  };
  for (const table of recordingTables(lib.db)) {
    out[table.name] = [...dumpTableLines(lib.db, table, seq)];
  }
  return out;
}

function folderHashes(lib: Library, id: string): Record<string, string> {
  const dir = lib.resolve(getRecording(lib.db, id).dir);
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) {
      const full = path.join(e.parentPath, e.name);
      out[path.relative(dir, full)] = createHash('sha256')
        .update(fs.readFileSync(full))
        .digest('hex');
    }
  }
  return out;
}

describe('pull', { timeout: 120_000 }, () => {
  it('reproduces the recording in an empty library: same files, rows, steps and edits', async () => {
    const target = newLibrary();
    const items = await pullSubmissions(target.lib, store, PREFIX);
    expect(items).toEqual([
      {
        folder: `alice/${recordingId}`,
        recordingId,
        annotator: 'alice',
        status: 'imported',
        reason: null,
        bytes: expect.any(Number) as number,
        warnings: [],
      },
    ]);
    // every row of every recording table, the recording row and every file are identical
    expect(dumpAll(target.lib, recordingId)).toEqual(dumpAll(source.lib, recordingId));
    const files = folderHashes(target.lib, recordingId);
    expect(files).toEqual(folderHashes(source.lib, recordingId));
    expect(Object.keys(files).length).toBeGreaterThan(5);
    const rec = getRecording(target.lib.db, recordingId);
    expect(rec.videos[0]!.sha256).toBe(getRecording(source.lib.db, recordingId).videos[0]!.sha256);
    expect(rec.reviewStatus).toBe('accepted');
    const steps = effectiveSteps(target.lib, rec.seq);
    expect(steps).toEqual(effectiveSteps(source.lib, getRecording(source.lib.db, recordingId).seq));
    expect(steps.find((s) => s.id === insertedStepId)?.label).toBe('Wait for it');
    expect(listEdits(target.lib.db, rec.seq)).toHaveLength(4);
    expect(getPull(target.lib.db, rec.seq)).toMatchObject({
      source: `s3://${PREFIX}/alice/${recordingId}`,
      annotator: 'alice',
    });
  });

  it('remaps edit ids in a library with its own edits', async () => {
    const target = newLibrary();
    const own = (await importAgentNetFolder(target.lib, FIXTURE_DIR, { appVersion: 'test' })).id;
    const ownSteps = effectiveSteps(target.lib, getRecording(target.lib.db, own).seq);
    for (let i = 0; i < 3; i += 1) {
      applyEdit(target.lib, own, { op: 'insert', afterStepId: ownSteps[0]!.id, kind: 'wait' });
    }
    const [item] = await pullSubmissions(target.lib, store, PREFIX);
    expect(item).toMatchObject({ status: 'imported', warnings: [] });
    const seq = getRecording(target.lib.db, recordingId).seq;
    const edits = listEdits(target.lib.db, seq);
    const newInsert = edits.find((e) => e.edit.op === 'insert')!;
    expect(`edit:${newInsert.id}`).not.toBe(insertedStepId);
    const relabel = edits.find((e) => e.edit.op === 'relabel' && e.edit.label === 'Wait for it')!
      .edit as { stepId: string };
    expect(relabel.stepId).toBe(`edit:${newInsert.id}`);
    const norm = (steps: { id: string }[]) =>
      JSON.stringify(steps)
        .replace(/"edit:\d+"/g, '"edit:N"')
        .replace(/"editId":\d+/g, '"editId":N');
    const pulled = effectiveSteps(target.lib, seq);
    expect(pulled.find((s) => s.id === `edit:${newInsert.id}`)?.label).toBe('Wait for it');
    expect(norm(pulled)).toBe(
      norm(effectiveSteps(source.lib, getRecording(source.lib.db, recordingId).seq)),
    );
  });

  it('skips partial, invalid, damaged, present and older submissions', async () => {
    const target = newLibrary();
    const base = `${PREFIX}/alice/${recordingId}`;
    const manifestText = await objectText(client, BUCKET, `${base}/manifest.json`);
    const manifest = parseManifest(manifestText, 'm');
    const put = (key: string, body: string) =>
      client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}/${key}`, Body: body }));
    // an upload still running: files but no manifest
    const runningId = randomUUID();
    await put(`bob/${runningId}/raw/recording.json`, '{}');
    // a manifest whose files are not all there
    const missingId = randomUUID();
    await put(
      `carol/${missingId}/manifest.json`,
      JSON.stringify({ ...manifest, recordingId: missingId, annotator: 'carol' }),
    );
    // not a manifest
    const invalidId = randomUUID();
    await put(`eve/${invalidId}/manifest.json`, '{"schema": "something else"}');
    // every file there, but one has other bytes of the same size
    const damagedId = randomUUID();
    for (const f of manifest.files) {
      await client.send(
        new CopyObjectCommand({
          Bucket: BUCKET,
          CopySource: `${BUCKET}/${base}/${f.path}`,
          Key: `${PREFIX}/zed/${damagedId}/${f.path}`,
        }),
      );
    }
    const events = manifest.files.find((f) => f.path === 'raw/events.jsonl')!;
    await put(`zed/${damagedId}/raw/events.jsonl`, 'x'.repeat(events.sizeBytes));
    await put(
      `zed/${damagedId}/manifest.json`,
      JSON.stringify({ ...manifest, recordingId: damagedId, annotator: 'zed' }),
    );

    // --since in the future: nothing is even looked at
    expect(
      await pullSubmissions(target.lib, store, PREFIX, { sinceMs: Date.now() + 3_600_000 }),
    ).toEqual([expect.objectContaining({ folder: `bob/${runningId}`, status: 'partial' })]);
    const before = librarySnapshot(target.lib);
    const first = await pullSubmissions(target.lib, store, PREFIX, {
      sinceMs: Date.now() - 3_600_000,
    });
    const byFolder = new Map(first.map((i) => [i.folder.split('/')[0], i]));
    expect(byFolder.get('alice')?.status).toBe('imported');
    expect(byFolder.get('bob')).toMatchObject({
      status: 'partial',
      reason: expect.stringMatching(/no manifest/),
    });
    expect(byFolder.get('carol')).toMatchObject({
      status: 'partial',
      reason: expect.stringMatching(/missing/),
    });
    expect(byFolder.get('eve')).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/schema/),
    });
    expect(byFolder.get('zed')).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/raw\/events\.jsonl.*damaged/),
    });
    // only alice's recording arrived; nothing of the damaged one stayed behind
    const after = librarySnapshot(target.lib);
    expect(after.rows.recordings).toBe(before.rows.recordings! + 1);
    expect(after.files.filter((f) => f.includes(damagedId))).toEqual([]);
    const again = await pullSubmissions(target.lib, store, PREFIX);
    expect(again.find((i) => i.folder.startsWith('alice/'))).toMatchObject({
      status: 'present',
      bytes: 0,
    });
    expect(librarySnapshot(target.lib)).toEqual(after);
  });
});
