// The composition root of the services (docs/architecture.md §3): every host (the CLI, the
// browser server, later the Electron app) reaches the services only through createServices().
// It owns what lives longer than one call: the upload runner, the keyframe job runner and the
// recorder sessions, chooses the recording platform, and ends them in that order in close().
// Nothing of this lives in modules: two instances on two libraries share no state.
import { createPlatform, type RecorderPlatform } from '../recorder/platform';
import type { ApiEvent, ApiEvents } from '../shared/contract';
import { AppError } from '../shared/errors';
import { err, type Result } from '../shared/result';
import type { MediaKind, ServiceContext } from './context';
import { dispatch } from './dispatch';
import type { Library } from './library/library';
import { recordSession, type RecordOptions, type RecordResult } from './recording/record-service';
import { KeyframeJobs, type KeyframeJobsOptions } from './review/keyframe-jobs';
import { UploadService, type UploadServiceOptions } from './upload/ui-service';

/** Options of {@link createServices}: what the host supplies. */
export type CreateServicesOptions = {
  /** Version written into exports' provenance and upload manifests. */
  appVersion: string;
  /** Pushes a contract event to every connected view (the server's event hub); default: drop. */
  emit?: <E extends ApiEvent>(event: E, payload: ApiEvents[E]) => void;
  /** URL of a recording's media (the server's `/media/...` routes); default `/media/<id>/…`. */
  mediaUrl?: (recordingId: string, kind: MediaKind, name?: string) => string;
  /** Diagnostic log (internal error stacks); default standard error. */
  log?: (line: string) => void;
  /** Environment (AWS_*, DISPLAY…); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * The recording parts of the operating system; default `createPlatform(process.platform)`,
   * chosen when the first recording starts (so hosts on an OS without them still serve). Tests
   * pass a fake one.
   */
  platform?: RecorderPlatform;
  /** Upload settings (the CLI's flags): the store of a target and engine settings. */
  uploads?: Pick<UploadServiceOptions, 'openStore' | 'engine'>;
  /** Settings of the keyframe job runner (decode binaries, clock); its close() runs second. */
  keyframeJobs?: KeyframeJobsOptions;
};

/** What {@link Services.record} takes: the record service's options without what the root owns. */
export type ServicesRecordOptions = Omit<RecordOptions, 'platform' | 'appVersion'>;

/** The services of one open library. */
export type Services = {
  /** The library they serve (the host opened it and closes it after close()). */
  readonly lib: Library;
  /** The context every handler gets. */
  readonly context: ServiceContext;
  /** The one dispatcher: method + payload in, Result envelope out (never throws). */
  dispatch(method: string, payload: unknown): Promise<Result<unknown>>;
  /** The library's uploads: the one path of the UI and the CLI. */
  readonly uploads: UploadService;
  /** The keyframe job runner (also `context.keyframes`). */
  readonly keyframeJobs: KeyframeJobs;
  /** Records one session with this OS's parts; close() stops and saves it. */
  record(options: ServicesRecordOptions): Promise<RecordResult>;
  /** The recording platform (chosen on first use); PLATFORM_UNSUPPORTED where there is none. */
  platform(): RecorderPlatform;
  /** True once close() was called. */
  readonly closed: boolean;
  /**
   * Stops the upload runner (the running upload pauses, resumable), cancels keyframe jobs and
   * stops recorder sessions (saving what they captured), in that order; idempotent (a second
   * call returns the first call's promise). Calls after it get INVALID_STATE.
   */
  close(): Promise<void>;
};

// Builds the services of `lib` for one host.
export function createServices(lib: Library, options: CreateServicesOptions): Services {
  let closing: Promise<void> | null = null;
  const closedError = (): AppError =>
    new AppError(
      'INVALID_STATE',
      `The services of the library ${lib.dir} are closed; this call came after close().`,
      { library: lib.dir },
      'Create the services again (createServices) to keep using the library.',
    );
  const emit = options.emit ?? (() => undefined);
  const uploads = new UploadService(lib, {
    emit,
    appVersion: options.appVersion,
    ...(options.env ? { env: options.env } : {}),
    ...options.uploads,
    closedError,
  });
  const context = {
    lib,
    emit,
    mediaUrl: options.mediaUrl ?? ((id, kind, name) => `/media/${id}/${kind}/${name ?? ''}`),
    appVersion: options.appVersion,
    ...(options.log ? { log: options.log } : {}),
    uploads,
    writeQueue: { tail: Promise.resolve() },
  } as Omit<ServiceContext, 'keyframes'> as ServiceContext;
  // the runner reports through the context it is part of
  const keyframeJobs = new KeyframeJobs(context, options.keyframeJobs);
  context.keyframes = keyframeJobs;
  let platform = options.platform ?? null;
  /** Recorder sessions under way: how to stop each, and its outcome. */
  const sessions = new Set<{ stop: AbortController; run: Promise<RecordResult> }>();

  const choosePlatform = (): RecorderPlatform => (platform ??= createPlatform(process.platform));

  return {
    lib,
    context,
    uploads,
    keyframeJobs,
    get closed() {
      return closing !== null;
    },
    platform: choosePlatform,
    dispatch: async (method, payload) => {
      if (closing) {
        const e = closedError();
        return err({ code: e.code, message: e.message, details: e.details, fix: e.fix });
      }
      return dispatch(context, method, payload);
    },
    record: async (recordOptions) => {
      if (closing) {
        throw closedError();
      }
      const stop = new AbortController();
      const outer = recordOptions.signal;
      outer?.addEventListener('abort', () => stop.abort(), { once: true });
      if (outer?.aborted) {
        stop.abort();
      }
      const run = recordSession(lib, {
        ...recordOptions,
        ...(recordOptions.env || options.env ? { env: recordOptions.env ?? options.env } : {}),
        appVersion: options.appVersion,
        platform: choosePlatform(),
        signal: stop.signal,
      });
      const session = { stop, run };
      sessions.add(session);
      try {
        const result = await run;
        // the finalised recording's keyframes, in the background
        void keyframeJobs.enqueue(result.id);
        return result;
      } finally {
        sessions.delete(session);
      }
    },
    close: () => {
      closing ??= (async () => {
        await uploads.close();
        await keyframeJobs.close();
        const running = [...sessions];
        for (const s of running) {
          s.stop.abort();
        }
        // a session that failed reports it to its own caller; close only waits for the end
        await Promise.allSettled(running.map((s) => s.run));
      })();
      return closing;
    },
  };
}
