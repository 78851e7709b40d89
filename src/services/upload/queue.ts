// The upload queue: one row per recording and target in `uploads`; runs them one recording at a
// time (parts in parallel inside the engine), resumes interrupted ones, pauses and cancels.
import type { UploadViewDto } from '../../shared/contract/methods';
import fs from 'node:fs/promises';
import { AppError, isAppError } from '../../shared/errors';
import { resolveRecordingSeq } from '../../store';
import {
  RESUMABLE_UPLOAD_STATUSES,
  deleteUploadObjects,
  findUpload,
  getUpload,
  insertUpload,
  countUploadObjects,
  listUploadObjects,
  listUploads,
  updateUpload,
  type UploadFilter,
  type UploadRecord,
} from '../../store/queries/uploads';
import type { Library } from '../library/library';
import {
  uploadState,
  type UploadEngineOptions,
  type UploadProgress,
  type UploadResult,
  type UploadState,
} from './engine/types';
import { recordingFingerprint } from './recording-dump';
import { MANIFEST_NAME } from './manifest';
import { enforcePiiPolicy, recordAllowance, type PiiDecision } from '../privacy/policy';
import type { ObjectStore } from './object-store';
import { joinKey, submissionKeyPrefix, targetUrl, type UploadTarget } from './target';

/** Folder (relative to the library) holding the staged submissions of running uploads. */
export const UPLOADS_STAGE_DIR = 'uploads';

/** Where to upload and as whom. */
export type UploadRequest = {
  target: UploadTarget;
  annotator: string;
  /** Upload again even if this recording is already uploaded to the target. Default false. */
  force?: boolean;
  /** Upload despite unresolved PII findings of a blocking kind (else PII_UNRESOLVED); recorded
   * in the review history and the manifest (services/privacy/policy.ts). */
  allowPii?: boolean | undefined;
};

/** What {@link enqueueUpload} decided. */
export type EnqueueResult = {
  uploadId: number;
  recordingId: string;
  /** `new` row, `resume` of an unfinished one, or `already-uploaded` (nothing to do). */
  action: 'new' | 'resume' | 'already-uploaded';
  /** For `new`: the earlier upload to the same target that the recording changed since. */
  supersedes?: number;
  /** The privacy policy's warnings (unresolved non-blocking findings, allowed ones). */
  warnings?: string[];
};

function sameDestination(state: UploadState, request: UploadRequest): boolean {
  return (
    state.annotator === request.annotator &&
    state.target.endpoint === request.target.endpoint &&
    state.target.region === request.target.region &&
    state.target.forcePathStyle === request.target.forcePathStyle
  );
}

// The privacy policy of uploads (PII_UNRESOLVED before anything is queued), not yet recorded.
function uploadPolicy(
  lib: Library,
  ids: readonly string[],
  request: UploadRequest,
  nowMs: number,
): PiiDecision[] {
  return enforcePiiPolicy(lib, ids, {
    action: 'upload',
    allowPii: request.allowPii,
    who: request.annotator,
    record: false,
    now: () => nowMs,
  });
}

