// The composition root of the services (docs/architecture.md §3): every host (the CLI, the
// browser server, later the Electron app) reaches the services only through createServices().
// It owns what lives longer than one call: the upload runner, the keyframe job runner and the
// recorder sessions, chooses the recording platform, and ends them in that order in close().
// Nothing of this lives in modules: two instances on two libraries share no state.
//
// It is also the only module of src/services a host imports values from (a layering rule,
// tests/services/create-services.test.ts): the operations the CLI runs beyond the contract
// (list, show, delete, reduce, import, export, pull) are methods here. What only some commands
// need (the dispatcher and its handlers, export, import, the recorder, the AWS SDK, dbus-next,
// execa) loads on first use, so `cua-annotator list` starts within 2x of Node + SQLite
// (bench/cli-startup.ts).
import { createPlatform, type RecorderPlatform } from '../recorder/platform';
import type { ChildLauncher } from '../infra/child-launcher';
import type { ApiEvent, ApiEvents, SystemHealthDto } from '../shared/contract';
import type { RecordingSummary } from '../shared/domain';
import type { RecordingFilter } from '../store';
import { AppError } from '../shared/errors';
import { err, type Result } from '../shared/result';
import type { MediaKind, ServiceContext } from './context';
import type { runExport } from './export/export-service';
import type { importAgentNetFolder } from './import/agentnet-import';
import type { Library } from './library/library';
import { resolveMedia } from './media';
import type { RecordOptions, RecordResult } from './recording/record-service';
import { deleteRecording, listLibrary, showRecording, type RecordingView } from './recordings';
import type { reduceRecording } from './reduce-service';
import type { scanRecording } from './privacy/scan-service';
import type { replayRecording } from './quality/replay-service';
import type { redactAllFindings, redactFindings, RedactedFinding } from './privacy/text-redaction';
import type { listBoxRedactions, undoBoxRedaction, BoxRedaction } from './edits/redactions';
import type { DoctorReport, runDoctor as runDoctorChecks } from './system/doctor';
import { KeyframeJobs, type KeyframeJobsOptions } from './keyframes/keyframe-jobs';
import { ReplayJobs, type ReplayJobsOptions } from './quality/replay-jobs';
import { RecorderService } from './recording/recorder-service';
import { readSettings } from './settings/settings-service';
import type { SecretCipher } from './upload/secret-store';
import { loadUploadDefaults, saveUploadDefaults } from './upload/defaults';
import type { exportToStore } from './upload/export-s3';
import type { pullSubmissions } from './upload/pull';
import { openS3Store } from './upload/s3-store';
import type { UploadDefaults, UploadTarget } from './upload/target';
import { UploadService, type UploadServiceOptions } from './upload/ui-service';
import { fileCredentialStore, type HubCredentialStore } from './team/credential-store';
import { TeamService, type TeamServiceOptions } from './team/team-service';

// What hosts use beside their services: pure helpers and the library's opening (the host opens
// the library, builds its services, closes them, then the library).
export type { Library } from './library/library';
export { openLibraryForHost } from './library/open-for-host';
export { resolveLibraryDir } from './library/library-path';
export { stepCode } from './recordings';
export { MIN_PART_SIZE_BYTES } from './upload/part-plan';
export { describeTarget, resolveTarget, targetUrl } from './upload/target';
export { openS3Store };
// OpenCUA's CoT synthesis (issue 30, docs/cot.md): the `cot` command's batch
export { cotRecordings, type CotBatchItem, type CotBatchOptions } from './cot/cot-batch';
// the team client (HTTP to the hub, stateless): hosts reach it through the root like the rest
export type { HubCredentialStore, HubCredentials } from './team';
export {
  createHubToken,
  credentialsPath,
  fileCredentialStore,
  listHubAudit,
  listHubTokens,
  revokeHubToken,
  listHubSubmissions,
  parseCredentials,
  loginToHub,
  logoutFromHub,
  reviewNext,
  sendVerdict,
  submitToHub,
  syncFromHub,
  whoAmI,
  downloadHubDataset,
  copyHubDatasetToStore,
  hubDatasetStatus,
  listHubDatasets,
  startHubDataset,
} from './team';
// the task hub's client side (docs/team-mode.md §16)
export {
  callHubTasks,
  claimHubTask,
  hostTaskPlatform,
  importHubTasks,
  listHubTasks,
  taskToRecord,
} from './team/tasks';

