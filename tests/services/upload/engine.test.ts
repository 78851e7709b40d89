// The upload engine against a real S3 implementation (OpenStack Swift + s3api on 127.0.0.1):
// multipart with verified checksums, kill-and-resume without re-sending parts, a proxy outage,
// wrong credentials and a missing bucket, pause/cancel, a forgotten multipart upload, and a
// server whose answers do not match.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AbortMultipartUploadCommand, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit } from '../../../src/services/edits/edit-service';
import { effectiveSteps } from '../../../src/services/steps';
import { runUpload, type UploadEngineOptions } from '../../../src/services/upload/engine';
import { parseManifest } from '../../../src/services/upload/manifest';
import type { ObjectStore } from '../../../src/services/upload/object-store';
import { UploadQueue, cancelUpload, enqueueUpload } from '../../../src/services/upload/queue';
import { S3ObjectStore } from '../../../src/services/upload/s3-client';
import type { UploadTarget } from '../../../src/services/upload/target';
import type { Step } from '../../../src/shared/domain';
import { isAppError } from '../../../src/shared/errors';
import { getRecording } from '../../../src/store';
import { getUpload, listUploadParts } from '../../../src/store/queries/uploads';
import { exampleLibrary } from '../../helpers/example-library';
import { startSwift, type Swift } from '../../helpers/swift';
import {
  PART_5_MIB,
  createBucket,
  listObjects,
  objectSha256,
  objectText,
  rawClient,
  swiftTarget,
  uploadUntilKilled,
  writeBlob,
} from './helpers';

const BUCKET = 'submissions';
const BLOB_KEY = 'extra/blob.bin';
const FAST_RETRY = { maxAttempts: 12, baseDelayMs: 100, maxDelayMs: 1000 };

let swift: Swift;
let client: S3Client;
let t: Awaited<ReturnType<typeof exampleLibrary>>;
let recordingId = '';

beforeAll(async () => {
  [swift] = await Promise.all([
    startSwift(),
    (async () => {
      t = await exampleLibrary();
      recordingId = t.id;
    })(),
  ]);
  client = rawClient(swift);
  await createBucket(client, BUCKET);
}, 60_000);

afterAll(async () => {
  client?.destroy();
  t?.cleanup();
  await swift?.stop();
});

function sha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function blob(name: string, mib: number): string {
  const file = path.join(t.dir, `${name}.bin`);
  writeBlob(file, mib * 1024 * 1024 + 12_345); // not a multiple of the part size
  return file;
}

function store(target: UploadTarget, credentials = swift.credentials): S3ObjectStore {
  return new S3ObjectStore(target, { kind: 'static', credentials });
}

function options(blobFile: string, extra: Partial<UploadEngineOptions> = {}): UploadEngineOptions {
  return {
    appVersion: '0.0.0-test',
    partSizeBytes: PART_5_MIB,
    includeKeyframes: false,
    retry: FAST_RETRY,
    extraFiles: [{ relKey: BLOB_KEY, path: blobFile }],
    ...extra,
  };
}

/** UploadPart requests Swift logged for one key (after `from` log entries). */
function partRequests(key: string, from = 0) {
  return swift
    .requests()
    .slice(from)
    .filter(
      (r) => r.method === 'PUT' && r.path === `/${BUCKET}/${key}` && r.query.has('partNumber'),
    );
}