// Creates the upload row of a recording (or finds the unfinished one to resume), after the
// privacy policy (`pii`: its decision when the caller already applied it).
export function enqueueUpload(
  lib: Library,
  recordingIdOrPrefix: string,
  request: UploadRequest,
  nowMs = Date.now(),
  pii?: PiiDecision,
): EnqueueResult {
  const { seq, id } = resolveRecordingSeq(lib.db, recordingIdOrPrefix);
  const decision = pii ?? uploadPolicy(lib, [id], request, nowMs)[0]!;
  const warnings = decision.warnings.length ? { warnings: decision.warnings } : {};
  // an allowance is recorded (review history, upload state → manifest) when something is sent
  const allow = (uploadId: number, state: UploadState): void => {
    if (decision.allowance) {
      recordAllowance(lib, id, 'upload', decision.allowance, nowMs);
      state.pii = decision.allowance;
    } else {
      delete state.pii;
    }
    updateUpload(lib.db, uploadId, { state: { ...state } }, nowMs);
  };
  const url = targetUrl(request.target);
  const keyPrefix = submissionKeyPrefix(request.target, request.annotator, id);
  const done = findUpload(lib.db, seq, url, ['uploaded']);
  let supersedes: number | undefined;
  if (done && sameDestination(uploadState(done), request)) {
    const uploaded = uploadState(done).fingerprint;
    if (!request.force && (!uploaded || uploaded === recordingFingerprint(lib, seq))) {
      return { uploadId: done.id, recordingId: id, action: 'already-uploaded', ...warnings };
    }
    supersedes = done.id; // edited since (or --force): a new submission replaces it
  }
  return lib.db.transaction((): EnqueueResult => {
    const open = findUpload(lib.db, seq, url, RESUMABLE_UPLOAD_STATUSES);
    if (open && sameDestination(uploadState(open), request)) {
      allow(open.id, uploadState(open));
      return { uploadId: open.id, recordingId: id, action: 'resume', ...warnings };
    }
    const state: UploadState = {
      target: request.target,
      annotator: request.annotator,
      keyPrefix,
      stageDir: '',
      ownerPid: null,
      manifestKey: joinKey(keyPrefix, MANIFEST_NAME),
    };
    const uploadId = insertUpload(lib.db, {
      recordingSeq: seq,
      target: url,
      status: 'queued',
      state: state,
      nowMs,
    });
    state.stageDir = `${UPLOADS_STAGE_DIR}/${uploadId}`;
    allow(uploadId, state);
    return {
      uploadId,
      recordingId: id,
      action: 'new',
      ...(supersedes === undefined ? {} : { supersedes }),
      ...warnings,
    };
  })();
}

/** An upload as listed by `uploads` and the UI (the contract's DTO). */
export type UploadView = UploadViewDto;

function toView(lib: Library, row: UploadRecord): UploadView {
  const state = uploadState(row);
  const objects = countUploadObjects(lib.db, row.id);
  return {
    uploadId: row.id,
    recordingId: row.recordingId,
    task: row.task,
    target: row.target,
    endpoint: state.target.endpoint,
    annotator: state.annotator,
    location: `s3://${state.target.bucket}/${state.keyPrefix}/`,
    status: row.status,
    bytesDone: row.bytesDone,
    bytesTotal: row.bytesTotal,
    objectsVerified: objects.verified,
    objectsTotal: objects.total,
    error: row.error,
    partRequests: row.partRequests,
    retries: row.retries,
    createdAtMs: row.createdAtMs,
    updatedAtMs: row.updatedAtMs,
    submittedAtMs: row.submittedAtMs,
  };
}

// Lists uploads (queue and history), newest first.
export function listUploadViews(lib: Library, filter: UploadFilter = {}): UploadView[] {
  return listUploads(lib.db, filter).map((r) => toView(lib, r));
}

// One upload as the UI shows it.
export function getUploadView(lib: Library, uploadId: number): UploadView {
  const row = getUpload(lib.db, uploadId);
  if (!row) {
    throw new AppError('NOT_FOUND', `No upload with id ${uploadId}.`);
  }
  return toView(lib, row);
}

// Cancels an upload that is not running: aborts its multipart uploads, deletes the objects it
// already sent (a submission without manifest), removes the staging folder.
export async function cancelUpload(
  lib: Library,
  uploadId: number,
  store: ObjectStore,
): Promise<void> {
  const row = getUpload(lib.db, uploadId);
  if (!row) {
    throw new AppError('NOT_FOUND', `No upload with id ${uploadId}.`);
  }
  if (row.status === 'uploaded' || row.status === 'cancelled') {
    throw new AppError(
      'INVALID_STATE',
      `Upload ${uploadId} is ${row.status}; only unfinished uploads can be cancelled.`,
    );
  }
  const state = uploadState(row);
  for (const o of listUploadObjects(lib.db, uploadId)) {
    const key = joinKey(state.keyPrefix, o.relKey);
    if (o.multipartUploadId) {
      await store.abortMultipartUpload(key, o.multipartUploadId).catch(() => undefined);
    } else if (o.status !== 'pending') {
      await store.deleteObject(key).catch(() => undefined);
    }
  }
  lib.db.transaction(() => {
    deleteUploadObjects(lib.db, uploadId);
    updateUpload(
      lib.db,
      uploadId,
      { status: 'cancelled', bytesDone: 0, error: null, state: { ...state, ownerPid: null } },
      Date.now(),
    );
  })();
  if (state.stageDir) {
    await fs.rm(lib.resolve(state.stageDir), { recursive: true, force: true });
  }
}