/** A function of the library with the library bound: what the operations below take. */
type Bound<F> = F extends (lib: Library, ...rest: infer A) => infer R ? (...rest: A) => R : never;

/** `cua-annotator doctor`'s checks (src/services/system/doctor.ts) and their text report. */
export async function runDoctor(
  ...args: Parameters<typeof runDoctorChecks>
): Promise<{ report: DoctorReport; text: string }> {
  const { runDoctor: run, formatDoctorReport } = await import('./system/doctor');
  const report = await run(...args);
  return { report, text: formatDoctorReport(report) };
}

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
  /** Settings of the review UI's replays (a fake replay, pacing; docs/replay.md §6). */
  replayJobs?: ReplayJobsOptions;
  /** The host's secret store for upload credentials (the desktop app: Electron's safeStorage);
   * without one, `settings:set` refuses credentials. */
  secretCipher?: SecretCipher;
  /** How the host keeps the library folder it opens next (the desktop app's own config);
   * without it `settings:set` refuses `libraryDir`. */
  libraryDirSetting?: { next: () => string | null; set: (dir: string) => void };
  /** Checks only the host can make (the desktop app: macOS permissions, Windows DPI), added to
   * `system:health` after the doctor's. */
  hostHealthChecks?: () => SystemHealthDto['checks'];
  /** Interval of the recorder's status pushes while it records, ms; default 1000. */
  recorderTickMs?: number;
  /** How recorder children start (the desktop app: Electron utility processes from the
   * bundled entries); default: child processes (src/infra/child-launcher.ts). */
  launcher?: ChildLauncher;
  /** The host's own windows (the desktop app's window ids), besides this process's windows and
   * the Record page's: a press on one that pauses or stops a recording is never a step
   * (src/services/recording/app-input.ts). */
  appWindows?: RecordOptions['appWindows'];
  /** The team client: where the host keeps the hub sign-in (default the 0600 file beside the
   * library; the desktop app: safeStorage) and whether submits the hub could not take are
   * retried in the background (hosts that keep running: the app and serve; default off). */
  team?: { credentials?: HubCredentialStore; retry?: TeamServiceOptions['retry'] };
};