describe('upload engine against Swift s3api', { timeout: 120_000 }, () => {
  it('uploads a multipart submission, verifies every object and writes the manifest last', async () => {
    const target = swiftTarget(swift, BUCKET, 'team-a');
    const blobFile = blob('basic', 18);
    const { uploadId } = enqueueUpload(t.lib, recordingId, { target, annotator: 'alice' });
    const s = store(target);
    const events: string[] = [];
    const from = swift.requests().length;
    const result = await runUpload(t.lib, uploadId, s, {
      ...options(blobFile),
      concurrency: 3,
      onProgress: (p) => events.push(p.phase),
    });
    s.close();
    const base = `team-a/alice/${recordingId}`;
    expect(result.status).toBe('uploaded');
    expect(result.location).toBe(`s3://${BUCKET}/${base}/`);
    expect(getUpload(t.lib.db, uploadId)).toMatchObject({
      status: 'uploaded',
      error: null,
      partRequests: 4,
      bytesDone: result.bytesTotal,
    });
    expect(events).toContain('verifying');
    expect(events.at(-1)).toBe('uploaded');

    // what Swift holds: exactly the manifest's files plus the manifest, same sizes and SHA-256
    const manifest = parseManifest(await objectText(client, BUCKET, `${base}/manifest.json`), 'm');
    const stored = await listObjects(client, BUCKET, `${base}/`);
    expect([...stored.keys()].sort()).toEqual(
      [...manifest.files.map((f) => `${base}/${f.path}`), `${base}/manifest.json`].sort(),
    );
    for (const f of manifest.files) {
      expect(stored.get(`${base}/${f.path}`)?.size, f.path).toBe(f.sizeBytes);
      expect(await objectSha256(client, BUCKET, `${base}/${f.path}`), f.path).toBe(f.sha256);
    }
    const rec = getRecording(t.lib.db, recordingId);
    const video = manifest.files.find((f) => f.role === 'video')!;
    expect(video.sha256).toBe(rec.videos[0]!.sha256);
    expect(manifest.files.find((f) => f.path === BLOB_KEY)!.sha256).toBe(sha256(blobFile));
    expect(stored.get(`${base}/${BLOB_KEY}`)!.etag).toMatch(/^[0-9a-f]{32}-4$/);
    expect(manifest).toMatchObject({
      schema: 'cua-annotator/submission',
      schemaVersion: 1,
      recordingId,
      annotator: 'alice',
      task: rec.task,
      toolVersion: '0.0.0-test',
      episodeId: 'win10-display-settings',
      stepCount: rec.stepCount,
    });
    expect(Date.parse(manifest.submittedAt)).toBeGreaterThanOrEqual(Date.parse(manifest.createdAt));
    // the documented layout
    const paths = new Set(manifest.files.map((f) => f.path));
    for (const p of [
      'video/2024-11-05 18-56-31.mp4',
      'files/raw/events.jsonl',
      'files/raw/metadata.json',
      'raw/recording.json',
      'raw/events.jsonl',
      'raw/videos.jsonl',
      'steps/steps.json',
      'steps/steps.jsonl',
      'agentnet/win10-display-settings/events.jsonl',
      'agentnet/win10-display-settings/reduced_events_vis.jsonl',
    ]) {
      expect(paths.has(p), p).toBe(true);
    }
    expect([...paths].some((p) => p.startsWith('agentnet/') && p.endsWith('.mp4'))).toBe(false);

    // the manifest is the last object written
    await swift.settleLog();
    const writes = swift
      .requests()
      .slice(from)
      .filter(
        (r) =>
          (r.method === 'PUT' || r.method === 'POST') && r.path.startsWith(`/${BUCKET}/${base}/`),
      );
    expect(writes.at(-1)!.path).toBe(`/${BUCKET}/${base}/manifest.json`);
    expect(partRequests(`${base}/${BLOB_KEY}`, from)).toHaveLength(4);
    // per-part checksums were kept, and the staging folder is gone
    const parts = listUploadParts(t.lib.db, uploadId, BLOB_KEY);
    expect(parts.map((p) => p.partNumber)).toEqual([1, 2, 3, 4]);
    for (const p of parts) {
      expect(p.etag).toMatch(/^[0-9a-f]{32}$/); // the server's MD5 of the part
      expect(p.md5).toBe(''); // no Content-MD5 by default: the signed SHA-256 is checked
      expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(fs.existsSync(path.join(t.dir, 'uploads', String(uploadId)))).toBe(false);
  });

  it('resumes after the uploading process is killed without re-sending completed parts', async () => {
    const target = swiftTarget(swift, BUCKET, 'kill');
    const blobFile = blob('kill', 30); // 7 parts of 5 MiB
    const { uploadId } = enqueueUpload(t.lib, recordingId, { target, annotator: 'bob' });
    const key = `kill/bob/${recordingId}/${BLOB_KEY}`;

    const { exit, stderr } = await uploadUntilKilled(swift, t.dir, uploadId, blobFile, 3);
    expect(exit, stderr).toBe('SIGKILL');

    const persisted = listUploadParts(t.lib.db, uploadId, BLOB_KEY).map((p) => p.partNumber);
    expect(persisted.length).toBeGreaterThanOrEqual(3);
    expect(persisted.length).toBeLessThan(7);
    expect(getUpload(t.lib.db, uploadId)!.status).toBe('uploading'); // the killed run's state

    await swift.settleLog();
    const from = swift.requests().length;
    const s = store(target);
    const result = await runUpload(t.lib, uploadId, s, {
      ...options(blobFile),
      concurrency: 4,
      verify: 'download', // and read every object back
    });
    s.close();
    await swift.settleLog();
    const resent = partRequests(key, from).map((r) => Number(r.query.get('partNumber')));
    // exactly the parts that were not persisted, each once
    expect(resent.sort((a, b) => a - b)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].filter((n) => !persisted.includes(n)),
    );
    expect(result.partRequests).toBe(7 - persisted.length);
    expect(result.downloadedForVerify).toBe(result.objects);
    expect(result.bytesSent).toBeLessThan(result.bytesTotal);
    expect(result.status).toBe('uploaded');
    expect(getUpload(t.lib.db, uploadId)!.status).toBe('uploaded');
    expect(await objectSha256(client, BUCKET, key)).toBe(sha256(blobFile));
    const manifest = parseManifest(
      await objectText(client, BUCKET, `kill/bob/${recordingId}/manifest.json`),
      'm',
    );
    for (const f of manifest.files) {
      expect(await objectSha256(client, BUCKET, `kill/bob/${recordingId}/${f.path}`), f.path).toBe(
        f.sha256,
      );
    }
  });

  it('retries through a proxy outage and completes when the proxy is back', async () => {
    const target = swiftTarget(swift, BUCKET, 'outage');
    const blobFile = blob('outage', 20);
    const { uploadId } = enqueueUpload(t.lib, recordingId, { target, annotator: 'carol' });
    const inner = store(target);
    // hold part requests once the first part is in, until the proxy is really down, so the
    // outage lands mid-upload deterministically (the failures themselves are real)
    const outage: { done: Promise<void> | null; proxyDown: Promise<void> | null } = {
      done: null,
      proxyDown: null,
    };
    const gated: ObjectStore = Object.assign(Object.create(inner) as ObjectStore, {
      uploadPart: async (...args: Parameters<ObjectStore['uploadPart']>) => {
        if (outage.proxyDown) {
          await outage.proxyDown;
        }
        return await inner.uploadPart(...args);
      },
    });
    const result = await runUpload(t.lib, uploadId, gated, {
      ...options(blobFile),
      concurrency: 2,
      partContentMd5: true, // and Content-MD5 on every part
      onProgress: (p) => {
        if (!outage.done && p.detail.startsWith('part ')) {
          const proxyDown = swift.stopProxy();
          outage.proxyDown = proxyDown;
          outage.done = (async () => {
            await proxyDown;
            await new Promise((r) => setTimeout(r, 500));
            await swift.startProxy();
          })();
        }
      },
    });
    expect(outage.done).not.toBeNull();
    await outage.done;
    inner.close();
    expect(result.status).toBe('uploaded');
    expect(result.retries).toBeGreaterThan(0);
    const row = getUpload(t.lib.db, uploadId)!;
    expect(row.status).toBe('uploaded');
    expect(row.retries).toBe(result.retries);
    for (const p of listUploadParts(t.lib.db, uploadId, BLOB_KEY)) {
      expect(p.etag).toBe(p.md5);
    }
    expect(await objectSha256(client, BUCKET, `outage/carol/${recordingId}/${BLOB_KEY}`)).toBe(
      sha256(blobFile),
    );
  });

  it('fails clearly on wrong credentials and on a missing bucket, marking nothing uploaded', async () => {
    const blobFile = blob('bad', 6);
    const cases = [
      {
        target: swiftTarget(swift, BUCKET, 'badcreds'),
        credentials: { accessKeyId: 'test:tester', secretAccessKey: 'not-the-secret' },
        code: 'UPLOAD_AUTH',
        reason: /refused the credentials/,
      },
      {
        target: swiftTarget(swift, 'no-such-bucket', 'x'),
        credentials: swift.credentials,
        code: 'UPLOAD_BUCKET_NOT_FOUND',
        reason: /does not exist/,
      },
    ];
    for (const c of cases) {
      const { uploadId } = enqueueUpload(t.lib, recordingId, {
        target: c.target,
        annotator: 'dave',
      });
      const s = store(c.target, c.credentials);
      let caught: unknown;
      try {
        await runUpload(t.lib, uploadId, s, options(blobFile));
      } catch (e) {
        caught = e;
      }
      s.close();
      expect(isAppError(caught, c.code as 'UPLOAD_AUTH'), String(caught)).toBe(true);
      const row = getUpload(t.lib.db, uploadId)!;
      expect(row.status).toBe('failed');
      expect(row.error).toMatch(new RegExp(`^${c.code}: `));
      expect(row.error).toMatch(c.reason);
      expect(row.submittedAtMs).toBeNull();
    }
    expect((await listObjects(client, BUCKET, 'badcreds/')).size).toBe(0);
  });

  it('pauses on abort, resumes after the server forgot the multipart upload, and cancels', async () => {
    const target = swiftTarget(swift, BUCKET, 'pause');
    const blobFile = blob('pause', 16);
    const { uploadId } = enqueueUpload(t.lib, recordingId, { target, annotator: 'erin' });
    const key = `pause/erin/${recordingId}/${BLOB_KEY}`;
    const controller = new AbortController();
    const s = store(target);
    let caught: unknown;
    try {
      await runUpload(t.lib, uploadId, s, {
        ...options(blobFile),
        concurrency: 1,
        signal: controller.signal,
        onProgress: (p) => {
          if (p.detail.startsWith('part ') && p.detail.endsWith(BLOB_KEY)) {
            controller.abort();
          }
        },
      });
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'ABORTED')).toBe(true);
    expect(getUpload(t.lib.db, uploadId)).toMatchObject({ status: 'paused', error: null });
    expect(listUploadParts(t.lib.db, uploadId, BLOB_KEY).length).toBeGreaterThanOrEqual(1);

    // the server forgets the multipart upload (expiry, a lifecycle rule): resume starts it over
    const open = await client.send(
      new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: `pause/` }),
    );
    expect(open.Uploads ?? []).toHaveLength(1);
    await client.send(
      new AbortMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: open.Uploads![0]!.UploadId,
      }),
    );
    const resumed = await runUpload(t.lib, uploadId, s, options(blobFile));
    expect(resumed.status).toBe('uploaded');
    expect(await objectSha256(client, BUCKET, key)).toBe(sha256(blobFile));

    // cancel: a second upload of the same recording (another prefix), paused, then cancelled
    const target2 = swiftTarget(swift, BUCKET, 'cancel');
    const second = enqueueUpload(t.lib, recordingId, { target: target2, annotator: 'erin' });
    const s2 = store(target2);
    const c2 = new AbortController();
    await runUpload(t.lib, second.uploadId, s2, {
      ...options(blobFile),
      concurrency: 1,
      signal: c2.signal,
      onProgress: (p) => {
        if (p.detail.startsWith('part ')) {
          c2.abort();
        }
      },
    }).catch(() => undefined);
    expect((await listObjects(client, BUCKET, 'cancel/')).size).toBeGreaterThan(0);
    await cancelUpload(t.lib, second.uploadId, s2);
    s2.close();
    s.close();
    expect(getUpload(t.lib.db, second.uploadId)!.status).toBe('cancelled');
    expect((await listObjects(client, BUCKET, 'cancel/')).size).toBe(0);
    const left = await client.send(
      new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'cancel/' }),
    );
    expect(left.Uploads ?? []).toHaveLength(0);
  });

  it('the queue cancels a running upload: it waits for the run to stop, then cleans up', async () => {
    const target = swiftTarget(swift, BUCKET, 'queue-cancel');
    const blobFile = blob('queue-cancel', 16);
    const queue = new UploadQueue(t.lib, {
      openStore: (to) => store(to),
      engine: { ...options(blobFile), concurrency: 1 },
    });
    const [queued] = queue.enqueue([recordingId], { target, annotator: 'gina' });
    const uploadId = queued!.uploadId;
    const cancel: { done: Promise<void> | null } = { done: null };
    queue.onProgress((p) => {
      if (cancel.done === null && p.detail.startsWith('part ')) {
        cancel.done = queue.cancel(uploadId);
      }
    });
    const [outcome] = await queue.run([uploadId]);
    expect(cancel.done).not.toBeNull();
    await cancel.done;
    expect(outcome).toMatchObject({ uploadId, ok: false, code: 'ABORTED' });
    expect(getUpload(t.lib.db, uploadId)!.status).toBe('cancelled');
    expect((await listObjects(client, BUCKET, 'queue-cancel/')).size).toBe(0);
    const left = await client.send(
      new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'queue-cancel/' }),
    );
    expect(left.Uploads ?? []).toHaveLength(0);
  });

  it('never sends stale data: an edit restages a paused upload and re-opens an uploaded one', async () => {
    const target = swiftTarget(swift, BUCKET, 'edits');
    const blobFile = blob('edits', 6);
    const base = `edits/gina/${recordingId}`;
    const steps = effectiveSteps(t.lib, getRecording(t.lib.db, recordingId).seq);
    const label = (text: string) =>
      applyEdit(t.lib, recordingId, { op: 'relabel', stepId: steps[0]!.id, label: text });
    const uploadedLabel = async () =>
      (JSON.parse(await objectText(client, BUCKET, `${base}/steps/steps.json`)) as Step[])[0]!
        .label;
    const first = enqueueUpload(t.lib, recordingId, { target, annotator: 'gina' });
    const s = store(target);
    const controller = new AbortController();
    await runUpload(t.lib, first.uploadId, s, {
      ...options(blobFile),
      concurrency: 1,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.detail.startsWith('part ')) {
          controller.abort();
        }
      },
    }).catch(() => undefined);
    expect(getUpload(t.lib.db, first.uploadId)!.status).toBe('paused');
    label('Edited while paused');
    expect(enqueueUpload(t.lib, recordingId, { target, annotator: 'gina' })).toMatchObject({
      uploadId: first.uploadId,
      action: 'resume',
    });
    await runUpload(t.lib, first.uploadId, s, options(blobFile));
    expect(await uploadedLabel()).toBe('Edited while paused');
    expect(enqueueUpload(t.lib, recordingId, { target, annotator: 'gina' }).action).toBe(
      'already-uploaded',
    );
    label('Edited after upload');
    const again = enqueueUpload(t.lib, recordingId, { target, annotator: 'gina' });
    expect(again).toMatchObject({ action: 'new', supersedes: first.uploadId });
    // the new submission has no blob: the old one's leftovers go once its manifest is written
    await runUpload(t.lib, again.uploadId, s, { ...options(blobFile), extraFiles: [] });
    s.close();
    expect(await uploadedLabel()).toBe('Edited after upload');
    const manifest = parseManifest(await objectText(client, BUCKET, `${base}/manifest.json`), 'm');
    expect([...(await listObjects(client, BUCKET, `${base}/`)).keys()].sort()).toEqual(
      [...manifest.files.map((f) => `${base}/${f.path}`), `${base}/manifest.json`].sort(),
    );
    expect(manifest.files.some((f) => f.path === BLOB_KEY)).toBe(false);
  });

  it('refuses to mark an upload done when the stored objects do not match', async () => {
    const target = swiftTarget(swift, BUCKET, 'mismatch');
    const blobFile = blob('mismatch', 6);
    const { uploadId } = enqueueUpload(t.lib, recordingId, { target, annotator: 'frank' });
    const inner = store(target);
    // a server that reports another size for the blob (as after a truncated write)
    const short = <T extends { key: string; sizeBytes: number } | null>(info: T): T =>
      info && info.key.endsWith(BLOB_KEY) ? { ...info, sizeBytes: info.sizeBytes - 1 } : info;
    const lying: ObjectStore = Object.assign(Object.create(inner) as ObjectStore, {
      headObject: async (...args: Parameters<ObjectStore['headObject']>) =>
        short(await inner.headObject(...args)),
      listObjects: async function* (...args: Parameters<ObjectStore['listObjects']>) {
        for await (const info of inner.listObjects(...args)) {
          yield short(info);
        }
      },
    });
    let caught: unknown;
    try {
      await runUpload(t.lib, uploadId, lying, options(blobFile));
    } catch (e) {
      caught = e;
    }
    inner.close();
    expect(isAppError(caught, 'UPLOAD_VERIFY_FAILED')).toBe(true);
    const row = getUpload(t.lib.db, uploadId)!;
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/extra\/blob\.bin.*size/);
    const stored = await listObjects(client, BUCKET, `mismatch/frank/${recordingId}/`);
    expect(stored.has(`mismatch/frank/${recordingId}/manifest.json`)).toBe(false);
  });
});
