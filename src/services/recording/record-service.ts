// Records one session into the library: refuses a bad environment up front, marks the row
// `active` before capture, streams every batch into SQLite, finalises the video and reduces.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import { AtspiAdapter } from '../../axtree/platform/linux/atspi-adapter';
import { monotonicNowMs } from '../../recorder/clock';
import { osInfo, readDisplayInfo, type DisplayInfo } from '../../recorder/display-info';
import { checkInputHookPreconditions } from '../../recorder/input/input-preconditions';
import type { HotkeyBindings } from '../../recorder/input/hotkeys';
import { resolveFfmpeg } from '../../recorder/screen/ffmpeg-binary';
import { RecordingSession, type SessionState } from '../../recorder/session';
import { AppError } from '../../shared/errors';
import {
  deleteRecordingRow,
  insertRecording,
  listMarks,
  resolveRecordingSeq,
  updateRecording,
  getCapture,
} from '../../store';
import { RECORDINGS_DIR, type Library } from '../library/library';
import { finalizeCapture } from './finalize';
import { LibrarySink } from './library-sink';

/** Options of {@link recordSession}. */
export type RecordOptions = {
  task: string;
  /** Frames per second; default 30. */
  fps?: number;
  /** Stop after this many seconds; default: until stopped. */
  durationS?: number;
  /** X display (default `DISPLAY`). */
  display?: string;
  /** Record without accessibility. */
  noA11y?: boolean;
  hotkeys?: HotkeyBindings;
  appVersion: string;
  env?: NodeJS.ProcessEnv;
  /** Aborting stops the recording (SIGINT/SIGTERM in the CLI). */
  signal?: AbortSignal;
  /** The recording row exists and capture runs. */
  onStarted?: (info: { id: string; display: DisplayInfo }) => void;
  onStateChange?: (state: SessionState) => void;
  onWarning?: (message: string) => void;
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
  // refuse a bad environment before anything is written
  await checkInputHookPreconditions({ env });
  const display = await readDisplayInfo(env);
  const ffmpeg = await resolveFfmpeg(env);
  if (!ffmpeg.hasX11grab) {
    throw new AppError(
      'FFMPEG_NOT_FOUND',
      `ffmpeg at ${ffmpeg.path} (${ffmpeg.version}) has no x11grab device; install Debian's ffmpeg (apt-get install ffmpeg) or point CUA_FFMPEG at a build with x11grab.`,
    );
  }
  const accessibility = options.noA11y ? null : new AtspiAdapter({ now: monotonicNowMs, env });

  const id = randomUUID();
  const relDir = `${RECORDINGS_DIR}/${id}`;
  const dir = lib.resolve(relDir);
  await fs.mkdir(dir, { recursive: true });
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
      monitors: display.monitors,
    },
    videoStartMs: null,
    videoStartMethod: null,
    durationMs: null,
    appVersion: options.appVersion,
    dir: relDir,
    startedAt: new Date(nowMs).toISOString(),
    stoppedAt: null,
    sourceMetadata: null,
    capture: {
      pid: process.pid,
      host: os.hostname(),
      clock: 'CLOCK_MONOTONIC ms',
      display: display.display,
      xVendor: display.vendor,
      fps,
      ffmpeg: { path: ffmpeg.path, version: ffmpeg.version, source: ffmpeg.source },
      accessibility: accessibility ? 'atspi' : 'off (--no-a11y)',
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
  const session = new RecordingSession({
    outputDir: dir,
    display,
    ffmpegPath: ffmpeg.path,
    fps,
    accessibility,
    sink,
    hotkeys: options.hotkeys,
    // checked above, before anything was written
    inputHookOptions: { shouldCheckPreconditions: false },
    env,
    onWarning: warn,
    onHotkey: (action) => {
      if (action === 'stop') {
        stopRequested();
      } else if (action === 'pause') {
        void (async () => {
          try {
            await (session.state === 'paused' ? session.resume() : session.pause());
            options.onStateChange?.(session.state);
          } catch (e) {
            warn(`pause/resume failed: ${(e as Error).message}`);
          }
        })();
      }
    },
  });
  try {
    await session.start();
  } catch (e) {
    // nothing usable was captured: remove the row and the folder
    deleteRecordingRow(lib.db, seq);
    await fs.rm(dir, { recursive: true, force: true });
    throw e;
  }
  options.onStateChange?.(session.state);
  options.onStarted?.({ id, display });
  const timers: NodeJS.Timeout[] = [];
  if (options.durationS !== undefined) {
    timers.push(setTimeout(stopRequested, options.durationS * 1000));
  }
  options.signal?.addEventListener('abort', () => stopRequested(), { once: true });
  if (options.signal?.aborted) {
    stopRequested();
  }
  await Promise.race([stopSignal, session.done]);
  timers.forEach(clearTimeout);
  const result = await session.stop();
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
  const fin = await finalizeCapture(lib, resolveRecordingSeq(lib.db, id), ffmpeg, {
    remux: result.segments.some((s) => s.result !== null && !s.result.isComplete),
    okStatus: result.state === 'done' ? 'complete' : 'failed',
    stoppedAt: new Date().toISOString(),
  });
  const warnings = [
    ...fin.warnings,
    ...sink.errors,
    ...(result.error ? [result.error.message] : []),
  ];
  if (a11yOff) {
    warnings.push(`recorded without accessibility: ${String(a11yOff.data.message)}`);
  }
  return {
    id,
    status: fin.status,
    durationMs: fin.durationMs,
    frames: fin.frames,
    events: sink.eventCount,
    steps: fin.steps,
    warnings,
  };
}
