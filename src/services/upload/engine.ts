// The upload engine: sends one recording's submission to an ObjectStore, resumably.
//
// Every object is hashed (SHA-256) before it is sent; objects up to the part size go in one PUT,
// larger ones as multipart uploads whose id and acknowledged parts are persisted in SQLite after
// each part, so a killed process resumes without re-sending them. Every request carries the
// SHA-256 of its bytes in its signature (x-amz-content-sha256; S3 and Swift recompute it and
// reject a mismatch); single PUTs (and, with partContentMd5, parts) also carry Content-MD5 and
// their ETag must equal our MD5. Transient failures are retried with backoff and jitter under a
// concurrency limit. Each object is verified once sent (size, SHA-256 metadata, and its ETag —
// the MD5, or for multipart the MD5 of the acknowledged part ETags — or its bytes read back),
// then manifest.json is written last, and only then does the upload become `uploaded`.
//
// This module is the run: it guards against a second runner, orchestrates the phases
// (preparing → uploading → verifying → manifest → uploaded) and records how a run ends. The steps
// live in engine/: resume reconciliation (reconcile.ts), the transfer of single PUTs
// (transfer.ts) and multipart objects (multipart.ts), verification (verify.ts), the manifest and
// leftovers (finish.ts), payload digests (payload.ts), and the run's shared state
// (run-context.ts).
import fs from 'node:fs/promises';
import { AppError, isAppError } from '../../shared/errors';
import { getUpload, updateUpload, type UploadStatus } from '../../store/queries/uploads';
import type { Library } from '../library/library';
import { recheckPiiPolicy } from '../privacy/policy';
import { buildBundle } from './bundle';
import { isProcessAlive } from '../../infra/process-alive';
import type { ObjectStore } from './object-store';
import { abortedError } from './retry';
import { removeLeftovers, writeManifest } from './engine/finish';
import { reconcile } from './engine/reconcile';
import { UploadRun } from './engine/run-context';
import { transfer } from './engine/transfer';
import { uploadState, type UploadEngineOptions, type UploadResult } from './engine/types';
import { verifyAll } from './engine/verify';

export { payloadWithMd5, readRange } from './engine/payload';
export { uploadState } from './engine/types';
export type {
  UploadEngineOptions,
  UploadPhase,
  UploadProgress,
  UploadResult,
  UploadState,
  VerifyMode,
} from './engine/types';

/** Statuses during which a process owns the row. */
const RUNNING: readonly UploadStatus[] = ['preparing', 'uploading', 'verifying'];

// Sends (or resumes) one upload row to `store`; resolves when it is verified and `uploaded`.
export async function runUpload(
  lib: Library,
  uploadId: number,
  store: ObjectStore,
  options: UploadEngineOptions,
): Promise<UploadResult> {
  const now = options.now ?? Date.now;
  const startedMs = performance.now();
  const row = getUpload(lib.db, uploadId);
  if (!row) {
    throw new AppError('NOT_FOUND', `No upload with id ${uploadId}.`);
  }
  const state = uploadState(row);
  if (
    RUNNING.includes(row.status) &&
    state.ownerPid !== null &&
    state.ownerPid !== process.pid &&
    isProcessAlive(state.ownerPid)
  ) {
    throw new AppError(
      'UPLOAD_BUSY',
      `Upload ${uploadId} of ${row.recordingId} is being sent by process ${state.ownerPid}; ` +
        'wait for it or stop that process.',
    );
  }
  const run = new UploadRun(lib, row, state, store, options, now);
  try {
    await execute(run);
  } catch (e) {
    run.fail(e);
    throw isAppError(e) ? e : new AppError('INTERNAL', String((e as Error)?.stack ?? e));
  }
  return {
    uploadId,
    recordingId: row.recordingId,
    status: 'uploaded',
    location: `s3://${state.target.bucket}/${state.keyPrefix}/`,
    manifestKey: state.manifestKey,
    objects: run.objects.length,
    bytesTotal: run.bytesTotal,
    bytesSent: run.bytesSent,
    partRequests: run.partRequests,
    retries: run.retries,
    downloadedForVerify: run.downloadedForVerify,
    durationMs: performance.now() - startedMs,
  };
}

/** The phases of one run, in order; throws on the first failure (runUpload records it). */
async function execute(run: UploadRun): Promise<void> {
  const { lib, row, state, store, options } = run;
  state.ownerPid = process.pid;
  run.setStatus('preparing', { error: null });
  run.emit('checking the bucket');
  await run.retrying('HeadBucket', () => store.checkBucket({ signal: run.signal }));
  // the privacy policy again: the recording may have changed since it was queued
  recheckPiiPolicy(lib, row.recordingId, state.pii);
  run.emit('building the submission');
  const bundle = await buildBundle(lib, row.recordingId, lib.resolve(state.stageDir), {
    appVersion: options.appVersion,
    includeKeyframes: options.includeKeyframes ?? true,
    ...(options.extraFiles ? { extraFiles: options.extraFiles } : {}),
  });
  run.bundle = bundle;
  if (run.signal.aborted) {
    throw abortedError();
  }
  await reconcile(run, bundle);

  run.phase = 'uploading';
  run.setStatus('uploading');
  run.emit('uploading');
  // an earlier submission of this recording here (edited since, or --force): withdraw its
  // manifest first, so nobody reads it as complete while its files are being replaced
  const manifestKey = state.manifestKey;
  if (
    await run.retrying('HeadObject manifest.json', () =>
      store.headObject(manifestKey, { signal: run.signal }),
    )
  ) {
    await run.retrying('DeleteObject manifest.json', () =>
      store.deleteObject(manifestKey, { signal: run.signal }),
    );
  }
  await run.settleAll(
    run.objects
      .filter((o) => o.status === 'pending' || o.status === 'uploading')
      .map((o) => () => transfer(run, o)),
  );

  run.phase = 'verifying';
  run.setStatus('verifying');
  run.emit('verifying');
  await verifyAll(run);

  run.phase = 'manifest';
  run.emit('writing the manifest');
  await writeManifest(run);
  await removeLeftovers(run);

  run.phase = 'uploaded';
  state.ownerPid = null;
  state.fingerprint = bundle.fingerprint;
  updateUpload(
    lib.db,
    row.id,
    {
      status: 'uploaded',
      state: { ...state },
      bytesDone: run.bytesTotal,
      bytesTotal: run.bytesTotal,
      error: null,
      submittedAtMs: run.now(),
    },
    run.now(),
  );
  run.bytesDone = run.bytesTotal;
  run.emit('uploaded and verified');
  await fs.rm(lib.resolve(state.stageDir), { recursive: true, force: true });
}
