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
import type { UploadProgressDto } from '../../shared/contract/methods';
import { createHash } from 'node:crypto';
import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError, isAppError } from '../../shared/errors';
import { sha256File } from '../../pipeline/io/hash';
import { getRecording } from '../../store';
import {
  addUploadCounters,
  deleteUploadObject,
  deleteUploadParts,
  getUpload,
  insertUploadObject,
  insertUploadPart,
  listUploadObjects,
  listUploadParts,
  updateUpload,
  updateUploadObject,
  type UploadObjectRecord,
  type UploadRecord,
  type UploadStatus,
} from '../../store/queries/uploads';
import type { Library } from '../library/library';
import { buildBundle, type Bundle, type ExtraFile } from './bundle';
import { isProcessAlive } from '../../infra/process-alive';
import { createLimiter, type Limiter } from './limiter';
import {
  MANIFEST_NAME,
  SUBMISSION_SCHEMA,
  SUBMISSION_SCHEMA_VERSION,
  manifestText,
  type SubmissionManifest,
} from './manifest';
import type { ObjectInfo, ObjectStore, Payload } from './object-store';
import {
  DEFAULT_PART_SIZE_BYTES,
  choosePartSize,
  isSinglePut,
  multipartEtag,
  planParts,
} from './part-plan';
import { DEFAULT_RETRY_POLICY, abortedError, withRetry, type RetryPolicy } from './retry';
import { joinKey, type UploadTarget } from './target';

/** Phases reported in progress events. */
export type UploadPhase = UploadProgressDto['phase'];

/** A progress event (the contract's `uploads:progress` payload). */
export type UploadProgress = UploadProgressDto;

/** How objects are proven to hold our bytes after the transfer. */
export type VerifyMode =
  /** HEAD: size, sha256 metadata and the ETag (MD5 / multipart MD5); read back if the ETag is opaque. */
  | 'etag'
  /** Additionally read every object back and compare its SHA-256. */
  | 'download';

/** Options of {@link runUpload}. */
export type UploadEngineOptions = {
  /** Version written into the manifest and exports. */
  appVersion: string;
  /** Part size for new objects (bytes, ≥ 5 MiB). Default 8 MiB. */
  partSizeBytes?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /**
   * Also send Content-MD5 with every part and require the part's ETag to equal it. Parts always
   * carry their SHA-256 in the signature, which S3 and Swift verify; this adds a second check for
   * servers that do not, at ~20 % of throughput (MD5 runs at ~0.5 GB/s). Default false.
   */
  partContentMd5?: boolean;
  retry?: RetryPolicy;
  verify?: VerifyMode;
  /** Export keyframes (agentnet-jsonl) into the submission. Default true. */
  includeKeyframes?: boolean;
  /** Files added as-is (tests, benchmarks). */
  extraFiles?: readonly ExtraFile[];
  /** Stops the run, leaving it resumable (`paused`). */
  signal?: AbortSignal;
  onProgress?: (p: UploadProgress) => void;
  /** Clock (epoch ms). Default Date.now. */
  now?: () => number;
};

/** What a finished upload did. */
export type UploadResult = {
  uploadId: number;
  recordingId: string;
  status: UploadStatus;
  /** `s3://bucket/<prefix>/<annotator>/<recording-id>/`. */
  location: string;
  manifestKey: string;
  objects: number;
  bytesTotal: number;
  /** Bytes this run sent (resumed runs send less). */
  bytesSent: number;
  /** UploadPart requests this run sent. */
  partRequests: number;
  retries: number;
  /** Objects whose bytes were read back to verify them. */
  downloadedForVerify: number;
  durationMs: number;
};

/** What the engine keeps in `uploads.upload_state_json`. */
export type UploadState = {
  target: UploadTarget;
  annotator: string;
  /** `<prefix>/<annotator>/<recording-id>`. */
  keyPrefix: string;
  /** Library-relative staging folder of generated files. */
  stageDir: string;
  /** Process currently running the upload (guards against two runners). */
  ownerPid: number | null;
  manifestKey: string;
  /** Fingerprint of the recording's rows that was uploaded (set when `uploaded`). */
  fingerprint?: string;
};

// Reads the engine state of an upload row.
export function uploadState(row: UploadRecord): UploadState {
  return row.state as unknown as UploadState;
}

