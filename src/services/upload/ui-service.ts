// The upload service of one open library: the one path every host takes to uploads (the UI's
// `uploads:*` methods, `cua-annotator upload` and `uploads --cancel`). Its runner sends queued
// uploads one after the other in the background, reporting progress to its listeners and as
// `uploads:progress` events. The composition root (create-services.ts) owns one instance per
// library and closes it; no state lives in this module.
import { AppError, isAppError } from '../../shared/errors';
import {
  RESUMABLE_UPLOAD_STATUSES,
  getUpload,
  type UploadFilter,
} from '../../store/queries/uploads';
import type { ServiceContext } from '../context';
import type { Library } from '../library/library';
import { loadUploadDefaults, saveUploadDefaults } from './defaults';
import type { UploadEngineOptions, UploadProgress } from './engine';
import type { ObjectStore } from './object-store';
import {
  UploadQueue,
  getUploadView,
  listUploadViews,
  type EnqueueResult,
  type UploadOutcome,
  type UploadRequest,
  type UploadView,
} from './queue';
import { openS3Store } from './s3-store';
import { resolveTarget, targetUrl, type UploadTarget } from './target';

/** The saved target of the upload dialog. */
export type UploadDialogDefaults = {
  /** `s3://bucket/prefix`, null when none is saved. */
  to: string | null;
  endpoint: string | null;
  annotator: string | null;
};

/** Input of {@link UploadService.start}. */
export type StartUploadsInput = {
  /** Full recording ids. */
  ids: readonly string[];
  /** `s3://bucket/prefix`; default the saved target. */
  to?: string | undefined;
  /** Default the saved annotator. */
  annotator?: string | undefined;
  /** Upload despite unresolved PII findings of a blocking kind (recorded). */
  allowPii?: boolean | undefined;
};

/** Options of an {@link UploadService}. */
export type UploadServiceOptions = {
  /** Where `uploads:progress` events go. */
  emit: ServiceContext['emit'];
  /** Engine version written into manifests. */
  appVersion: string;
  /** Environment for targets (AWS_ENDPOINT_URL_S3, AWS_REGION…); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The ObjectStore of a target; default S3 with the standard AWS credential chain. */
  openStore?: (target: UploadTarget) => ObjectStore;
  /** Engine settings of every run (part size, concurrency, verification). */
  engine?: Omit<UploadEngineOptions, 'signal' | 'onProgress' | 'appVersion'>;
  /** The error of a call after close(). */
  closedError?: () => AppError;
};

// The outcome of an upload that never ran: paused or cancelled while it waited, or closed.
function notRun(
  lib: Library,
  uploadId: number,
  message: string,
): Extract<UploadOutcome, { ok: false }> {
  const row = getUpload(lib.db, uploadId);
  return {
    uploadId,
    recordingId: row?.recordingId ?? '',
    ok: false,
    code: 'ABORTED',
    error: message,
  };
}

