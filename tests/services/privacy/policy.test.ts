// The privacy policy before anything leaves (issue 14, item 4) on a real library (the example
// recording with a card number and an e-mail address in its task text), a real export folder and
// real uploads to Swift: an unresolved card refuses export and upload with PII_UNRESOLVED and
// nothing written or sent; `allowPii` lets it through, recorded in the review history, the
// agentnet-raw metadata and the submission manifest; a `pii-accept` edit resolves it (and its
// undo brings the refusal back); the e-mail address only warns.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEdit, redoNextEdit, undoLastEdit } from '../../../src/services/edits/edit-service';
import { runExport } from '../../../src/services/export/export-service';
import { importAgentNetFolder } from '../../../src/services/import/agentnet-import';
import {
  PII_ALLOWED_COMMENT_PREFIX,
  scanWithResolutions,
} from '../../../src/services/privacy/policy';
import { updateRecordingTask } from '../../../src/services/review-service';
import { MANIFEST_NAME, parseManifest } from '../../../src/services/upload/manifest';
import { UploadQueue } from '../../../src/services/upload/queue';
import { S3ObjectStore } from '../../../src/services/upload/s3-client';
import type { UploadTarget } from '../../../src/services/upload/target';
import { isAppError, type AppError } from '../../../src/shared/errors';
import { listReviews, resolveRecordingSeq } from '../../../src/store';
import { listUploads } from '../../../src/store/queries/uploads';
import { tempLibrary } from '../../helpers/library';
import { FIXTURE_DIR } from '../../helpers/paths';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, listObjects, objectText, rawClient, swiftTarget } from '../upload/helpers';

const CARD = '4198 3444 1747 6617';
const BUCKET = 'pii-policy';

