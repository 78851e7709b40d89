// Records one session into the library: refuses a bad environment up front, marks the row
// `active` before capture, streams every batch into SQLite, finalises the video and reduces.
import type { ChildLauncher } from '../../infra/child-launcher';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import { monotonicNowMs } from '../../recorder/clock';
import { osInfo, type DisplayInfo } from '../../recorder/display-info';
import { checkInputHookPreconditions } from '../../recorder/input/input-preconditions';
import type { HotkeyBindings } from '../../recorder/input/hotkeys';
import type { LiveWarningOptions } from '../../recorder/live-warnings';
import type { RecorderPlatform } from '../../recorder/platform';
import { RecordingSession, type SessionState, type SessionStats } from '../../recorder/session';
import { AppError } from '../../shared/errors';
import {
  isCaptureFfmpegVersion,
  MIN_CAPTURE_FFMPEG_VERSION,
} from '../../recorder/screen/ffmpeg-args';
import {
  deleteRecordingRow,
  insertRecording,
  listMarks,
  resolveRecordingSeq,
  updateRecording,
  getCapture,
} from '../../store';
import { RECORDINGS_DIR, type Library } from '../library/library';
import { addRecordingWarnings } from '../../store/queries/recording-warnings';
import { DEFAULT_DISK_FLOOR_BYTES, formatMegabytes, freeBytes, watchDiskSpace } from './disk-watch';
import { endOpenExclusionMarks } from './exclusion-marks';
import { finalizeCapture } from './finalize';
import { compileExclusions, exclusionRules } from '../../recorder/privacy/exclusion';
import { appPressCheck, isAppWindow, type AppWindows } from './app-input';
import { readPrivacySettings } from '../settings/settings-service';
import { LibrarySink } from './library-sink';
import { TEAM_TASK_ID_KEY } from '../../shared/tasks-file';

/** Options of {@link recordSession}. */
export type RecordOptions = {
  task: string;
  /** The hub task this recording is made for (`record --task-id`), kept in its source
   * metadata from the start (docs/team-mode.md §16). */
  teamTaskId?: number;
  /** The OS's capture backend, accessibility adapter and window tracker (chosen by the
   * composition root, src/services/create-services.ts). */
  platform: RecorderPlatform;
  /** Frames per second; default 30. */
  fps?: number;
  /** Stop after this many seconds; default: until stopped. */
  durationS?: number;
  /** X display (default `DISPLAY`). */
  display?: string;
  /** Record without accessibility. */
  noA11y?: boolean;
  /** More applications to exclude (`record --exclude-app`), over the settings' rules
   * (docs/privacy.md). */
  excludeApps?: readonly string[];
  /** More window-title regular expressions to exclude (`record --exclude-title`). */
  excludeTitles?: readonly string[];
  hotkeys?: HotkeyBindings;
  /** How the input-hook child starts (the desktop app: a utility process); default detected. */
  launcher?: ChildLauncher;
  appVersion: string;
  env?: NodeJS.ProcessEnv;
  /** Aborting stops the recording (SIGINT/SIGTERM in the CLI). */
  signal?: AbortSignal;
  /** The recording row exists and capture runs. */
  onStarted?: (info: { id: string; display: DisplayInfo }) => void;
  /** Right after onStarted: the handle a host drives the recording with (pause, resume, stop). */
  onControl?: (control: RecordControl) => void;
  onStateChange?: (state: SessionState) => void;
  onWarning?: (message: string) => void;
  /** Free-space limits of the library's disk, bytes: warn below `warnBytes`, stop and save below
   * `floorBytes` (defaults: disk-watch.ts); `intervalMs` between checks. */
  disk?: { warnBytes?: number; floorBytes?: number; intervalMs?: number };
  /** Thresholds of the idle and long-recording live warnings (defaults: 60 s, 30 min;
   * src/recorder/live-warnings.ts). Live warnings go to onWarning and are stored at once. */
  liveWarnings?: LiveWarningOptions;
  /**
   * The host's own windows (the desktop app's window ids), besides this process's windows and
   * the Record page's: only a press aimed at one of them is taken for the gesture of a pause or
   * stop the app asks for (RecordControl.excludeAppGesture, app-input.ts). Windows of these ids
   * are also left out of the recording like excluded windows (capture-exclusion.ts isOwnWindow).
   */
  appWindows?: () => Partial<AppWindows>;
};

