// The composition root of the services (docs/architecture.md §3): every host (the CLI, the
// browser server, later the Electron app) reaches the services only through createServices().
// It owns what lives longer than one call: the upload runner, the keyframe job runner and the
// recorder sessions, and ends them in that order in close().
//
// SKELETON (issue 11 item 6): the shape is final; the upload runner, platform and recorder slots
// are filled in by the following commits.
import { AppError } from '../shared/errors';
import type { ApiEvent, ApiEvents } from '../shared/contract';
import type { Result } from '../shared/result';
import type { MediaKind, ServiceContext } from './context';
import { dispatch } from './dispatch';
import type { Library } from './library/library';

/**
 * What the root needs from the keyframe job runner (src/services/review/keyframe-jobs.ts, written
 * by another change): cancel queued and running jobs and resolve once none runs.
 */
export type KeyframeJobsSlot = {
  close(): Promise<void>;
};

/** Options of {@link createServices}: what the host supplies. */
export type CreateServicesOptions = {
  /** Version written into exports' provenance and upload manifests. */
  appVersion: string;
  /** Pushes a contract event to every connected view (the server's event hub); default: drop. */
  emit?: <E extends ApiEvent>(event: E, payload: ApiEvents[E]) => void;
  /** URL of a recording's media (the server's `/media/...` routes); default: none served. */
  mediaUrl?: (recordingId: string, kind: MediaKind, name?: string) => string;
  /** Diagnostic log (internal error stacks); default standard error. */
  log?: (line: string) => void;
  /** Environment (AWS_*, DISPLAY…); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * SLOT for the keyframe job runner: builds it on the services' context. The root calls its
   * close() after stopping the upload runner.
   */
  keyframeJobs?: (ctx: ServiceContext) => KeyframeJobsSlot;
};

/** The services of one open library. */
export type Services = {
  /** The library they serve (the host opened it and closes it after close()). */
  readonly lib: Library;
  /** The context every handler gets. */
  readonly context: ServiceContext;
  /** The one dispatcher: method + payload in, Result envelope out (never throws). */
  dispatch(method: string, payload: unknown): Promise<Result<unknown>>;
  /** The keyframe job runner, when the host wired one. */
  readonly keyframeJobs: KeyframeJobsSlot | null;
  /** True once close() was called. */
  readonly closed: boolean;
  /**
   * Stops the upload runner, cancels keyframe jobs and ends recorder sessions, in that order;
   * idempotent (a second call returns the first call's promise). Later calls get INVALID_STATE.
   */
  close(): Promise<void>;
};

/** The error of a call after close(). */
export function servicesClosedError(lib: Library): AppError {
  return new AppError(
    'INVALID_STATE',
    `The services of the library ${lib.dir} are closed; open them again (createServices).`,
    { library: lib.dir },
  );
}

// Builds the services of `lib` for one host.
export function createServices(lib: Library, options: CreateServicesOptions): Services {
  let closing: Promise<void> | null = null;
  const context: ServiceContext = {
    lib,
    emit: options.emit ?? (() => undefined),
    mediaUrl: options.mediaUrl ?? ((id, kind, name) => `/media/${id}/${kind}/${name ?? ''}`),
    appVersion: options.appVersion,
    ...(options.log ? { log: options.log } : {}),
  };
  const keyframeJobs = options.keyframeJobs?.(context) ?? null;
  return {
    lib,
    context,
    keyframeJobs,
    get closed() {
      return closing !== null;
    },
    dispatch: (method, payload) => dispatch(context, method, payload),
    close: () => {
      closing ??= (async () => {
        await keyframeJobs?.close();
      })();
      return closing;
    },
  };
}
