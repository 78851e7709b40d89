// Multipart transfer of one object (platform-linux.md §9.1: our own multipart bookkeeping, no
// lib-storage): the upload id and every acknowledged part are persisted in SQLite as soon as the
// server acknowledges it, so a killed process resumes without re-sending them; on resume the
// server's part list decides which persisted parts still count. Every part carries its SHA-256
// in the signature (and, with partContentMd5, Content-MD5); its ETag must be an MD5.
import { AppError } from '../../../shared/errors';
import {
  addUploadCounters,
  deleteUploadParts,
  insertUploadPart,
  listUploadParts,
  updateUpload,
  type UploadObjectRecord,
} from '../../../store/queries/uploads';
import { multipartEtag, planParts, type PartPlan } from '../part-plan';
import { contentTypeOf } from './payload';
import { isNoSuchUpload, type UploadRun } from './run-context';

// Sends the missing parts of a multipart object and completes it; when the server forgot the
// multipart upload and `mayRestart`, the object starts over once.
export async function putMultipart(
  run: UploadRun,
  o: UploadObjectRecord,
  mayRestart: boolean,
): Promise<void> {
  const db = run.lib.db;
  const key = run.key(o.relKey);
  const plan = planParts(o.sizeBytes, o.partSizeBytes);
  try {
    if (o.multipartUploadId) {
      if (await resumeCheck(run, o, plan.length)) {
        return;
      }
    }
    if (!o.multipartUploadId) {
      const { uploadId } = await run.retrying(`CreateMultipartUpload ${o.relKey}`, () =>
        run.store.createMultipartUpload(
          key,
          {
            metadata: o.sha256 ? { sha256: o.sha256 } : {},
            contentType: contentTypeOf(o.relKey),
          },
          { signal: run.signal },
        ),
      );
      run.markObject(o, { multipartUploadId: uploadId, status: 'uploading' });
    }
    const uploadId = o.multipartUploadId!;
    const done = new Set(
      listUploadParts(db, run.row.id, o.relKey)
        .filter((p) => plan[p.partNumber - 1]?.sizeBytes === p.sizeBytes)
        .map((p) => p.partNumber),
    );
    const file = run.filePath(o.path);
    await run.settleAll(
      plan
        .filter((p) => !done.has(p.partNumber))
        .map((p) => () => sendPart(run, o, file, uploadId, p, plan.length)),
    );
    const parts = listUploadParts(db, run.row.id, o.relKey);
    const expected = multipartEtag(parts.map((p) => p.etag));
    const { etag } = await run.limiter.run(() =>
      run.retrying(`CompleteMultipartUpload ${o.relKey}`, async () => {
        try {
          return await run.store.completeMultipartUpload(
            key,
            uploadId,
            parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })),
            { signal: run.signal },
          );
        } catch (e) {
          // a retried Complete whose first attempt succeeded: the upload id is gone
          if (isNoSuchUpload(e)) {
            const head = await run.store.headObject(key, { signal: run.signal });
            if (head && head.sizeBytes === o.sizeBytes && head.etag === expected) {
              return { etag: head.etag };
            }
          }
          throw e;
        }
      }),
    );
    run.markObject(o, { status: 'uploaded', etag: etag || expected, multipartUploadId: null });
  } catch (e) {
    if (isNoSuchUpload(e) && mayRestart) {
      // the server forgot the multipart upload (expired or aborted elsewhere): start it over
      run.bytesDone -= listUploadParts(db, run.row.id, o.relKey).reduce(
        (n, p) => n + p.sizeBytes,
        0,
      );
      deleteUploadParts(db, run.row.id, o.relKey);
      run.markObject(o, { multipartUploadId: null, status: 'pending' });
      run.emit(`restarting ${o.relKey}: the server no longer has its multipart upload`);
      await putMultipart(run, o, false);
      return;
    }
    throw e;
  }
}

/** Sends one part, checks its ETag, and persists it with the upload's progress in one transaction. */
async function sendPart(
  run: UploadRun,
  o: UploadObjectRecord,
  file: string,
  uploadId: string,
  p: PartPlan,
  partCount: number,
): Promise<void> {
  const db = run.lib.db;
  const { payload, release } = await run.readForRequest(
    file,
    p.offsetBytes,
    p.sizeBytes,
    run.options.partContentMd5 ?? false,
  );
  let etag: string;
  try {
    ({ etag } = await run.retrying(`part ${p.partNumber} of ${o.relKey}`, () => {
      run.partRequests += 1;
      addUploadCounters(db, run.row.id, { partRequests: 1 });
      return run.store.uploadPart(run.key(o.relKey), uploadId, p.partNumber, payload, {
        signal: run.signal,
      });
    }));
  } finally {
    release();
  }
  if (!/^[0-9a-f]{32}$/.test(etag) || (payload.md5Hex && etag !== payload.md5Hex)) {
    throw new AppError(
      'UPLOAD_VERIFY_FAILED',
      `${run.store.description} acknowledged part ${p.partNumber} of ${o.relKey} ` +
        `with ETag "${etag}"${payload.md5Hex ? `, not its MD5 ${payload.md5Hex}` : ''}.`,
    );
  }
  run.bytesSent += p.sizeBytes;
  run.bytesDone += p.sizeBytes;
  db.transaction(() => {
    insertUploadPart(db, run.row.id, o.relKey, {
      partNumber: p.partNumber,
      sizeBytes: p.sizeBytes,
      md5: payload.md5Hex ?? '',
      sha256: payload.sha256Hex,
      etag,
      completedAtMs: run.now(),
    });
    updateUpload(db, run.row.id, { bytesDone: run.bytesDone }, run.now());
  })();
  run.emit(`part ${p.partNumber}/${partCount} ${o.relKey}`);
}

/**
 * On resume: keeps the persisted parts the server still holds with the same ETag, forgets the
 * others. Returns true when the object turns out to be complete already.
 */
async function resumeCheck(
  run: UploadRun,
  o: UploadObjectRecord,
  partCount: number,
): Promise<boolean> {
  const db = run.lib.db;
  const local = listUploadParts(db, run.row.id, o.relKey);
  let server: Map<number, string>;
  try {
    server = new Map(
      (
        await run.retrying(`ListParts ${o.relKey}`, () =>
          run.store.listParts(run.key(o.relKey), o.multipartUploadId!, { signal: run.signal }),
        )
      ).map((p) => [p.partNumber, p.etag]),
    );
  } catch (e) {
    if (!isNoSuchUpload(e)) {
      throw e;
    }
    // completed by a run that died before recording it?
    if (local.length === partCount) {
      const head = await run.retrying(`HeadObject ${o.relKey}`, () =>
        run.store.headObject(run.key(o.relKey), { signal: run.signal }),
      );
      if (
        head &&
        head.sizeBytes === o.sizeBytes &&
        head.etag === multipartEtag(local.map((p) => p.etag))
      ) {
        run.markObject(o, { status: 'uploaded', etag: head.etag, multipartUploadId: null });
        return true;
      }
    }
    throw e;
  }
  const lost = local.filter((p) => server.get(p.partNumber) !== p.etag).map((p) => p.partNumber);
  if (lost.length) {
    deleteUploadParts(db, run.row.id, o.relKey, lost);
    run.bytesDone -= local
      .filter((p) => lost.includes(p.partNumber))
      .reduce((n, p) => n + p.sizeBytes, 0);
    run.emit(`${lost.length} part(s) of ${o.relKey} are not on the server; sending them again`);
  }
  return false;
}
