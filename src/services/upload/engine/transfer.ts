// Transfer of one object: objects up to the part size go in one PUT carrying Content-MD5 (its
// ETag must equal our MD5), larger ones as a multipart upload (multipart.ts) while the whole
// file is hashed alongside for the manifest. A file that changed meanwhile fails the object.
import fs from 'node:fs/promises';
import { AppError } from '../../../shared/errors';
import { sha256File } from '../../../pipeline/io/hash';
import { updateUpload, type UploadObjectRecord } from '../../../store/queries/uploads';
import { isSinglePut } from '../part-plan';
import { putMultipart } from './multipart';
import { contentTypeOf } from './payload';
import type { UploadRun } from './run-context';

// Sends one pending (or half-sent) object and checks that its file did not change meanwhile.
export async function transfer(run: UploadRun, o: UploadObjectRecord): Promise<void> {
  const file = run.filePath(o.path);
  if (isSinglePut(o.sizeBytes, o.partSizeBytes)) {
    await putSingle(run, o);
  } else {
    // the file's SHA-256 (for the manifest) is computed while its parts go up
    const hashing = o.sha256 ? null : sha256File(file);
    hashing?.catch(() => undefined); // awaited below; a failed transfer must not leave it unhandled
    await putMultipart(run, o, true);
    if (hashing) {
      run.markObject(o, { sha256: await hashing });
    }
  }
  const stat = await fs.stat(file);
  if (stat.size !== o.sizeBytes || stat.mtimeMs !== o.mtimeMs) {
    throw new AppError(
      'UPLOAD_VERIFY_FAILED',
      `${o.relKey} changed while it was being uploaded; run the upload again.`,
    );
  }
  run.objectsDone += 1;
  run.emit(`sent ${o.relKey}`);
}

/** One PutObject with Content-MD5 and sha256 metadata; the returned ETag must be our MD5. */
async function putSingle(run: UploadRun, o: UploadObjectRecord): Promise<void> {
  const { payload, release } = await run.readForRequest(run.filePath(o.path), 0, o.sizeBytes, true);
  let etag: string;
  try {
    if (o.sha256 && payload.sha256Hex !== o.sha256) {
      throw new AppError(
        'UPLOAD_VERIFY_FAILED',
        `${o.relKey} changed after it was hashed; run the upload again.`,
      );
    }
    ({ etag } = await run.retrying(`PutObject ${o.relKey}`, () =>
      run.store.putObject(
        run.key(o.relKey),
        payload,
        { metadata: { sha256: payload.sha256Hex }, contentType: contentTypeOf(o.relKey) },
        { signal: run.signal },
      ),
    ));
  } finally {
    release();
  }
  if (etag !== payload.md5Hex) {
    throw new AppError(
      'UPLOAD_VERIFY_FAILED',
      `${run.store.description} stored ${o.relKey} with ETag ${etag}, not its MD5 ${payload.md5Hex ?? ''}.`,
    );
  }
  run.bytesSent += o.sizeBytes;
  run.bytesDone += o.sizeBytes;
  run.markObject(o, { status: 'uploaded', etag, sha256: payload.sha256Hex });
  updateUpload(run.lib.db, run.row.id, { bytesDone: run.bytesDone }, run.now());
}
