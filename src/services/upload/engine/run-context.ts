// The state of one upload run, shared by its steps (reconcile, transfer, multipart, verify,
// finish): the counters it reports, the request and read-ahead slots, retries with progress
// events, the first-failure-stops-the-rest rule, and the row and object updates in SQLite.
import path from 'node:path';
import { AppError, isAppError } from '../../../shared/errors';
import {
  addUploadCounters,
  updateUpload,
  updateUploadObject,
  type UploadObjectRecord,
  type UploadRecord,
  type UploadStatus,
} from '../../../store/queries/uploads';
import type { Library } from '../../library/library';
import type { Bundle } from '../bundle';
import { createLimiter, type Limiter } from '../limiter';
import type { ObjectStore } from '../object-store';
import { DEFAULT_RETRY_POLICY, abortedError, withRetry, type RetryPolicy } from '../retry';
import { joinKey } from '../target';
import { digests, readRange, type Digested } from './payload';
import type { UploadEngineOptions, UploadPhase, UploadState } from './types';

/** True for the S3 error of a multipart upload the server no longer knows. */
export function isNoSuchUpload(e: unknown): boolean {
  return isAppError(e) && e.details?.s3Code === 'NoSuchUpload';
}

/** One run of one upload (state shared by the steps). */
export class UploadRun {
  objects: UploadObjectRecord[] = [];
  bytesTotal = 0;
  bytesDone = 0;
  bytesSent = 0;
  partRequests = 0;
  retries = 0;
  downloadedForVerify = 0;
  phase: UploadPhase = 'preparing';
  objectsDone = 0;
  bundle: Bundle | null = null;
  /** Requests in flight. */
  readonly limiter: Limiter;
  /** Parts being read and hashed ahead of a free request slot (bounds memory to 2 × N parts). */
  private readonly readAhead: Limiter;
  private readonly abort = new AbortController();
  private readonly retryPolicy: RetryPolicy;

  constructor(
    readonly lib: Library,
    readonly row: UploadRecord,
    readonly state: UploadState,
    readonly store: ObjectStore,
    readonly options: UploadEngineOptions,
    readonly now: () => number,
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

  /** Aborted when the caller stops the run or when one of its tasks fails. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** The object key of a submission-relative key. */
  key(relKey: string): string {
    return joinKey(this.state.keyPrefix, relKey);
  }

  /** A path of the bundle or of an object row, absolute (library-relative ones resolved). */
  filePath(p: string): string {
    return path.isAbsolute(p) ? p : this.lib.resolve(p);
  }

  setStatus(status: UploadStatus, extra: { error?: string | null } = {}): void {
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

  emit(detail: string): void {
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

  /** Runs `op` with the retry policy; every retry is counted, persisted and reported. */
  async retrying<T>(what: string, op: () => Promise<T>): Promise<T> {
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

  /** Runs tasks; the first failure stops the others (their requests are aborted). */
  async settleAll(tasks: (() => Promise<void>)[]): Promise<void> {
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

  /** Reads and hashes bytes ahead of a request slot; resolves holding the slot. */
  async readForRequest(
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

  /** Updates an object row, in memory and in SQLite. */
  markObject(o: UploadObjectRecord, patch: Partial<UploadObjectRecord>): void {
    Object.assign(o, patch);
    updateUploadObject(this.lib.db, this.row.id, o.relKey, patch);
  }

  /** Ends a failed run: `paused` when it was stopped (resumable), else `failed` with the error. */
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
}