/** Outcome of one upload run. */
export type UploadOutcome =
  | { uploadId: number; recordingId: string; ok: true; result: UploadResult }
  | { uploadId: number; recordingId: string; ok: false; code: string; error: string };

/** Dependencies of an {@link UploadQueue}. */
export type UploadQueueDeps = {
  /** The ObjectStore of a target (S3 with the host's credentials, or a presigned store). */
  openStore: (target: UploadTarget) => ObjectStore;
  /** Engine settings used for every run. */
  engine: Omit<UploadEngineOptions, 'signal' | 'onProgress'>;
};

/** Runs queued uploads of one library; the service behind `upload`, the UI and the server. */
export class UploadQueue {
  private readonly listeners = new Set<(p: UploadProgress) => void>();
  /** Running uploads: how to stop each, and when it has stopped. */
  private readonly running = new Map<
    number,
    { controller: AbortController; stopped: Promise<void> }
  >();

  constructor(
    private readonly lib: Library,
    private readonly deps: UploadQueueDeps,
  ) {}

  /** Subscribes to progress events; returns the unsubscribe function. */
  onProgress(listener: (p: UploadProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Queues recordings for upload (see {@link enqueueUpload}). */
  enqueue(recordingIds: readonly string[], request: UploadRequest): EnqueueResult[] {
    // every recording passes the privacy policy before any is queued
    const nowMs = Date.now();
    const ids = recordingIds.map((id) => resolveRecordingSeq(this.lib.db, id).id);
    const decisions = uploadPolicy(this.lib, ids, request, nowMs);
    return ids.map((id, i) => enqueueUpload(this.lib, id, request, nowMs, decisions[i]));
  }

  /** Runs the given uploads one after the other; a failure does not stop the others. */
  async run(uploadIds: readonly number[]): Promise<UploadOutcome[]> {
    const outcomes: UploadOutcome[] = [];
    for (const uploadId of uploadIds) {
      const row = getUpload(this.lib.db, uploadId);
      if (!row) {
        continue;
      }
      const controller = new AbortController();
      let markStopped = (): void => undefined;
      const stopped = new Promise<void>((resolve) => {
        markStopped = resolve;
      });
      this.running.set(uploadId, { controller, stopped });
      const store = this.deps.openStore(uploadState(row).target);
      try {
        // the engine (bundles, exports, hashing) loads with the first upload that runs
        const { runUpload } = await import('./engine');
        const result = await runUpload(this.lib, uploadId, store, {
          ...this.deps.engine,
          signal: controller.signal,
          onProgress: (p) => {
            for (const l of this.listeners) {
              l(p);
            }
          },
        });
        outcomes.push({ uploadId, recordingId: row.recordingId, ok: true, result });
      } catch (e) {
        outcomes.push({
          uploadId,
          recordingId: row.recordingId,
          ok: false,
          code: isAppError(e) ? e.code : 'INTERNAL',
          error: (e as Error).message,
        });
      } finally {
        store.close();
        this.running.delete(uploadId);
        markStopped();
      }
    }
    return outcomes;
  }

  /** Stops a running upload, leaving it resumable (`paused`). */
  pause(uploadId: number): void {
    this.running.get(uploadId)?.controller.abort();
  }

  /** Stops (if running) and cancels an upload; see {@link cancelUpload}. */
  async cancel(uploadId: number): Promise<void> {
    const running = this.running.get(uploadId);
    if (running) {
      running.controller.abort();
      await running.stopped;
    }
    const row = getUpload(this.lib.db, uploadId);
    if (!row) {
      throw new AppError('NOT_FOUND', `No upload with id ${uploadId}.`);
    }
    const store = this.deps.openStore(uploadState(row).target);
    try {
      await cancelUpload(this.lib, uploadId, store);
    } finally {
      store.close();
    }
  }
}
