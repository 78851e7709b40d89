// Resume reconciliation: matches the objects persisted by earlier runs with the files of the
// freshly built bundle. An object keeps what was sent only while its file still holds the same
// bytes (every sent part is hashed again); changed or vanished files start over, and their
// multipart uploads are aborted on the server.
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import { AppError } from '../../../shared/errors';
import { sha256File } from '../../../pipeline/io/hash';
import {
  deleteUploadObject,
  insertUploadObject,
  listUploadObjects,
  listUploadParts,
  type UploadObjectRecord,
} from '../../../store/queries/uploads';
import type { Bundle } from '../bundle';
import { DEFAULT_PART_SIZE_BYTES, choosePartSize } from '../part-plan';
import { readRange } from './payload';
import type { UploadRun } from './run-context';

// Matches the persisted objects with the bundle's files; changed files start over. Sets the
// run's objects and byte counters.
export async function reconcile(run: UploadRun, bundle: Bundle): Promise<void> {
  const db = run.lib.db;
  const existing = new Map(listUploadObjects(db, run.row.id).map((o) => [o.relKey, o]));
  const partSize = run.options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
  for (const f of bundle.files) {
    const file = run.filePath(f.path);
    let stat: Stats;
    try {
      stat = await fs.stat(file);
    } catch {
      throw new AppError(
        'UPLOAD_CONFIG',
        `${f.relKey}: ${file} is missing; the library changed since the upload was prepared.`,
      );
    }
    const ex = existing.get(f.relKey);
    existing.delete(f.relKey);
    if (ex && ex.path === f.path && ex.sizeBytes === stat.size && ex.mtimeMs === stat.mtimeMs) {
      if (!(await changedSince(run, ex, file))) {
        continue;
      }
      // same size and time, other bytes: never pair the parts sent with the new bytes
      run.emit(`${f.relKey} changed since the last run; sending it again`);
    }
    if (ex) {
      await discardObject(run, ex);
    }
    insertUploadObject(db, run.row.id, {
      relKey: f.relKey,
      role: f.role,
      path: f.path,
      sizeBytes: stat.size,
      mtimeMs: stat.mtimeMs,
      // hashed while it is sent (single PUT: from the request body; multipart: alongside)
      sha256: '',
      partSizeBytes: choosePartSize(stat.size, partSize),
      multipartUploadId: null,
      status: 'pending',
      etag: null,
    });
  }
  for (const gone of existing.values()) {
    await discardObject(run, gone);
  }
  run.objects = listUploadObjects(db, run.row.id);
  run.bytesTotal = run.objects.reduce((n, o) => n + o.sizeBytes, 0);
  run.bytesDone = 0;
  for (const o of run.objects) {
    if (o.status === 'uploaded' || o.status === 'verified') {
      run.bytesDone += o.sizeBytes;
      run.objectsDone += 1;
    } else {
      run.bytesDone += listUploadParts(db, run.row.id, o.relKey).reduce(
        (n, p) => n + p.sizeBytes,
        0,
      );
    }
  }
  run.setStatus('preparing');
}

/**
 * True when the bytes of `file` are no longer those already sent for `o` (a resumed upload):
 * every persisted part is hashed again and compared with the SHA-256 stored when it was sent,
 * a sent whole file with its stored SHA-256. Size and modification time alone can stay equal.
 */
async function changedSince(run: UploadRun, o: UploadObjectRecord, file: string): Promise<boolean> {
  const isSent = o.status === 'uploaded' || o.status === 'verified';
  if (isSent && o.sha256) {
    return (await sha256File(file)) !== o.sha256;
  }
  const parts = listUploadParts(run.lib.db, run.row.id, o.relKey);
  if (isSent && !parts.length) {
    return true; // sent, but nothing to compare with: send it again
  }
  for (const p of parts) {
    const bytes = await readRange(file, (p.partNumber - 1) * o.partSizeBytes, p.sizeBytes);
    if (!p.sha256 || createHash('sha256').update(bytes).digest('hex') !== p.sha256) {
      return true;
    }
  }
  return false;
}

/** Forgets an object: aborts its multipart upload (best effort) and deletes its row. */
async function discardObject(run: UploadRun, o: UploadObjectRecord): Promise<void> {
  if (o.multipartUploadId) {
    try {
      await run.store.abortMultipartUpload(run.key(o.relKey), o.multipartUploadId, {
        signal: run.signal,
      });
    } catch {
      // best effort: an upload the server already forgot is fine
    }
  }
  deleteUploadObject(run.lib.db, run.row.id, o.relKey);
}