/** The uploads of one library: queueing, the background runner, retry, pause and cancel. */
export class UploadService {
  private readonly queue: UploadQueue;
  private readonly openStore: (target: UploadTarget) => ObjectStore;
  /** Upload ids waiting to run, in order. */
  private pending: number[] = [];
  /** The upload running now. */
  private current: number | null = null;
  /** The drain loop while it runs. */
  private active: Promise<void> | null = null;
  /** Callers of run() waiting for an upload's outcome. */
  private readonly waiters = new Map<number, ((outcome: UploadOutcome) => void)[]>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly lib: Library,
    private readonly options: UploadServiceOptions,
  ) {
    this.openStore =
      options.openStore ?? ((target: UploadTarget) => openS3Store(target, { kind: 'aws-chain' }));
    this.queue = new UploadQueue(lib, {
      openStore: this.openStore,
      engine: { ...options.engine, appVersion: options.appVersion },
    });
    this.queue.onProgress((p) => this.options.emit('uploads:progress', p));
  }

  /** True once close() was called. */
  get closed(): boolean {
    return this.closing !== null;
  }

  private open(): void {
    if (this.closing) {
      throw (
        this.options.closedError?.() ??
        new AppError('INVALID_STATE', 'The upload service is closed.', { library: this.lib.dir })
      );
    }
  }

  /** Subscribes to progress; returns the unsubscribe function. */
  onProgress(listener: (p: UploadProgress) => void): () => void {
    return this.queue.onProgress(listener);
  }

  /** The saved upload target and annotator (what the upload dialog is prefilled with). */
  defaults(): UploadDialogDefaults {
    const saved = loadUploadDefaults(this.lib.db);
    return {
      to: saved.bucket ? targetUrl({ bucket: saved.bucket, prefix: saved.prefix ?? '' }) : null,
      endpoint: saved.endpoint ?? null,
      annotator: saved.annotator ?? null,
    };
  }

  /**
   * The UI's upload: resolves the target, checks the bucket is reachable with the host's
   * credentials, saves the target as the default, queues the recordings and starts them in the
   * background.
   */
  async start(input: StartUploadsInput): Promise<UploadView[]> {
    this.open();
    const resolved = resolveTarget(
      { url: input.to, annotator: input.annotator },
      this.options.env ?? process.env,
      loadUploadDefaults(this.lib.db),
    );
    if (!resolved.annotator) {
      throw new AppError(
        'UPLOAD_CONFIG',
        'No annotator: give an annotator name (it becomes the folder of your submissions).',
      );
    }
    const store = this.openStore(resolved.target);
    try {
      await store.checkBucket();
    } finally {
      store.close();
    }
    this.open();
    saveUploadDefaults(this.lib.db, resolved.target, resolved.annotator);
    const enqueued = this.enqueue(input.ids, {
      target: resolved.target,
      annotator: resolved.annotator,
      allowPii: input.allowPii,
    });
    this.schedule(enqueued.filter((e) => e.action !== 'already-uploaded').map((e) => e.uploadId));
    return enqueued.map((e) => getUploadView(this.lib, e.uploadId));
  }

  /** Queues recordings for upload without starting them (see queue.ts enqueueUpload). */
  enqueue(recordingIds: readonly string[], request: UploadRequest): EnqueueResult[] {
    this.open();
    return this.queue.enqueue(recordingIds, request);
  }

  /**
   * Runs uploads through the background runner and resolves with their outcomes, in the given
   * order, once each has ended (the CLI's `upload`). A failure does not stop the others.
   */
  run(uploadIds: readonly number[]): Promise<UploadOutcome[]> {
    this.open();
    const outcomes = uploadIds.map(
      (id) =>
        new Promise<UploadOutcome>((resolve) => {
          this.waiters.set(id, [...(this.waiters.get(id) ?? []), resolve]);
        }),
    );
    this.schedule(uploadIds);
    return Promise.all(outcomes);
  }

  /** Every upload of the library (or those matching `filter`), newest first. */
  list(filter: UploadFilter = {}): UploadView[] {
    return listUploadViews(this.lib, filter);
  }

  /** One upload as the UI shows it. */
  view(uploadId: number): UploadView {
    return getUploadView(this.lib, uploadId);
  }

  /** Runs an unfinished upload again in the background (resuming what was already sent). */
  retry(uploadId: number): UploadView {
    this.open();
    const row = getUpload(this.lib.db, uploadId);
    if (!row) {
      throw new AppError('NOT_FOUND', `No upload with id ${uploadId}.`);
    }
    if (this.current === uploadId || this.pending.includes(uploadId)) {
      return getUploadView(this.lib, uploadId);
    }
    if (!RESUMABLE_UPLOAD_STATUSES.includes(row.status)) {
      throw new AppError(
        'INVALID_STATE',
        `Upload ${uploadId} is ${row.status}; only unfinished uploads can be retried.`,
      );
    }
    this.schedule([uploadId]);
    return getUploadView(this.lib, uploadId);
  }

  /** Stops an upload, leaving it resumable: a running one is paused, a waiting one dropped. */
  pause(uploadId: number): void {
    this.unschedule(uploadId, 'paused before it started; run the upload again to resume');
    this.queue.pause(uploadId);
  }

  /** Cancels an upload (stopping it if it runs, dropping it if it waits). */
  async cancel(uploadId: number): Promise<UploadView> {
    this.open();
    this.unschedule(uploadId, 'cancelled before it started');
    await this.queue.cancel(uploadId);
    return getUploadView(this.lib, uploadId);
  }

  /** Resolves when no upload runs or waits (tests). */
  async idle(): Promise<void> {
    while (this.active) {
      await this.active;
    }
  }

  /**
   * Stops the runner: waiting uploads are dropped (they stay queued in the library and resume
   * on the next run), the running one is paused; resolves once it has stopped. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const id of [...this.pending]) {
        this.unschedule(id, 'not started: the services closed; run the upload again to resume');
      }
      if (this.current !== null) {
        this.queue.pause(this.current);
      }
      await this.idle();
    })();
    return this.closing;
  }

  private unschedule(uploadId: number, message: string): void {
    if (!this.pending.includes(uploadId)) {
      return;
    }
    this.pending = this.pending.filter((id) => id !== uploadId);
    this.settle(notRun(this.lib, uploadId, message));
  }

  private settle(outcome: UploadOutcome): void {
    const waiting = this.waiters.get(outcome.uploadId) ?? [];
    this.waiters.delete(outcome.uploadId);
    for (const resolve of waiting) {
      resolve(outcome);
    }
  }

  private schedule(uploadIds: readonly number[]): void {
    for (const id of uploadIds) {
      if (this.current !== id && !this.pending.includes(id)) {
        this.pending.push(id);
      }
    }
    if (!this.active && this.pending.length) {
      this.active = this.drain();
    }
  }

  private async drain(): Promise<void> {
    try {
      for (let id = this.pending.shift(); id !== undefined; id = this.pending.shift()) {
        this.current = id;
        // a failure is recorded on the upload row (status failed, error text) and in its events
        let outcome: UploadOutcome;
        try {
          const [o] = await this.queue.run([id]);
          outcome = o ?? notRun(this.lib, id, `No upload with id ${id}.`);
        } catch (e) {
          const failed = notRun(this.lib, id, (e as Error).message);
          outcome = { ...failed, ok: false, code: isAppError(e) ? e.code : 'INTERNAL' };
        }
        this.current = null;
        this.settle(outcome);
      }
    } finally {
      this.current = null;
      this.active = null;
    }
  }
}
