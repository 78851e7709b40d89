// Uploads started from the UI (contract methods `uploads:*`): one queue per open library whose
// uploads run one after the other in the background of the serving process, reporting progress
// through `uploads:progress` events. Credentials come from the standard AWS chain.
import { AppError } from '../../shared/errors';
import { RESUMABLE_UPLOAD_STATUSES, getUpload } from '../../store/queries/uploads';
import type { ServiceContext } from '../context';
import type { Library } from '../library/library';
import { loadUploadDefaults, saveUploadDefaults } from './defaults';
import { UploadQueue, getUploadView, listUploadViews, type UploadView } from './queue';
import { S3ObjectStore } from './s3-client';
import { resolveTarget, targetUrl, type UploadTarget } from './target';

/** The saved target of the upload dialog. */
export type UploadDialogDefaults = {
  /** `s3://bucket/prefix`, null when none is saved. */
  to: string | null;
  endpoint: string | null;
  annotator: string | null;
};

type Runner = {
  queue: UploadQueue;
  /** Upload ids waiting to run, in order. */
  pending: number[];
  /** The upload running now. */
  current: number | null;
  /** The drain loop while it runs. */
  active: Promise<void> | null;
  /** Where progress goes (the latest caller's emit). */
  emit: ServiceEmit;
  /** Engine version written into manifests. */
  appVersion: string;
};

type ServiceEmit = ServiceContext['emit'];

const runners = new WeakMap<Library, Runner>();

function openStore(target: UploadTarget): S3ObjectStore {
  return new S3ObjectStore(target, { kind: 'aws-chain' });
}

function runner(lib: Library, emit: ServiceEmit, appVersion: string): Runner {
  let r = runners.get(lib);
  if (!r) {
    const queue = new UploadQueue(lib, { openStore, engine: { appVersion } });
    const created: Runner = {
      queue,
      pending: [],
      current: null,
      active: null,
      emit,
      appVersion,
    };
    queue.onProgress((p) => created.emit('uploads:progress', p));
    runners.set(lib, created);
    r = created;
  }
  r.emit = emit;
  return r;
}

async function drain(r: Runner): Promise<void> {
  try {
    for (let id = r.pending.shift(); id !== undefined; id = r.pending.shift()) {
      r.current = id;
      // a failure is recorded on the upload row (status failed, error text) and in its events
      await r.queue.run([id]);
      r.current = null;
    }
  } finally {
    r.current = null;
    r.active = null;
  }
}

function schedule(r: Runner, uploadIds: readonly number[]): void {
  for (const id of uploadIds) {
    if (r.current !== id && !r.pending.includes(id)) {
      r.pending.push(id);
    }
  }
  if (!r.active && r.pending.length) {
    r.active = drain(r);
  }
}

// The saved upload target and annotator (what the upload dialog is prefilled with).
export function uploadDialogDefaults(lib: Library): UploadDialogDefaults {
  const saved = loadUploadDefaults(lib.db);
  return {
    to: saved.bucket ? targetUrl({ bucket: saved.bucket, prefix: saved.prefix ?? '' }) : null,
    endpoint: saved.endpoint ?? null,
    annotator: saved.annotator ?? null,
  };
}

/** Input of {@link startUploads}. */
export type StartUploadsInput = {
  /** Full recording ids. */
  ids: readonly string[];
  /** `s3://bucket/prefix`; default the saved target. */
  to?: string | undefined;
  /** Default the saved annotator. */
  annotator?: string | undefined;
};

/** Host pieces {@link startUploads} needs. */
export type UploadHost = {
  emit: ServiceEmit;
  appVersion: string;
  /** Environment for the target (AWS_ENDPOINT_URL_S3, AWS_REGION…); default process.env. */
  env?: NodeJS.ProcessEnv;
};

// Resolves the target, checks the bucket is reachable with the host's credentials, saves the
// target as the default, queues the recordings and starts them in the background.
export async function startUploads(
  lib: Library,
  input: StartUploadsInput,
  host: UploadHost,
): Promise<UploadView[]> {
  const resolved = resolveTarget(
    { url: input.to, annotator: input.annotator },
    host.env ?? process.env,
    loadUploadDefaults(lib.db),
  );
  if (!resolved.annotator) {
    throw new AppError(
      'UPLOAD_CONFIG',
      'No annotator: give an annotator name (it becomes the folder of your submissions).',
    );
  }
  const store = openStore(resolved.target);
  try {
    await store.checkBucket();
  } finally {
    store.close();
  }
  saveUploadDefaults(lib.db, resolved.target, resolved.annotator);
  const r = runner(lib, host.emit, host.appVersion);
  const enqueued = r.queue.enqueue(input.ids, {
    target: resolved.target,
    annotator: resolved.annotator,
  });
  schedule(
    r,
    enqueued.filter((e) => e.action !== 'already-uploaded').map((e) => e.uploadId),
  );
  return enqueued.map((e) => getUploadView(lib, e.uploadId));
}

// Every upload of the library, newest first.
export function listUploads(lib: Library): UploadView[] {
  return listUploadViews(lib);
}

// Runs an unfinished upload again in the background (resuming what was already sent).
export function retryUpload(lib: Library, uploadId: number, host: UploadHost): UploadView {
  const row = getUpload(lib.db, uploadId);
  if (!row) {
    throw new AppError('NOT_FOUND', `No upload with id ${uploadId}.`);
  }
  const r = runner(lib, host.emit, host.appVersion);
  if (r.current === uploadId || r.pending.includes(uploadId)) {
    return getUploadView(lib, uploadId);
  }
  if (!RESUMABLE_UPLOAD_STATUSES.includes(row.status)) {
    throw new AppError(
      'INVALID_STATE',
      `Upload ${uploadId} is ${row.status}; only unfinished uploads can be retried.`,
    );
  }
  schedule(r, [uploadId]);
  return getUploadView(lib, uploadId);
}

// Cancels an upload (stopping it if it runs, dropping it if it waits).
export async function cancelUiUpload(
  lib: Library,
  uploadId: number,
  host: UploadHost,
): Promise<UploadView> {
  const r = runner(lib, host.emit, host.appVersion);
  r.pending = r.pending.filter((id) => id !== uploadId);
  await r.queue.cancel(uploadId);
  return getUploadView(lib, uploadId);
}

// Resolves when the library's background uploads have all finished (tests, shutdown).
export async function uploadsIdle(lib: Library): Promise<void> {
  for (let r = runners.get(lib); r?.active; r = runners.get(lib)) {
    await r.active;
  }
}
