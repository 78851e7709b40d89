// `export … --out s3://bucket/prefix` for admins: runs the normal export into a temporary folder,
// then sends every file with the same checks as submissions (Content-MD5, signed SHA-256, ETag,
// retries), verifies each object, and writes `cua-export.json` (file list with sizes and
// SHA-256) last so a reader can tell a finished export from an interrupted one. Not resumable:
// an interrupted export is simply run again.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { sha256File } from '../../pipeline/io/hash';
import {
  exportRecordings,
  type ExportedRecording,
  type ExportOptions,
} from '../export/export-service';
import type { Library } from '../library/library';
import { payloadWithMd5, readRange } from './engine';
import { createLimiter } from './limiter';
import type { ObjectStore } from './object-store';
import {
  DEFAULT_PART_SIZE_BYTES,
  choosePartSize,
  isSinglePut,
  multipartEtag,
  planParts,
} from './part-plan';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryPolicy } from './retry';
import { joinKey } from './target';

/** Name of the file list written last into the export prefix. */
export const EXPORT_MANIFEST_NAME = 'cua-export.json';

/** Options of {@link exportToStore}. */
export type ExportToStoreOptions = Omit<ExportOptions, 'outDir' | 'overwrite'> & {
  /** Key prefix inside the bucket ('' = root). */
  prefix: string;
  partSizeBytes?: number;
  concurrency?: number;
  retry?: RetryPolicy;
  signal?: AbortSignal;
  /** Bytes sent so far, of the total. */
  onUploadProgress?: (bytesDone: number, bytesTotal: number) => void;
};

/** What an export to storage wrote. */
export type ExportToStoreResult = {
  recordings: ExportedRecording[];
  /** Keys written (relative to the prefix), the manifest last. */
  files: { path: string; sizeBytes: number; sha256: string }[];
  bytes: number;
};

async function listFiles(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      out.push(...(await listFiles(dir, p)));
    } else if (e.isFile()) {
      out.push(p);
    }
  }
  return out.sort();
}

/** Options of {@link uploadFolderToStore}. */
export type UploadFolderOptions = {
  /** Key prefix inside the bucket ('' = root). */
  prefix: string;
  partSizeBytes?: number;
  concurrency?: number;
  retry?: RetryPolicy;
  signal?: AbortSignal;
  /** Bytes sent so far, of the total. */
  onUploadProgress?: (bytesDone: number, bytesTotal: number) => void;
  /** A file (relative path) sent only once every other one is stored and verified, so a reader
   * can tell a finished copy from an interrupted one (a dataset's manifest.json). */
  last?: string;
};

/** Sends every file under `dir` to `prefix` of the store (Content-MD5, signed SHA-256, ETag,
 * retries, multipart for large files) and checks each object after; `last` goes after all. */