/** What a host drives a running recording with (src/services/recording/recorder-service.ts). */
export type RecordControl = {
  /** The session's state now. */
  readonly state: SessionState;
  /** Live figures (elapsed, frames, drops, events). */
  stats(): SessionStats;
  /** Pauses; a pause whose video cannot end stops the recording and saves it. */
  pause(): Promise<void>;
  /** Resumes after a pause (a new video segment). */
  resume(): Promise<void>;
  /** Asks the recording to stop; recordSession then saves it and resolves. */
  stop(): void;
  /** Leaves the click or key that asked for this at `requestMs` (the session clock, default now)
   * out of the steps, once the input hook delivered up to then: only a press aimed at the app's
   * own window (RecordOptions.appWindows); none such, nothing is left out. */
  excludeAppGesture(requestMs?: number): Promise<void>;
};

/** One-line summary facts of a finished recording. */
export type RecordResult = {
  id: string;
  status: string;
  durationMs: number;
  frames: number;
  events: number;
  steps: number;
  warnings: string[];
  /** Why the recording ended before it was asked to (ffmpeg died, the input hook gave up, the
   * disk filled up); everything captured before is saved. Null after a normal stop. */
  error: AppError | null;
};

/** Records until the duration elapses, the stop hotkey is pressed or `signal` aborts. */
export async function recordSession(lib: Library, options: RecordOptions): Promise<RecordResult> {
  const env = {
    ...(options.env ?? process.env),
    ...(options.display ? { DISPLAY: options.display } : {}),
  };
  const warn = (m: string) => options.onWarning?.(m);
  if (!options.task.trim()) {
    throw new AppError(
      'INVALID_PAYLOAD',
      'The task instruction is empty: say what the recording demonstrates (--task "…").',
    );
  }
  const { platform } = options;
  // exclusion rules (settings, then this recording's own): a bad one is refused before anything
  // is spawned or written
  const exclusion = compileExclusions(
    exclusionRules({
      settings: readPrivacySettings(lib),
      excludeApps: options.excludeApps,
      excludeTitles: options.excludeTitles,
    }),
  );
  // refuse a bad environment before anything is written: the OS's own checks first (a Wayland
  // session, a macOS permission denied), then the input hook's (DISPLAY and RECORD on X11)
  await platform.preflight?.(env);
  await checkInputHookPreconditions({ env });
  const display = await platform.capture.readDisplay(env);
  const ffmpeg = await platform.capture.resolveFfmpeg(env);
  if (!isCaptureFfmpegVersion(ffmpeg.version)) {
    throw new AppError(
      'FFMPEG_NOT_FOUND',
      `ffmpeg at ${ffmpeg.path} is version ${ffmpeg.version}: recording needs ${MIN_CAPTURE_FFMPEG_VERSION} or newer (its -fps_mode option).`,
      { path: ffmpeg.path, version: ffmpeg.version },
      `Install ffmpeg ${MIN_CAPTURE_FFMPEG_VERSION} or newer, or point CUA_FFMPEG at one.`,
    );
  }
  const accessibility = options.noA11y
    ? null
    : platform.accessibility({ now: monotonicNowMs, env });

  const id = randomUUID();
  const relDir = `${RECORDINGS_DIR}/${id}`;
  const dir = lib.resolve(relDir);
  await fs.mkdir(dir, { recursive: true });
  // refuse to start on a disk that is already nearly full
  const diskFloor = options.disk?.floorBytes ?? DEFAULT_DISK_FLOOR_BYTES;
  const freeAtStart = await freeBytes(dir);
  if (freeAtStart < diskFloor) {
    await fs.rm(dir, { recursive: true, force: true });
    throw new AppError(
      'DISK_SPACE_LOW',
      `Only ${formatMegabytes(freeAtStart)} free on the disk holding the library (${lib.resolve('.')}); recording needs at least ${formatMegabytes(diskFloor)}.`,
      { freeBytes: freeAtStart, floorBytes: diskFloor },
      'Free space on that disk or record into a library on another disk (--library DIR).',
    );
  }
  const nowMs = Date.now();
  const fps = options.fps ?? 30;
  const seq = insertRecording(lib.db, {
    id,
    source: 'recorder',
    task: options.task,
    description: '',
    status: 'active',
    platform: { ...osInfo(), model: null },
    screen: {
      width: display.width,
      height: display.height,
      scale: display.scale,
      // events and accessibility bounds are stored relative to this corner (coordinates.ts)
      origin: { x: display.origin?.x ?? 0, y: display.origin?.y ?? 0 },
      monitors: display.monitors,
    },
    videoStartMs: null,
    videoStartMethod: null,
    durationMs: null,
    appVersion: options.appVersion,
    dir: relDir,
    startedAt: new Date(nowMs).toISOString(),
    stoppedAt: null,
    sourceMetadata:
      options.teamTaskId === undefined ? null : { [TEAM_TASK_ID_KEY]: options.teamTaskId },
    capture: {
      pid: process.pid,
      host: os.hostname(),
      clock: 'CLOCK_MONOTONIC ms',
      display: display.display,
      xVendor: display.vendor,
      fps,
      ffmpeg: { path: ffmpeg.path, version: ffmpeg.version, source: ffmpeg.source },
      accessibility: accessibility ? platform.accessibilityApi : 'off (--no-a11y)',
      segments: [],
    },
    warnings: [],
    nowMs,
  });
  const sink = new LibrarySink(lib, seq, relDir);
  let stopRequested: () => void = () => undefined;
  const stopSignal = new Promise<void>((resolve) => {
    stopRequested = resolve;
  });
  const { windowStack } = platform;
  const session = new RecordingSession({
    outputDir: dir,
    display,
    platform,
    ffmpegPath: ffmpeg.path,
    fps,
    accessibility,
    sink,
    // a change of the recorded display starts a new video segment instead of failing
    displayWatcher: platform.displays?.({ now: monotonicNowMs, env }) ?? null,
    inputUnit: platform.inputUnit,
    // clicks count as aimed at the window under the pointer where the OS lets us ask (X11);
    // elsewhere at the focused window (docs/privacy.md §2)
    exclusion: {
      matcher: exclusion,
      pointerWindow: platform.pointerWindow?.(env) ?? null,
      ...(platform.processName ? { processName: platform.processName } : {}),
      // excluded windows on the screen, focused or not, are blanked where they are (X11)
      windowStack: windowStack
        ? (select) =>
            windowStack({
              env,
              now: monotonicNowMs,
              select,
              onError: (e) =>
                warn(
                  `the windows on the screen cannot be read (${e.message}): excluded windows found before stay blanked, new ones are blanked only while they have focus`,
                ),
            })
        : null,
      // the desktop app's own windows (the HUD: X11 cannot keep it out of the video), by id
      ...(options.appWindows
        ? {
            isOwnWindow: (windowId: string) =>
              isAppWindow(
                { windowId, pid: null, title: null },
                { windowIds: options.appWindows?.().windowIds ?? [], pids: [] },
              ),
          }
        : {}),
    },
    hotkeys: options.hotkeys,
    // checked above, before anything was written
    inputHookOptions: {
      shouldCheckPreconditions: false,
      ...(options.launcher ? { launcher: options.launcher } : {}),
    },
    env,
    onWarning: warn,
    liveWarnings: options.liveWarnings,
    // the app's own press that asked for a pause or stop: one aimed at the app's windows
    isAppPress: appPressCheck({
      pointerWindow: platform.pointerWindow?.(env) ?? null,
      appWindows: () => {
        const host = options.appWindows?.() ?? {};
        return { windowIds: host.windowIds ?? [], pids: [process.pid, ...(host.pids ?? [])] };
      },
    }),
    // idle, long recording, display change: shown now and stored at once (a recorder that dies
    // next still leaves them on the row), docs/architecture.md §5 "Live warnings"
    onLiveWarning: ({ message }) => {
      warn(message);
      addRecordingWarnings(lib.db, seq, [message], Date.now());
    },
    // the session stops itself; tell the user right away, the error follows the summary
    onFault: (e) => warn(`${e.message} Saving what was recorded…`),
    onHotkey: (action) => {
      if (action === 'stop') {
        stopRequested();
      } else if (action === 'pause') {
        void switchPause(session.state === 'paused' ? 'resume' : 'pause').catch(() => undefined);
      }
    },
  });
  // Pauses or resumes; a pause whose video could not end or resume (ffmpeg failed) leaves the
  // session paused with no screen capture: stop and save instead of waiting silently.
  const switchPause = async (to: 'pause' | 'resume'): Promise<void> => {
    try {
      await (to === 'resume' ? session.resume() : session.pause());
      options.onStateChange?.(session.state);
    } catch (e) {
      if (e instanceof AppError && e.code === 'INVALID_STATE') {
        throw e; // not recording (or not paused): nothing happened
      }
      session.stopWithFault(
        new AppError(
          'FFMPEG_FAILED',
          `Screen capture failed while pausing or resuming (${(e as Error).message}); the recording stopped there and keeps everything captured before.`,
          e instanceof AppError ? e.details : undefined,
          'Check that the X display is still running (cua-annotator doctor), then record the rest of the task again.',
        ),
      );
      throw e;
    }
  };
  try {
    await session.start();
  } catch (e) {
    // nothing usable was captured: remove the row and the folder
    deleteRecordingRow(lib.db, seq);
    await fs.rm(dir, { recursive: true, force: true });
    // a blocked input hook says what unblocks it on this OS (docs/platform-macos-windows.md §4)
    throw e instanceof AppError && platform.explainStartFailure
      ? platform.explainStartFailure(e)
      : e;
  }
  options.onStateChange?.(session.state);
  options.onStarted?.({ id, display });
  options.onControl?.({
    get state() {
      return session.state;
    },
    stats: () => session.stats,
    pause: () => switchPause('pause'),
    resume: () => switchPause('resume'),
    stop: () => stopRequested(),
    excludeAppGesture: (requestMs) => session.excludeAppGesture(requestMs),
  });
  const timers: NodeJS.Timeout[] = [];
  if (options.durationS !== undefined) {
    timers.push(setTimeout(stopRequested, options.durationS * 1000));
  }
  options.signal?.addEventListener('abort', () => stopRequested(), { once: true });
  if (options.signal?.aborted) {
    stopRequested();
  }
  const stopDiskWatch = watchDiskSpace({
    path: dir,
    ...options.disk,
    onLow: (free) => {
      const m = `only ${formatMegabytes(free)} free on the disk holding the library at ${clockOf(session)}; the recording stops by itself below ${formatMegabytes(diskFloor)}`;
      warn(`${m}. Free space now to keep recording.`);
      // stored at once: a recorder that dies next still leaves the warning on the row
      addRecordingWarnings(lib.db, seq, [m], Date.now());
    },
    onFloor: (free) =>
      session.stopWithFault(
        new AppError(
          'DISK_SPACE_LOW',
          `The disk holding the library is nearly full (${formatMegabytes(free)} free, below ${formatMegabytes(diskFloor)}); the recording stopped to save safely before the disk fills.`,
          { freeBytes: free, floorBytes: diskFloor },
          'Free space on the disk holding the library or record into a library on another disk (--library DIR).',
        ),
      ),
  });
  await Promise.race([stopSignal, session.done]);
  timers.forEach(clearTimeout);
  const result = await session.stop();
  stopDiskWatch();
  options.onStateChange?.(session.state);
  const capture = getCapture(lib.db, seq) ?? {};
  const a11yOff = listMarks(lib.db, seq).find((m) => m.kind === 'a11y-unavailable');
  if (a11yOff) {
    updateRecording(
      lib.db,
      seq,
      { capture: { ...capture, accessibility: `unavailable: ${String(a11yOff.data.message)}` } },
      Date.now(),
    );
  }
  // a fault is stored as a capture-fault mark (finalize turns it into a warning); a failed
  // teardown is not, so it is passed here
  const isMarkedFault = result.error !== null && result.error === session.faultError;
  const fin = await finalizeCapture(lib, resolveRecordingSeq(lib.db, id), ffmpeg, {
    // a segment whose ffmpeg died (no result) or was killed is remuxed before it is published
    remux: result.segments.some((s) => s.result === null || !s.result.isComplete),
    okStatus: result.state === 'done' ? 'complete' : 'failed',
    stoppedAt: new Date().toISOString(),
    // a second Ctrl+C while saving must not kill ffprobe/ffmpeg halfway (the terminal sends it
    // to the whole foreground group; `record` itself ignores it)
    isOwnProcessGroup: true,
    warnings: [
      ...(result.error && !isMarkedFault ? [result.error.message] : []),
      ...sink.errors,
      ...(a11yOff ? [`recorded without accessibility: ${String(a11yOff.data.message)}`] : []),
    ],
  });
  // an interval the session could not end (its write failed) ends with the recording
  endOpenExclusionMarks(lib, seq);
  return {
    id,
    status: fin.status,
    durationMs: fin.durationMs,
    frames: fin.frames,
    events: sink.eventCount,
    steps: fin.steps,
    warnings: fin.warnings,
    error: result.error,
  };
}

/** `m:ss.s` into the recording (the summary's and `show`'s format), for messages. */
function clockOf(session: RecordingSession): string {
  const s = Math.max(0, monotonicNowMs() - session.startedAtMs) / 1000;
  const minutes = Math.floor(s / 60);
  return `${minutes}:${(s - minutes * 60).toFixed(1).padStart(4, '0')}`;
}