describe('PII policy of export and upload', { timeout: 120_000 }, () => {
  const t = tempLibrary();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-pii-policy-'));
  let swift: Swift;
  let client: S3Client;
  let id = '';
  let cardId = '';

  beforeAll(async () => {
    [swift] = await Promise.all([
      startSwift(),
      (async () => {
        id = (await importAgentNetFolder(t.lib, FIXTURE_DIR, { appVersion: 'test' })).id;
        updateRecordingTask(t.lib, id, {
          task: `Pay the invoice with card ${CARD} and mail the receipt to bob@example.com`,
        });
      })(),
    ]);
    client = rawClient(swift);
    await createBucket(client, BUCKET);
    const card = scanWithResolutions(t.lib, id).findings.find((f) => f.kind === 'card');
    cardId = card!.id;
  }, 90_000);

  afterAll(async () => {
    client?.destroy();
    await swift?.stop();
    t.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  });

  const exportTo = (name: string, allowPii = false) =>
    runExport(t.lib, [id], {
      format: 'agentnet-raw',
      outDir: path.join(work, name),
      appVersion: 'test',
      allowPii,
    });
  const queue = () =>
    new UploadQueue(t.lib, {
      openStore: (to: UploadTarget) =>
        new S3ObjectStore(to, { kind: 'static', credentials: swift.credentials }),
      engine: { appVersion: 'test', includeKeyframes: false },
    });
  const refusal = async (run: () => unknown): Promise<AppError> => {
    try {
      await run();
    } catch (e) {
      if (isAppError(e)) {
        return e;
      }
      throw e;
    }
    throw new Error('expected a refusal');
  };
  const reviews = () => listReviews(t.lib.db, resolveRecordingSeq(t.lib.db, id).seq);
  const metadataOf = (name: string) => {
    const folder = path.join(work, name);
    const [episode] = fs.readdirSync(folder);
    return JSON.parse(fs.readFileSync(path.join(folder, episode!, 'metadata.json'), 'utf8')) as {
      x_recorder: { pii?: { allowed: { allowedBy: string | null; findings: { id: string }[] } } };
    };
  };

  it('scan reports the card unresolved and the address as a non-blocking finding', () => {
    const { findings } = scanWithResolutions(t.lib, id);
    expect(findings.map((f) => [f.kind, f.source, f.resolved])).toEqual(
      expect.arrayContaining([
        ['card', 'task', null],
        ['email', 'task', null],
      ]),
    );
  });

  it('export refuses an unresolved card with PII_UNRESOLVED and writes nothing', async () => {
    const e = await refusal(() => exportTo('refused'));
    expect(e.code).toBe('PII_UNRESOLVED');
    expect(e.message).toContain(id);
    expect(e.message).toContain('1 card (task)');
    expect(e.message).not.toContain('email'); // other kinds do not block
    expect(e.fix).toContain(`cua-annotator scan ${id} --accept ${cardId}`);
    expect(e.fix).toContain('--allow-pii');
    expect(e.details).toMatchObject({
      action: 'export',
      recordings: [{ id, findings: [{ id: cardId, kind: 'card', source: 'task' }] }],
    });
    expect(fs.existsSync(path.join(work, 'refused'))).toBe(false);
    expect(reviews()).toHaveLength(0);
  });

  it('upload refuses it before anything is queued or sent', async () => {
    const q = queue();
    const e = await refusal(() =>
      q.enqueue([id], { target: swiftTarget(swift, BUCKET, 'refused'), annotator: 'alice' }),
    );
    expect(e.code).toBe('PII_UNRESOLVED');
    expect(e.details).toMatchObject({ action: 'upload' });
    expect(listUploads(t.lib.db)).toHaveLength(0);
    expect((await listObjects(client, BUCKET, '')).size).toBe(0);
  });

  it('export with allowPii: written, metadata.json and the review history record it', async () => {
    const run = await exportTo('allowed', true);
    const [r] = run.recordings;
    expect(r!.pii!.findings.map((f) => f.id)).toEqual([cardId]);
    expect(r!.warnings.join('\n')).toMatch(/PII allowed.*1 card/);
    expect(r!.warnings.join('\n')).toMatch(/not blocking.*1 email/);
    const meta = metadataOf('allowed');
    expect(meta.x_recorder.pii!.allowed.findings.map((f) => f.id)).toEqual([cardId]);
    const rows = reviews();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.status).toBe('draft'); // the review status is unchanged
    expect(rows[0]!.comment).toContain(`${PII_ALLOWED_COMMENT_PREFIX} (export with --allow-pii)`);
    expect(rows[0]!.comment).toContain(`card:${cardId}`);
  });

  it('upload with allowPii: sent, the manifest has the pii section, the history a row', async () => {
    const q = queue();
    const target = swiftTarget(swift, BUCKET, 'allowed');
    const [queued] = q.enqueue([id], { target, annotator: 'alice', allowPii: true });
    expect(queued!.warnings!.join('\n')).toMatch(/PII allowed/);
    const [outcome] = await q.run([queued!.uploadId]);
    expect(outcome).toMatchObject({ ok: true });
    const manifest = parseManifest(
      await objectText(client, BUCKET, `allowed/alice/${id}/${MANIFEST_NAME}`),
      'manifest',
    );
    expect(manifest.pii!.allowed.allowedBy).toBe('alice');
    expect(manifest.pii!.allowed.findings).toEqual([
      { id: cardId, kind: 'card', source: 'task', stepIndex: null },
    ]);
    const last = reviews().at(-1)!;
    expect(last.reviewer).toBe('alice');
    expect(last.comment).toContain('upload with --allow-pii');
    expect(last.comment).toContain(cardId);
  });

  it('a pii-accept edit resolves the card: export and upload go through without allowPii', async () => {
    applyEdit(t.lib, id, { op: 'pii-accept', findingId: cardId, note: 'test card' });
    const card = scanWithResolutions(t.lib, id).findings.find((f) => f.id === cardId);
    expect(card!.resolved).toBe('accepted');
    const before = reviews().length;

    const run = await exportTo('accepted');
    expect(run.recordings[0]!.pii).toBeUndefined();
    expect(metadataOf('accepted').x_recorder.pii).toBeUndefined();
    expect(run.recordings[0]!.warnings.join('\n')).toMatch(/not blocking.*1 email/);

    const q = queue();
    const [queued] = q.enqueue([id], {
      target: swiftTarget(swift, BUCKET, 'accepted'),
      annotator: 'alice',
    });
    const [outcome] = await q.run([queued!.uploadId]);
    expect(outcome).toMatchObject({ ok: true });
    const manifest = parseManifest(
      await objectText(client, BUCKET, `accepted/alice/${id}/${MANIFEST_NAME}`),
      'manifest',
    );
    expect(manifest.pii).toBeUndefined();
    expect(reviews()).toHaveLength(before); // nothing allowed, nothing recorded
  });

  it('a queued upload checks again when it runs: an undone acceptance fails it, nothing sent', async () => {
    const q = queue();
    const [queued] = q.enqueue([id], {
      target: swiftTarget(swift, BUCKET, 'requeued'),
      annotator: 'alice',
    });
    undoLastEdit(t.lib, id); // the pii-accept, after the upload was queued
    const [outcome] = await q.run([queued!.uploadId]);
    expect(outcome).toMatchObject({ ok: false, code: 'PII_UNRESOLVED' });
    expect((await listObjects(client, BUCKET, 'requeued/')).size).toBe(0);
    redoNextEdit(t.lib, id); // the pii-accept again, for the next test to undo
  });

  it('undoing the pii-accept edit brings the refusal back', async () => {
    undoLastEdit(t.lib, id);
    expect(scanWithResolutions(t.lib, id).findings.find((f) => f.id === cardId)!.resolved).toBe(
      null,
    );
    expect((await refusal(() => exportTo('undone'))).code).toBe('PII_UNRESOLVED');
    expect(fs.existsSync(path.join(work, 'undone'))).toBe(false);
  });
});