function resolvePath(lib: Library, p: string): string {
  return path.isAbsolute(p) ? p : lib.resolve(p);
}

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.png': 'image/png',
};

function contentTypeOf(key: string): string {
  return CONTENT_TYPES[path.extname(key).toLowerCase()] ?? 'application/octet-stream';
}

type Digested = Payload & { md5Hex: string | null };

/** A payload with its SHA-256 and MD5 (Content-MD5 and the expected ETag). */
export function payloadWithMd5(body: Buffer): Payload & { md5Base64: string; md5Hex: string } {
  const md5 = createHash('md5').update(body).digest();
  return {
    body,
    sha256Hex: createHash('sha256').update(body).digest('hex'),
    md5Base64: md5.toString('base64'),
    md5Hex: md5.toString('hex'),
  };
}

function digests(body: Buffer, withMd5: boolean): Digested {
  if (withMd5) {
    return payloadWithMd5(body);
  }
  return { body, sha256Hex: createHash('sha256').update(body).digest('hex'), md5Hex: null };
}

/** `size` bytes of `file` from `offset`; a file that became shorter is an error, not zeros. */
export async function readRange(file: string, offset: number, size: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await handle.read(buf, done, size - done, offset + done);
      if (bytesRead === 0) {
        throw new AppError(
          'UPLOAD_VERIFY_FAILED',
          `${file} became shorter while uploading; run the upload again.`,
        );
      }
      done += bytesRead;
    }
    return buf;
  } finally {
    await handle.close();
  }
}