/** What {@link Services.record} takes: the record service's options without what the root owns. */
export type ServicesRecordOptions = Omit<RecordOptions, 'platform' | 'appVersion'> & {
  /** Asked when the recording is saved: false skips its background keyframes (a discard). */
  keepKeyframes?: () => boolean;
};

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
  /** The recorder the `recorder:*` methods drive (also `context.recorder`). */
  readonly recorder: RecorderService;
  /** Records one session with this OS's parts; close() stops and saves it. */
  record(options: ServicesRecordOptions): Promise<RecordResult>;
  /** The recordings of the library, newest first (`list`). */
  listRecordings(filter?: RecordingFilter): RecordingSummary[];
  /** One recording with its steps (`show`); NOT_FOUND names the id. */
  showRecording(idOrPrefix: string): RecordingView;
  /** Deletes a recording through the trash (`delete`); refuses one still being recorded. */
  deleteRecording(idOrPrefix: string): Promise<{ id: string }>;
  /** Reduces a recording's events to steps again (`reduce`). */
  reduceRecording(
    ...args: Parameters<Bound<typeof reduceRecording>>
  ): Promise<ReturnType<typeof reduceRecording>>;
  /** Scans a recording for personal data and secrets (`scan`); NOT_FOUND names the id. */
  scanRecording(
    ...args: Parameters<Bound<typeof scanRecording>>
  ): Promise<ReturnType<typeof scanRecording>>;
  /** Replays a recording on a display and scores it (`replay`, docs/replay.md §5). */
  replayRecording(
    ...args: Parameters<Bound<typeof replayRecording>>
  ): ReturnType<typeof replayRecording>;
  /** Redacts findings' text by finding id (`scan --redact`): `redact-text` edits. */
  redactFindings(...args: Parameters<Bound<typeof redactFindings>>): Promise<RedactedFinding[]>;
  /** Redacts every unresolved finding's text (`scan --redact-all`). */
  redactAllFindings(
    ...args: Parameters<Bound<typeof redactAllFindings>>
  ): Promise<RedactedFinding[]>;
  /** The box redactions of a recording's edit log (`redact --list`). */
  listBoxRedactions(...args: Parameters<Bound<typeof listBoxRedactions>>): Promise<BoxRedaction[]>;
  /** Undoes a box redaction, which must be the latest active edit (`redact --undo`). */
  undoBoxRedaction(
    ...args: Parameters<Bound<typeof undoBoxRedaction>>
  ): Promise<{ editId: number }>;
  /** Imports an AgentNet raw folder (`import`); its keyframes are computed in the background. */
  importFolder: Bound<typeof importAgentNetFolder>;
  /** Exports recordings to a folder in one of the export formats (`export`). */
  exportRecordings: Bound<typeof runExport>;
  /** Exports recordings and uploads the result to an object store (`export --to`). */
  exportToStore: Bound<typeof exportToStore>;
  /** Pulls submissions from an object store into the library (`pull`). */
  pullSubmissions: Bound<typeof pullSubmissions>;
  /** The saved upload target and annotator. */
  uploadDefaults(): UploadDefaults;
  /** Saves the upload target and annotator (`upload --save`). */
  saveUploadDefaults(target: UploadTarget, annotator: string | null): void;
  /** The file behind a media URL of a recording, or null (the server's `/media/` routes). */
  resolveMedia: Bound<typeof resolveMedia>;
  /** The recording platform (chosen on first use); PLATFORM_UNSUPPORTED where there is none. */
  platform(): RecorderPlatform;
  /** True once close() was called. */
  readonly closed: boolean;
  /**
   * Stops the upload runner (the running upload pauses, resumable), cancels keyframe jobs and
   * the replay under way, and stops recorder sessions (saving what they captured), in that order; idempotent (a second
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
    settingsHost: {
      cipher: options.secretCipher ?? null,
      libraryDir: options.libraryDirSetting ?? null,
    },
    env: options.env ?? process.env,
    hostHealthChecks: options.hostHealthChecks ?? (() => []),
    team: new TeamService(lib, {
      credentials: options.team?.credentials ?? fileCredentialStore(lib.dir),
      appVersion: options.appVersion,
      emit,
      retry: options.team?.retry ?? false,
      ...(options.log ? { log: options.log } : {}),
    }),
  } as Omit<ServiceContext, 'keyframes' | 'recorder' | 'replay'> as ServiceContext;
  // pending submits go to the hub again as soon as a retrying host starts
  context.team.start();
  // the runner reports through the context it is part of
  const keyframeJobs = new KeyframeJobs(context, options.keyframeJobs);
  context.keyframes = keyframeJobs;
  // a replay's driver and hotkey hook start through the host's launcher, as the recorder's do
  context.replay = new ReplayJobs(context, {
    ...(options.launcher ? { launcher: options.launcher } : {}),
    ...options.replayJobs,
  });
  let platform = options.platform ?? null;
  /** Recorder sessions under way: how to stop each, and its outcome. */
  const sessions = new Set<{ stop: AbortController; run: Promise<RecordResult> }>();

  const choosePlatform = (): RecorderPlatform =>
    (platform ??= createPlatform(
      process.platform,
      options.launcher ? { launcher: options.launcher } : {},
    ));
  const guard = (): void => {
    if (closing) {
      throw closedError();
    }
  };

  // built right after the services below: it records through their record()
  let recorder: RecorderService | null = null;
  const services: Services = {
    lib,
    context,
    uploads,
    keyframeJobs,
    get recorder() {
      return recorder as RecorderService;
    },
    get closed() {
      return closing !== null;
    },
    platform: choosePlatform,
    dispatch: async (method, payload) => {
      if (closing) {
        const e = closedError();
        return err({ code: e.code, message: e.message, details: e.details, fix: e.fix });
      }
      const { dispatch } = await import('./dispatch');
      return dispatch(context, method, payload);
    },
    listRecordings: (filter) => (guard(), listLibrary(lib, filter)),
    showRecording: (id) => (guard(), showRecording(lib, id)),
    deleteRecording: async (id) => (guard(), deleteRecording(lib, id)),
    reduceRecording: async (...args) => {
      guard();
      return (await import('./reduce-service')).reduceRecording(lib, ...args);
    },
    listBoxRedactions: async (...args) => {
      guard();
      return (await import('./edits/redactions')).listBoxRedactions(lib, ...args);
    },
    undoBoxRedaction: async (...args) => {
      guard();
      return { editId: (await import('./edits/redactions')).undoBoxRedaction(lib, ...args).id };
    },
    scanRecording: async (...args) => {
      guard();
      return (await import('./privacy/scan-service')).scanRecording(lib, ...args);
    },
    replayRecording: async (idOrPrefix, options = {}) => {
      guard();
      return await (
        await import('./quality/replay-service')
      ).replayRecording(lib, idOrPrefix, {
        // the elements are read with the services' own platform, unless another OS is asked for
        ...(options.platform === undefined ? { recorderPlatform: choosePlatform } : {}),
        ...options,
      });
    },
    redactFindings: async (...args) => {
      guard();
      return (await import('./privacy/text-redaction')).redactFindings(lib, ...args);
    },
    redactAllFindings: async (...args) => {
      guard();
      return (await import('./privacy/text-redaction')).redactAllFindings(lib, ...args);
    },
    importFolder: async (folder, importOptions) => {
      guard();
      const { importAgentNetFolder } = await import('./import/agentnet-import');
      return importAgentNetFolder(lib, folder, importOptions);
    },
    exportRecordings: async (ids, exportOptions) => {
      guard();
      return (await import('./export/export-service')).runExport(lib, ids, exportOptions);
    },
    exportToStore: async (ids, store, exportOptions) => {
      guard();
      return (await import('./upload/export-s3')).exportToStore(lib, ids, store, exportOptions);
    },
    pullSubmissions: async (store, prefix, pullOptions) => {
      guard();
      return (await import('./upload/pull')).pullSubmissions(lib, store, prefix, pullOptions);
    },
    uploadDefaults: () => (guard(), loadUploadDefaults(lib.db)),
    saveUploadDefaults: (target, annotator) => {
      guard();
      saveUploadDefaults(lib.db, target, annotator);
    },
    resolveMedia: (...args) => resolveMedia(lib, ...args),

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
      const { recordSession } = await import('./recording/record-service');
      // close() may have come while the recorder loaded
      guard();
      const run = recordSession(lib, {
        ...recordOptions,
        ...(recordOptions.env || options.env ? { env: recordOptions.env ?? options.env } : {}),
        appVersion: options.appVersion,
        ...(options.launcher ? { launcher: options.launcher } : {}),
        ...(options.appWindows && !recordOptions.appWindows
          ? { appWindows: options.appWindows }
          : {}),
        platform: choosePlatform(),
        signal: stop.signal,
      });
      const session = { stop, run };
      sessions.add(session);
      try {
        const result = await run;
        // the finalised recording's keyframes, in the background
        if (recordOptions.keepKeyframes?.() ?? true) {
          void keyframeJobs.enqueue(result.id);
        }
        return result;
      } finally {
        sessions.delete(session);
      }
    },
    close: () => {
      closing ??= (async () => {
        await context.team.close();
        await uploads.close();
        await keyframeJobs.close();
        await context.replay.close();
        await recorder?.close();
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
  recorder = new RecorderService({
    emit,
    record: (recordOptions) => services.record(recordOptions),
    defaults: () => readSettings(lib, context.settingsHost),
    deleteRecording: (id) => services.deleteRecording(id),
    ...(options.log ? { log: options.log } : {}),
    ...(options.recorderTickMs ? { tickMs: options.recorderTickMs } : {}),
  });
  context.recorder = recorder;
  return services;
}