export async function uploadFolderToStore(
  dir: string,
  store: ObjectStore,
  options: UploadFolderOptions,
): Promise<{ files: { path: string; sizeBytes: number; sha256: string }[]; bytes: number }> {
  const call = options.signal ? { signal: options.signal } : {};
  const retry = <T>(op: () => Promise<T>) =>
    withRetry(op, {
      policy: options.retry ?? DEFAULT_RETRY_POLICY,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const { prefix, partSizeBytes, concurrency, onUploadProgress } = options;
  const rels = await listFiles(dir);
  const files: { path: string; sizeBytes: number; sha256: string }[] = [];
  const sizes = await Promise.all(rels.map(async (r) => (await fs.stat(path.join(dir, r))).size));
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;
  const limiter = createLimiter(concurrency ?? 4);
  const send = async (rel: string, size: number) => {
    const file = path.join(dir, rel);
    const sha256 = await sha256File(file);
    const key = joinKey(prefix, rel);
    const partSize = choosePartSize(size, partSizeBytes ?? DEFAULT_PART_SIZE_BYTES);
    const meta = { metadata: { sha256 }, contentType: 'application/octet-stream' };
    let expected: string;
    if (isSinglePut(size, partSize)) {
      const p = payloadWithMd5(await readRange(file, 0, size));
      const { etag } = await limiter.run(() => retry(() => store.putObject(key, p, meta, call)));
      expected = p.md5Hex;
      if (etag !== expected) {
        throw new AppError('UPLOAD_VERIFY_FAILED', `${key}: ETag ${etag}, expected ${expected}.`);
      }
      bytesDone += size;
      onUploadProgress?.(bytesDone, bytesTotal);
    } else {
      const { uploadId } = await retry(() => store.createMultipartUpload(key, meta, call));
      const plan = planParts(size, partSize);
      const parts = await Promise.all(
        plan.map((part) =>
          limiter.run(async () => {
            const p = payloadWithMd5(await readRange(file, part.offsetBytes, part.sizeBytes));
            const { etag } = await retry(() =>
              store.uploadPart(key, uploadId, part.partNumber, p, call),
            );
            if (etag !== p.md5Hex) {
              throw new AppError(
                'UPLOAD_VERIFY_FAILED',
                `${key} part ${part.partNumber}: ETag ${etag}, expected ${p.md5Hex}.`,
              );
            }
            bytesDone += part.sizeBytes;
            onUploadProgress?.(bytesDone, bytesTotal);
            return { partNumber: part.partNumber, etag, md5: p.md5Hex };
          }),
        ),
      );
      await retry(() => store.completeMultipartUpload(key, uploadId, parts, call));
      expected = multipartEtag(parts.map((p) => p.md5));
    }
    const head = await retry(() => store.headObject(key, call));
    if (!head || head.sizeBytes !== size || head.etag !== expected) {
      throw new AppError(
        'UPLOAD_VERIFY_FAILED',
        `${key} on ${store.description} does not match the file sent; send it again.`,
      );
    }
    files.push({ path: rel, sizeBytes: size, sha256 });
  };
  await Promise.all(rels.flatMap((rel, i) => (rel === options.last ? [] : [send(rel, sizes[i]!)])));
  const lastIndex = options.last === undefined ? -1 : rels.indexOf(options.last);
  if (lastIndex >= 0) {
    await send(rels[lastIndex]!, sizes[lastIndex]!);
  }
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { files, bytes: bytesTotal };
}

// Exports recordings and writes the result under `prefix` of the store, verified.
export async function exportToStore(
  lib: Library,
  ids: readonly string[],
  store: ObjectStore,
  options: ExportToStoreOptions,
): Promise<ExportToStoreResult> {
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'cua-export-s3-'));
  const call = options.signal ? { signal: options.signal } : {};
  const retry = <T>(op: () => Promise<T>) =>
    withRetry(op, {
      policy: options.retry ?? DEFAULT_RETRY_POLICY,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  try {
    await retry(() => store.checkBucket(call));
    const { prefix, partSizeBytes, concurrency, onUploadProgress, ...exportOptions } = options;
    const recordings = await exportRecordings(lib, ids, { ...exportOptions, outDir: work });
    const { files, bytes: bytesTotal } = await uploadFolderToStore(work, store, {
      prefix,
      ...(partSizeBytes !== undefined ? { partSizeBytes } : {}),
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(onUploadProgress ? { onUploadProgress } : {}),
    });
    const manifest = payloadWithMd5(
      Buffer.from(
        `${JSON.stringify(
          {
            schema: 'cua-annotator/export',
            schemaVersion: 1,
            format: options.format,
            toolVersion: options.appVersion,
            exportedAt: new Date().toISOString(),
            recordings: recordings.map((r) => ({
              id: r.id,
              episodeId: r.episodeId,
              // blocking PII findings let through with --allow-pii (services/privacy/policy.ts)
              ...(r.pii ? { pii: { allowed: r.pii } } : {}),
            })),
            files,
          },
          null,
          2,
        )}\n`,
      ),
    );
    const manifestKey = joinKey(prefix, EXPORT_MANIFEST_NAME);
    const { etag } = await retry(() =>
      store.putObject(
        manifestKey,
        manifest,
        { metadata: { sha256: manifest.sha256Hex }, contentType: 'application/json' },
        call,
      ),
    );
    if (etag !== manifest.md5Hex) {
      throw new AppError('UPLOAD_VERIFY_FAILED', `${manifestKey}: ETag ${etag} is not its MD5.`);
    }
    return { recordings, files, bytes: bytesTotal };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}