function isNoSuchUpload(e: unknown): boolean {
  return isAppError(e) && e.details?.s3Code === 'NoSuchUpload';
}

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
  const run = new EngineRun(lib, row, state, store, options, now);
  try {
    await run.execute();
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

/** One run of one upload (state shared by the steps below). */
class EngineRun {
  objects: UploadObjectRecord[] = [];
  bytesTotal = 0;
  bytesDone = 0;
  bytesSent = 0;
  partRequests = 0;
  retries = 0;
  downloadedForVerify = 0;
  private phase: UploadPhase = 'preparing';
  private objectsDone = 0;
  private readonly abort = new AbortController();
  /** Requests in flight. */
  private readonly limiter: Limiter;
  /** Parts being read and hashed ahead of a free request slot (bounds memory to 2 × N parts). */
  private readonly readAhead: Limiter;
  private readonly retryPolicy: RetryPolicy;
  private bundle: Bundle | null = null;

  constructor(
    private readonly lib: Library,
    private readonly row: UploadRecord,
    private readonly state: UploadState,
    private readonly store: ObjectStore,
    private readonly options: UploadEngineOptions,
    private readonly now: () => number,
  ) {
    this.limiter = createLimiter(options.concurrency ?? 4);
    this.readAhead = createLimiter(options.concurrency ?? 4);
    this.retryPolicy = options.retry ?? DEFAULT_RETRY_POLICY;
    if (options.signal) {
      if (options.signal.aborted) {
        this.abort.abort();
      }
      options.signal.addEventListener('abort', () => this.abort.abort(), { once: true });
    }
  }

  private get signal(): AbortSignal {
    return this.abort.signal;
  }

  private key(relKey: string): string {
    return joinKey(this.state.keyPrefix, relKey);
  }

  private setStatus(status: UploadStatus, extra: { error?: string | null } = {}): void {
    updateUpload(
      this.lib.db,
      this.row.id,
      {
        status,
        state: { ...this.state },
        bytesDone: this.bytesDone,
        bytesTotal: this.bytesTotal,
        ...extra,
      },
      this.now(),
    );
  }

  private emit(detail: string): void {
    this.options.onProgress?.({
      uploadId: this.row.id,
      recordingId: this.row.recordingId,
      phase: this.phase,
      bytesDone: this.bytesDone,
      bytesTotal: this.bytesTotal,
      objectsDone: this.objectsDone,
      objectsTotal: this.objects.length,
      detail,
    });
  }

  private async retrying<T>(what: string, op: () => Promise<T>): Promise<T> {
    return await withRetry(op, {
      policy: this.retryPolicy,
      signal: this.signal,
      onRetry: (info) => {
        this.retries += 1;
        addUploadCounters(this.lib.db, this.row.id, { retries: 1 });
        this.emit(
          `retry ${info.attempt} of ${what} in ${Math.round(info.delayMs)} ms: ${info.error.message}`,
        );
      },
    });
  }

  async execute(): Promise<void> {
    this.state.ownerPid = process.pid;
    this.setStatus('preparing', { error: null });
    this.emit('checking the bucket');
    await this.retrying('HeadBucket', () => this.store.checkBucket({ signal: this.signal }));
    this.emit('building the submission');
    this.bundle = await buildBundle(
      this.lib,
      this.row.recordingId,
      this.lib.resolve(this.state.stageDir),
      {
        appVersion: this.options.appVersion,
        includeKeyframes: this.options.includeKeyframes ?? true,
        ...(this.options.extraFiles ? { extraFiles: this.options.extraFiles } : {}),
      },
    );
    if (this.signal.aborted) {
      throw abortedError();
    }
    await this.reconcile(this.bundle);

    this.phase = 'uploading';
    this.setStatus('uploading');
    this.emit('uploading');
    // an earlier submission of this recording here (edited since, or --force): withdraw its
    // manifest first, so nobody reads it as complete while its files are being replaced
    const manifestKey = this.state.manifestKey;
    if (
      await this.retrying('HeadObject manifest.json', () =>
        this.store.headObject(manifestKey, { signal: this.signal }),
      )
    ) {
      await this.retrying('DeleteObject manifest.json', () =>
        this.store.deleteObject(manifestKey, { signal: this.signal }),
      );
    }
    await this.settleAll(
      this.objects
        .filter((o) => o.status === 'pending' || o.status === 'uploading')
        .map((o) => () => this.transfer(o)),
    );

    this.phase = 'verifying';
    this.setStatus('verifying');
    this.emit('verifying');
    await this.verifyAll();

    this.phase = 'manifest';
    this.emit('writing the manifest');
    await this.writeManifest();
    await this.removeLeftovers();

    this.phase = 'uploaded';
    this.state.ownerPid = null;
    this.state.fingerprint = this.bundle.fingerprint;
    updateUpload(
      this.lib.db,
      this.row.id,
      {
        status: 'uploaded',
        state: { ...this.state },
        bytesDone: this.bytesTotal,
        bytesTotal: this.bytesTotal,
        error: null,
        submittedAtMs: this.now(),
      },
      this.now(),
    );
    this.bytesDone = this.bytesTotal;
    this.emit('uploaded and verified');
    await fs.rm(this.lib.resolve(this.state.stageDir), { recursive: true, force: true });
  }

  fail(e: unknown): void {
    this.abort.abort();
    this.state.ownerPid = null;
    if (isAppError(e, 'ABORTED')) {
      this.phase = 'paused';
      this.setStatus('paused', { error: null });
      this.emit('paused; run the upload again to resume');
      return;
    }
    this.phase = 'failed';
    const message = isAppError(e) ? `${e.code}: ${e.message}` : `INTERNAL: ${String(e)}`;
    this.setStatus('failed', { error: message });
    this.emit(message);
  }

  /** Runs tasks; the first failure stops the others (their requests are aborted). */
  private async settleAll(tasks: (() => Promise<void>)[]): Promise<void> {
    let first: unknown = null;
    await Promise.all(
      tasks.map(async (task) => {
        try {
          await task();
        } catch (e) {
          // keep the most telling error: a real failure beats the ABORTED it caused elsewhere
          if (first === null || (isAppError(first, 'ABORTED') && !isAppError(e, 'ABORTED'))) {
            first = e;
          }
          if (!isNoSuchUpload(e)) {
            this.abort.abort(); // NoSuchUpload restarts its object (putMultipart) instead
          }
        }
      }),
    );
    if (first !== null) {
      if (isAppError(first, 'ABORTED') && this.options.signal?.aborted !== true) {
        throw new AppError('INTERNAL', 'The upload stopped without a reason.');
      }
      throw isAppError(first) ? first : new AppError('INTERNAL', (first as Error).message);
    }
  }

  /** Matches the persisted objects with the bundle's files; changed files start over. */
  private async reconcile(bundle: Bundle): Promise<void> {
    const db = this.lib.db;
    const existing = new Map(listUploadObjects(db, this.row.id).map((o) => [o.relKey, o]));
    const partSize = this.options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
    for (const f of bundle.files) {
      const file = resolvePath(this.lib, f.path);
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
        if (!(await this.changedSince(ex, file))) {
          continue;
        }
        // same size and time, other bytes: never pair the parts sent with the new bytes
        this.emit(`${f.relKey} changed since the last run; sending it again`);
      }
      if (ex) {
        await this.discardObject(ex);
      }
      insertUploadObject(db, this.row.id, {
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
      await this.discardObject(gone);
    }
    this.objects = listUploadObjects(db, this.row.id);
    this.bytesTotal = this.objects.reduce((n, o) => n + o.sizeBytes, 0);
    this.bytesDone = 0;
    for (const o of this.objects) {
      if (o.status === 'uploaded' || o.status === 'verified') {
        this.bytesDone += o.sizeBytes;
        this.objectsDone += 1;
      } else {
        this.bytesDone += listUploadParts(db, this.row.id, o.relKey).reduce(
          (n, p) => n + p.sizeBytes,
          0,
        );
      }
    }
    this.setStatus('preparing');
  }

  /**
   * True when the bytes of `file` are no longer those already sent for `o` (a resumed upload):
   * every persisted part is hashed again and compared with the SHA-256 stored when it was sent,
   * a sent whole file with its stored SHA-256. Size and modification time alone can stay equal.
   */
  private async changedSince(o: UploadObjectRecord, file: string): Promise<boolean> {
    const isSent = o.status === 'uploaded' || o.status === 'verified';
    if (isSent && o.sha256) {
      return (await sha256File(file)) !== o.sha256;
    }
    const parts = listUploadParts(this.lib.db, this.row.id, o.relKey);
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

  private async discardObject(o: UploadObjectRecord): Promise<void> {
    if (o.multipartUploadId) {
      try {
        await this.store.abortMultipartUpload(this.key(o.relKey), o.multipartUploadId, {
          signal: this.signal,
        });
      } catch {
        // best effort: an upload the server already forgot is fine
      }
    }
    deleteUploadObject(this.lib.db, this.row.id, o.relKey);
  }

  private markObject(o: UploadObjectRecord, patch: Partial<UploadObjectRecord>): void {
    Object.assign(o, patch);
    updateUploadObject(this.lib.db, this.row.id, o.relKey, patch);
  }

  private async transfer(o: UploadObjectRecord): Promise<void> {
    const file = resolvePath(this.lib, o.path);
    if (isSinglePut(o.sizeBytes, o.partSizeBytes)) {
      await this.putSingle(o);
    } else {
      // the file's SHA-256 (for the manifest) is computed while its parts go up
      const hashing = o.sha256 ? null : sha256File(file);
      hashing?.catch(() => undefined); // awaited below; a failed transfer must not leave it unhandled
      await this.putMultipart(o, true);
      if (hashing) {
        this.markObject(o, { sha256: await hashing });
      }
    }
    const stat = await fs.stat(file);
    if (stat.size !== o.sizeBytes || stat.mtimeMs !== o.mtimeMs) {
      throw new AppError(
        'UPLOAD_VERIFY_FAILED',
        `${o.relKey} changed while it was being uploaded; run the upload again.`,
      );
    }
    this.objectsDone += 1;
    this.emit(`sent ${o.relKey}`);
  }

  /** Reads and hashes bytes ahead of a request slot; resolves holding the slot. */
  private async readForRequest(
    file: string,
    offsetBytes: number,
    sizeBytes: number,
    withMd5: boolean,
  ): Promise<{ payload: Digested; release: () => void }> {
    const releaseRead = await this.readAhead.acquire();
    try {
      if (this.signal.aborted) {
        throw abortedError();
      }
      const payload = digests(
        sizeBytes ? await readRange(file, offsetBytes, sizeBytes) : Buffer.alloc(0),
        withMd5,
      );
      const release = await this.limiter.acquire();
      return { payload, release };
    } finally {
      releaseRead();
    }
  }

  private async putSingle(o: UploadObjectRecord): Promise<void> {
    const { payload, release } = await this.readForRequest(
      resolvePath(this.lib, o.path),
      0,
      o.sizeBytes,
      true,
    );
    let etag: string;
    try {
      if (o.sha256 && payload.sha256Hex !== o.sha256) {
        throw new AppError(
          'UPLOAD_VERIFY_FAILED',
          `${o.relKey} changed after it was hashed; run the upload again.`,
        );
      }
      ({ etag } = await this.retrying(`PutObject ${o.relKey}`, () =>
        this.store.putObject(
          this.key(o.relKey),
          payload,
          { metadata: { sha256: payload.sha256Hex }, contentType: contentTypeOf(o.relKey) },
          { signal: this.signal },
        ),
      ));
    } finally {
      release();
    }
    if (etag !== payload.md5Hex) {
      throw new AppError(
        'UPLOAD_VERIFY_FAILED',
        `${this.store.description} stored ${o.relKey} with ETag ${etag}, not its MD5 ${payload.md5Hex ?? ''}.`,
      );
    }
    this.bytesSent += o.sizeBytes;
    this.bytesDone += o.sizeBytes;
    this.markObject(o, { status: 'uploaded', etag, sha256: payload.sha256Hex });
    updateUpload(this.lib.db, this.row.id, { bytesDone: this.bytesDone }, this.now());
  }

  /** Sends the missing parts of a multipart object and completes it. */
  private async putMultipart(o: UploadObjectRecord, mayRestart: boolean): Promise<void> {
    const db = this.lib.db;
    const key = this.key(o.relKey);
    const plan = planParts(o.sizeBytes, o.partSizeBytes);
    try {
      if (o.multipartUploadId) {
        if (await this.resumeCheck(o, plan.length)) {
          return;
        }
      }
      if (!o.multipartUploadId) {
        const { uploadId } = await this.retrying(`CreateMultipartUpload ${o.relKey}`, () =>
          this.store.createMultipartUpload(
            key,
            {
              metadata: o.sha256 ? { sha256: o.sha256 } : {},
              contentType: contentTypeOf(o.relKey),
            },
            { signal: this.signal },
          ),
        );
        this.markObject(o, { multipartUploadId: uploadId, status: 'uploading' });
      }
      const uploadId = o.multipartUploadId!;
      const done = new Set(
        listUploadParts(db, this.row.id, o.relKey)
          .filter((p) => plan[p.partNumber - 1]?.sizeBytes === p.sizeBytes)
          .map((p) => p.partNumber),
      );
      const file = resolvePath(this.lib, o.path);
      await this.settleAll(
        plan
          .filter((p) => !done.has(p.partNumber))
          .map(
            (p) => () =>
              (async () => {
                const { payload, release } = await this.readForRequest(
                  file,
                  p.offsetBytes,
                  p.sizeBytes,
                  this.options.partContentMd5 ?? false,
                );
                let etag: string;
                try {
                  ({ etag } = await this.retrying(`part ${p.partNumber} of ${o.relKey}`, () => {
                    this.partRequests += 1;
                    addUploadCounters(db, this.row.id, { partRequests: 1 });
                    return this.store.uploadPart(key, uploadId, p.partNumber, payload, {
                      signal: this.signal,
                    });
                  }));
                } finally {
                  release();
                }
                if (!/^[0-9a-f]{32}$/.test(etag) || (payload.md5Hex && etag !== payload.md5Hex)) {
                  throw new AppError(
                    'UPLOAD_VERIFY_FAILED',
                    `${this.store.description} acknowledged part ${p.partNumber} of ${o.relKey} ` +
                      `with ETag "${etag}"${payload.md5Hex ? `, not its MD5 ${payload.md5Hex}` : ''}.`,
                  );
                }
                this.bytesSent += p.sizeBytes;
                this.bytesDone += p.sizeBytes;
                db.transaction(() => {
                  insertUploadPart(db, this.row.id, o.relKey, {
                    partNumber: p.partNumber,
                    sizeBytes: p.sizeBytes,
                    md5: payload.md5Hex ?? '',
                    sha256: payload.sha256Hex,
                    etag,
                    completedAtMs: this.now(),
                  });
                  updateUpload(db, this.row.id, { bytesDone: this.bytesDone }, this.now());
                })();
                this.emit(`part ${p.partNumber}/${plan.length} ${o.relKey}`);
              })(),
          ),
      );
      const parts = listUploadParts(db, this.row.id, o.relKey);
      const expected = multipartEtag(parts.map((p) => p.etag));
      const { etag } = await this.limiter.run(() =>
        this.retrying(`CompleteMultipartUpload ${o.relKey}`, async () => {
          try {
            return await this.store.completeMultipartUpload(
              key,
              uploadId,
              parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })),
              { signal: this.signal },
            );
          } catch (e) {
            // a retried Complete whose first attempt succeeded: the upload id is gone
            if (isNoSuchUpload(e)) {
              const head = await this.store.headObject(key, { signal: this.signal });
              if (head && head.sizeBytes === o.sizeBytes && head.etag === expected) {
                return { etag: head.etag };
              }
            }
            throw e;
          }
        }),
      );
      this.markObject(o, { status: 'uploaded', etag: etag || expected, multipartUploadId: null });
    } catch (e) {
      if (isNoSuchUpload(e) && mayRestart) {
        // the server forgot the multipart upload (expired or aborted elsewhere): start it over
        this.bytesDone -= listUploadParts(db, this.row.id, o.relKey).reduce(
          (n, p) => n + p.sizeBytes,
          0,
        );
        deleteUploadParts(db, this.row.id, o.relKey);
        this.markObject(o, { multipartUploadId: null, status: 'pending' });
        this.emit(`restarting ${o.relKey}: the server no longer has its multipart upload`);
        await this.putMultipart(o, false);
        return;
      }
      throw e;
    }
  }

  /**
   * On resume: keeps the persisted parts the server still holds with the same ETag, forgets the
   * others. Returns true when the object turns out to be complete already.
   */
  private async resumeCheck(o: UploadObjectRecord, partCount: number): Promise<boolean> {
    const db = this.lib.db;
    const local = listUploadParts(db, this.row.id, o.relKey);
    let server: Map<number, string>;
    try {
      server = new Map(
        (
          await this.retrying(`ListParts ${o.relKey}`, () =>
            this.store.listParts(this.key(o.relKey), o.multipartUploadId!, { signal: this.signal }),
          )
        ).map((p) => [p.partNumber, p.etag]),
      );
    } catch (e) {
      if (!isNoSuchUpload(e)) {
        throw e;
      }
      // completed by a run that died before recording it?
      if (local.length === partCount) {
        const head = await this.retrying(`HeadObject ${o.relKey}`, () =>
          this.store.headObject(this.key(o.relKey), { signal: this.signal }),
        );
        if (
          head &&
          head.sizeBytes === o.sizeBytes &&
          head.etag === multipartEtag(local.map((p) => p.etag))
        ) {
          this.markObject(o, { status: 'uploaded', etag: head.etag, multipartUploadId: null });
          return true;
        }
      }
      throw e;
    }
    const lost = local.filter((p) => server.get(p.partNumber) !== p.etag).map((p) => p.partNumber);
    if (lost.length) {
      deleteUploadParts(db, this.row.id, o.relKey, lost);
      this.bytesDone -= local
        .filter((p) => lost.includes(p.partNumber))
        .reduce((n, p) => n + p.sizeBytes, 0);
      this.emit(`${lost.length} part(s) of ${o.relKey} are not on the server; sending them again`);
    }
    return false;
  }

  /** Reads back the size and ETag of every object in one listing, then checks each. */
  private async verifyAll(): Promise<void> {
    for (const o of this.objects) {
      if (!o.sha256) {
        // sent by a run that stopped before it finished hashing the file
        this.markObject(o, { sha256: await sha256File(resolvePath(this.lib, o.path)) });
      }
    }
    const pending = this.objects.filter((o) => o.status !== 'verified');
    if (!pending.length) {
      return;
    }
    const listed = new Map<string, ObjectInfo>();
    await this.retrying('ListObjectsV2', async () => {
      listed.clear();
      for await (const info of this.store.listObjects(`${this.state.keyPrefix}/`, {
        signal: this.signal,
      })) {
        listed.set(info.key, info);
      }
    });
    await this.settleAll(
      pending.map((o) => () => this.verify(o, listed.get(this.key(o.relKey)) ?? null)),
    );
  }

  /**
   * Proves that the stored object holds our bytes: its size, and its ETag (the MD5 of a single
   * PUT, or for multipart the MD5 of the part ETags acknowledged after the server checked each
   * part's SHA-256). Where the listing disagrees, HEAD decides; where the ETag proves nothing
   * (opaque ETags, e.g. SSE-KMS) or in `download` mode, the bytes are read back and hashed.
   */
  private async verify(o: UploadObjectRecord, listed: ObjectInfo | null): Promise<void> {
    const key = this.key(o.relKey);
    const fail = (problem: string) =>
      new AppError(
        'UPLOAD_VERIFY_FAILED',
        `${o.relKey} on ${this.store.description}: ${problem}; run the upload again.`,
        { key, problem },
      );
    const expectedEtag = isSinglePut(o.sizeBytes, o.partSizeBytes)
      ? (o.etag ?? '')
      : multipartEtag(listUploadParts(this.lib.db, this.row.id, o.relKey).map((p) => p.etag));
    let info = listed;
    if (!info || info.sizeBytes !== o.sizeBytes || info.etag !== expectedEtag) {
      info = await this.limiter.run(() =>
        this.retrying(`HeadObject ${o.relKey}`, () =>
          this.store.headObject(key, { signal: this.signal }),
        ),
      );
      if (info && info.metadata.sha256 !== undefined && info.metadata.sha256 !== o.sha256) {
        throw fail(`sha256 metadata ${info.metadata.sha256}, expected ${o.sha256}`);
      }
    }
    if (!info) {
      throw fail('the object is missing after the upload');
    }
    if (info.sizeBytes !== o.sizeBytes) {
      throw fail(`size ${info.sizeBytes} bytes, expected ${o.sizeBytes}`);
    }
    const etagProves = expectedEtag !== '' && info.etag === expectedEtag;
    if (!etagProves || this.options.verify === 'download') {
      const sha = await this.limiter.run(() =>
        this.retrying(`GetObject ${o.relKey}`, async () => {
          const hash = createHash('sha256');
          for await (const chunk of await this.store.getObject(key, { signal: this.signal })) {
            hash.update(chunk);
          }
          return hash.digest('hex');
        }),
      );
      this.downloadedForVerify += 1;
      if (sha !== o.sha256) {
        throw fail(`the stored bytes hash to ${sha}, expected ${o.sha256}`);
      }
    }
    this.markObject(o, { status: 'verified' });
  }

  /** Deletes objects of an earlier submission in this folder that the new manifest does not list. */
  private async removeLeftovers(): Promise<void> {
    const keep = new Set([this.state.manifestKey, ...this.objects.map((o) => this.key(o.relKey))]);
    const stale: string[] = [];
    await this.retrying('ListObjectsV2', async () => {
      stale.length = 0;
      for await (const info of this.store.listObjects(`${this.state.keyPrefix}/`, {
        signal: this.signal,
      })) {
        if (!keep.has(info.key)) {
          stale.push(info.key);
        }
      }
    });
    for (const key of stale) {
      await this.retrying(`DeleteObject ${key}`, () =>
        this.store.deleteObject(key, { signal: this.signal }),
      );
    }
  }

  /** Builds manifest.json from the verified objects, writes it last and verifies it. */
  private async writeManifest(): Promise<void> {
    const rec = getRecording(this.lib.db, this.row.recordingId);
    const bundle = this.bundle!;
    const byKey = new Map(bundle.files.map((f) => [f.relKey, f]));
    const manifest: SubmissionManifest = {
      schema: SUBMISSION_SCHEMA,
      schemaVersion: SUBMISSION_SCHEMA_VERSION,
      recordingId: rec.id,
      episodeId: bundle.episodeId,
      task: rec.task,
      platform: rec.platform,
      toolVersion: this.options.appVersion,
      librarySchemaVersion: bundle.librarySchemaVersion,
      annotator: this.state.annotator,
      createdAt: new Date(rec.createdAtMs).toISOString(),
      submittedAt: new Date(this.now()).toISOString(),
      stepCount: bundle.stepCount,
      files: this.objects.map((o) => {
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
      totals: { files: this.objects.length, bytes: this.bytesTotal },
    };
    const payload = digests(Buffer.from(manifestText(manifest)), true);
    const key = this.state.manifestKey;
    const { etag } = await this.retrying('PutObject manifest.json', () =>
      this.store.putObject(
        key,
        payload,
        { metadata: { sha256: payload.sha256Hex }, contentType: 'application/json' },
        { signal: this.signal },
      ),
    );
    const head = await this.retrying('HeadObject manifest.json', () =>
      this.store.headObject(key, { signal: this.signal }),
    );
    if (
      etag !== payload.md5Hex ||
      !head ||
      head.sizeBytes !== payload.body.length ||
      head.etag !== payload.md5Hex
    ) {
      throw new AppError(
        'UPLOAD_VERIFY_FAILED',
        `${MANIFEST_NAME} on ${this.store.description} does not match what was sent; run the ` +
          'upload again.',
      );
    }
  }
}
