// The end of a submission: manifest.json, built from the verified objects, is written last and
// checked (its ETag and HEAD must match what was sent), so a reader never sees a manifest whose
// files are incomplete; then objects of an earlier submission that it does not list are removed.
import { AppError } from '../../../shared/errors';
import { getRecording } from '../../../store';
import { textRedactorOf } from '../../privacy/text-redaction';
import {
  MANIFEST_NAME,
  SUBMISSION_SCHEMA,
  SUBMISSION_SCHEMA_VERSION,
  manifestText,
  type SubmissionManifest,
} from '../manifest';
import { digests } from './payload';
import type { UploadRun } from './run-context';

// Builds manifest.json from the verified objects, writes it last and verifies it.
export async function writeManifest(run: UploadRun): Promise<void> {
  const rec = getRecording(run.lib.db, run.row.recordingId);
  const bundle = run.bundle!;
  const byKey = new Map(bundle.files.map((f) => [f.relKey, f]));
  const manifest: SubmissionManifest = {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: SUBMISSION_SCHEMA_VERSION,
    recordingId: rec.id,
    episodeId: bundle.episodeId,
    // text redactions (issue 14, docs/privacy.md §3): the task leaves redacted here too
    task: textRedactorOf(run.lib, rec.seq).string(rec.task),
    platform: rec.platform,
    toolVersion: run.options.appVersion,
    librarySchemaVersion: bundle.librarySchemaVersion,
    annotator: run.state.annotator,
    createdAt: new Date(rec.createdAtMs).toISOString(),
    submittedAt: new Date(run.now()).toISOString(),
    stepCount: bundle.stepCount,
    files: run.objects.map((o) => {
      const f = byKey.get(o.relKey);
      return {
        path: o.relKey,
        sizeBytes: o.sizeBytes,
        sha256: o.sha256,
        role: f?.role ?? 'extra',
        ...(f?.libraryPath ? { libraryPath: f.libraryPath } : {}),
        ...(f?.table ? { table: f.table } : {}),
      };
    }),
    totals: { files: run.objects.length, bytes: run.bytesTotal },
    ...(run.state.pii ? { pii: { allowed: run.state.pii } } : {}),
  };
  const payload = digests(Buffer.from(manifestText(manifest)), true);
  const key = run.state.manifestKey;
  const { etag } = await run.retrying('PutObject manifest.json', () =>
    run.store.putObject(
      key,
      payload,
      { metadata: { sha256: payload.sha256Hex }, contentType: 'application/json' },
      { signal: run.signal },
    ),
  );
  const head = await run.retrying('HeadObject manifest.json', () =>
    run.store.headObject(key, { signal: run.signal }),
  );
  if (
    etag !== payload.md5Hex ||
    !head ||
    head.sizeBytes !== payload.body.length ||
    head.etag !== payload.md5Hex
  ) {
    throw new AppError(
      'UPLOAD_VERIFY_FAILED',
      `${MANIFEST_NAME} on ${run.store.description} does not match what was sent; run the ` +
        'upload again.',
    );
  }
}

// Deletes objects of an earlier submission in this folder that the new manifest does not list.
export async function removeLeftovers(run: UploadRun): Promise<void> {
  const keep = new Set([run.state.manifestKey, ...run.objects.map((o) => run.key(o.relKey))]);
  const stale: string[] = [];
  await run.retrying('ListObjectsV2', async () => {
    stale.length = 0;
    for await (const info of run.store.listObjects(`${run.state.keyPrefix}/`, {
      signal: run.signal,
    })) {
      if (!keep.has(info.key)) {
        stale.push(info.key);
      }
    }
  });
  for (const key of stale) {
    await run.retrying(`DeleteObject ${key}`, () =>
      run.store.deleteObject(key, { signal: run.signal }),
    );
  }
}
