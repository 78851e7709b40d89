// One recording session: an explicit state machine over the shared monotonic clock that drives
// screen video (ffmpeg), input (hook child), the active-window timeline and accessibility, and
// hands everything to a sink (implemented by services; the recorder never touches the store).
import path from 'node:path';
import type { AccessibilityAdapter } from '../axtree/adapter';
import type { AxElementRecord, AxSnapshot } from '../axtree/model';
import { SnapshotPolicy } from '../axtree/snapshot-policy';
import { everyPeriod } from '../infra/shared-tick';
import { AppError } from '../shared/errors';
import { isSameGeometry, type DisplayGeometry } from '../shared/domain/display';
import { monotonicNowMs } from './clock';
import {
  coordinateSpace,
  inputToVirtualPixels,
  mapElementRecord,
  mapInputEvents,
  mapSnapshot,
  recordedDisplayOf,
  type CoordinateSpace,
  type CoordinateUnit,
} from './coordinates';
import type { DisplayInfo } from './display-info';
import type { DisplayWatcher } from './display-watcher';
import { InputHook, type InputGap, type InputHookOptions } from './input/hook-process';
import type { InputHookDiagnostic } from './input/hook-types';
import { HOOK_DEFERRED_FLUSH_MS } from './input/hook-protocol';
import type { HotkeyAction, HotkeyBindings } from './input/hotkeys';
import type { InputEvent } from './input/normalize-input-event';
import { FfmpegRecorder, type FfmpegRecordingResult } from './screen/ffmpeg-process';
import type { VideoStartEstimate } from './screen/video-start';
import type { RecorderPlatform, WindowTracker } from './platform';
import { CaptureExclusion, type CaptureExclusionOptions } from './privacy/capture-exclusion';
import type { ActiveWindowEntry } from './windows/active-window';
import {
  displayChangedWarning,
  formatRecordingClock,
  LiveWarningMonitor,
  type LiveWarning,
  type LiveWarningOptions,
} from './live-warnings';

/** Session states (docs/architecture.md §5). */
export type SessionState =
  'idle' | 'starting' | 'recording' | 'paused' | 'stopping' | 'done' | 'failed';

/** One video segment (a pause ends a segment; resume starts the next). */
export type VideoSegment = {
  /** Absolute path of the fragmented MP4. */
  path: string;
  videoStart: VideoStartEstimate;
  result: FfmpegRecordingResult | null;
  /** The recorded display while this segment was captured (a display change starts the next). */
  display: DisplayGeometry;
};

/** A timeline mark (pause, input gap, hotkey, note). */
export type SessionMark = {
  tMs: number;
  endMs?: number | null;
  kind: string;
  data?: Record<string, unknown>;
};

/** Where a session's data goes; services implement it on top of the store. */
export interface RecordingSink {
  /** A batch of input events in capture order (the sink assigns idx). */
  events(batch: InputEvent[]): void;
  window(entry: ActiveWindowEntry): void;
  element(record: AxElementRecord): void;
  snapshot(snapshot: AxSnapshot): void;
  mark(mark: SessionMark): void;
  /** Sets the end of the open mark of `kind` that started at `tMs` (an `excluded` interval,
   * stored when it opens so a crash still leaves it; src/recorder/privacy). */
  endMark?(kind: string, tMs: number, endMs: number): void;
  /** A video segment started: its file and where frame 0 sits on the clock. */
  segmentStarted(index: number, segment: VideoSegment): void;
}

/** Options of {@link RecordingSession}. */
export type RecordingSessionOptions = {
  /** Folder for the video segments (`video-<n>.mp4`). */
  outputDir: string;
  display: DisplayInfo;
  /** The OS's capture backend (the ffmpeg input of `display`) and active-window tracker; the
   * composition root picks it (src/recorder/platform). */
  platform: Pick<RecorderPlatform, 'capture' | 'windows'>;
  ffmpegPath: string;
  /** Frames per second; default 30. */
  fps?: number;
  /** Accessibility adapter, or null (`--no-a11y`, or no bus). */
  accessibility: AccessibilityAdapter | null;
  sink: RecordingSink;
  hotkeys?: HotkeyBindings;
  /** Environment of the children (DISPLAY, DBUS…); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Settling time after the last change (window, content, or an action where the adapter
   * reports no content changes) before a window snapshot, ms; default 600
   * (src/axtree/snapshot-policy.ts). */
  snapshotSettleMs?: number;
  /**
   * Called once when a capture part fails for good while recording (ffmpeg died, the input hook
   * gave up, or {@link RecordingSession.stopWithFault}); the session then stops by itself and
   * `done` resolves with the fault as its error.
   */
  onFault?: (error: AppError) => void;
  /** Pointer rest before the element under the pointer is looked up ahead of a click, ms;
   * default 80. */
  hoverSettleMs?: number;
  /** Called when a recorder hotkey is pressed (stop/pause handled here too). */
  onHotkey?: (action: HotkeyAction) => void;
  /** Non-fatal problems for the log (a11y timeouts, input diagnostics). */
  onWarning?: (message: string) => void;
  /** Input hook options (tests; a caller that already checked the preconditions skips them). */
  inputHookOptions?: Partial<InputHookOptions>;
  /**
   * Watches the recorded display (not started); a change of its origin, size or scale ends the
   * video segment and starts the next on the new geometry, with a `display-change` mark.
   * Null/absent: the display is not watched.
   */
  displayWatcher?: DisplayWatcher | null;
  /** Unit of the input hook's positions (`points` on macOS); default `pixels`. Stored events
   * and accessibility records are in pixels of the recorded display (src/recorder/coordinates.ts). */
  inputUnit?: CoordinateUnit;
  /**
   * Exclusion rules at capture (docs/privacy.md): while an excluded window has focus no key and
   * no accessibility data are stored, buttons and wheel steps aimed at one are not stored, the
   * window timeline says `excluded` and an `excluded` mark covers the interval. Null/absent or no
   * rules: nothing is excluded.
   */
  exclusion?: CaptureExclusionOptions | null;
  /** Thresholds of the idle and long-recording warnings (src/recorder/live-warnings.ts). */
  liveWarnings?: LiveWarningOptions;
  /**
   * Tells whether a press was aimed at the app's own windows (excludeAppGesture). Null/absent:
   * no press is ever taken for the app's gesture.
   */
  isAppPress?: AppPressCheck | null;
  /** A live warning (`IDLE_LONG`, `RECORDING_LONG`, `DISPLAY_CHANGED`; docs/architecture.md §5
   * "Live warnings"): the host shows it and stores it with the recording. */
  onLiveWarning?: (warning: LiveWarning) => void;
};

/** What a finished session reports. */
export type SessionResult = {
  state: 'done' | 'failed';
  startedAtMs: number;
  stoppedAtMs: number;
  segments: VideoSegment[];
  events: number;
  gaps: InputGap[];
  /** Why the session failed: a capture fault while recording or a failed teardown; else null. */
  error: AppError | null;
};

/** The element under the resting pointer, looked up before any click (a click can close the
 * window it lands on before a lookup after the click could see it). */
type HoverElement = {
  x: number;
  y: number;
  record: AxElementRecord | null;
};

/** What runs as the session's transition in flight: a pause, a resume or a display change. */
type TransitionKind = 'pause' | 'resume' | 'display';

/** How old the keys and buttons of a batch must be before exclusion rules judge it, ms: the
 * active window's change (xprop's spy) reaches the tracker a moment after the X server made it.
 * A batch whose newest such event is older (the child held it back with moves) is judged at once. */
export const EXCLUSION_TIMELINE_LAG_MS = 20;

/**
 * How long a batch waits before exclusion rules judge it, ms: null for moves only (no wait, no
 * timeline to settle), else until its newest key or button is EXCLUSION_TIMELINE_LAG_MS old (0
 * when it already is: releases the child held back with moves are usually older).
 */
export function exclusionWaitMs(batch: readonly InputEvent[], nowMs: number): number | null {
  let newestMs: number | null = null;
  for (const e of batch) {
    if (e.kind !== 'move' && (newestMs === null || e.tMs > newestMs)) {
      newestMs = e.tMs;
    }
  }
  // never longer than the lag itself, whatever the stamps say
  return newestMs === null
    ? null
    : Math.min(
        EXCLUSION_TIMELINE_LAG_MS,
        Math.max(0, newestMs + EXCLUSION_TIMELINE_LAG_MS - nowMs),
      );
}

/** How long an ffmpeg ended by an outside SIGTERM waits for the recorder's own stop, ms. */
const OUTSIDE_STOP_GRACE_MS = 500;

/** True for ffmpeg's clean exit 255 after a SIGTERM the recorder did not send. */
function isOutsideTermination(error: AppError): boolean {
  const tail = error.details?.stderrTail;
  return (
    error.details?.exitCode === 255 &&
    Array.isArray(tail) &&
    tail.some((line) => typeof line === 'string' && /received signal 15\b/.test(line))
  );
}

/** Default pointer rest before the hover lookup, ms. */
export const DEFAULT_HOVER_SETTLE_MS = 80;
/** What the gap between two moves of a pointer in steady motion may be beyond the hook child's
 * deferral, ms: the rest the child reports is at least the deferral plus this, so while the
 * pointer moves its next write always comes first and moves the rest on for free (hook-child.ts,
 * `armRest`). */
const HOVER_SLACK_MS = 40;

/** Title of the toplevel window of an element record (the node just below the application). */
function windowNameOf(record: AxElementRecord): string | null {
  return record.path.length >= 2 ? (record.path[record.path.length - 2]?.name ?? null) : null;
}

/**
 * The element a click landed on. `live` was looked up after the click, `hover` while the pointer
 * rested at the same spot before it. They differ when the click changed what is under the
 * pointer (a button that closes its window) or when the screen changed during the rest (a popup
 * appeared); the active window at the press tells which: the live one wins only when it belongs
 * to that window, else the hover one (stamped with the press time) does.
 */
export function pickClickedElement(
  live: AxElementRecord | null,
  hover: AxElementRecord | null,
  activeTitleAtPress: string | null,
  pressMs: number,
): AxElementRecord | null {
  if (!hover) {
    return live;
  }
  const stamped = { ...hover, tMs: pressMs };
  if (!live) {
    return stamped;
  }
  if (windowNameOf(live) === windowNameOf(hover) && live.app === hover.app) {
    return live;
  }
  return activeTitleAtPress !== null && windowNameOf(live) === activeTitleAtPress ? live : stamped;
}

/** Live figures of a session (the recorder's status in the app). */
export type SessionStats = {
  /** Time recorded, pauses excluded, ms. */
  elapsedMs: number;
  /** Video frames ffmpeg has written, all segments. */
  frames: number;
  /** Frames ffmpeg dropped (the machine could not keep up). */
  droppedFrames: number;
  /** Input events kept. */
  events: number;
  /** True while accessibility is captured (false: turned off, or unavailable at start). */
  isAccessibilityOn: boolean;
};

/** How long before a request from the app's own window its triggering press may lie, ms. */
export const APP_GESTURE_WINDOW_MS = 3000;

/** A press the session kept: the candidate gesture of a pause or stop asked for by the app. */
export type GesturePress = {
  kind: 'button' | 'key';
  /** Session clock ms of the press. */
  tMs: number;
  /** Where a button went down, virtual-desktop pixels (null for keys). */
  x: number | null;
  y: number | null;
  /** The focused window when the press was kept (the active-window timeline), or null. */
  focusedAtPress: ActiveWindowEntry | null;
  /** The focused window when the request came, or null (a click may have focused its window). */
  focused: ActiveWindowEntry | null;
};

/**
 * True when `press` was aimed at one of the app's own windows (src/services/recording/
 * app-input.ts appPressCheck): only such a press may be taken for the gesture that asked the
 * recorder to pause or stop.
 */
export type AppPressCheck = (press: GesturePress) => Promise<boolean>;

/** A recording session: `start()`, optionally `pause()`/`resume()`, then `stop()`. */
export class RecordingSession {
  private stateValue: SessionState = 'idle';
  private ffmpeg: FfmpegRecorder | null = null;
  private hook: InputHook | null = null;
  private windows: WindowTracker | null = null;
  private readonly segments: VideoSegment[] = [];
  private readonly gaps: InputGap[] = [];
  private eventCount = 0;
  private startedAt = 0;
  private pausedAtMs: number | null = null;
  /** Session-clock ms the session started recording (0 before), and pauses summed so far. */
  private recordingSinceMs = 0;
  private pausedTotalMs = 0;
  /** Frames and drops of the segments that ended. */
  private endedFrames = 0;
  private endedDrops = 0;
  /** The last button or key presses kept (newest last, a few). */
  private presses: Omit<GesturePress, 'focused'>[] = [];
  /** The focused window as the tracker last reported it (null: none or unknown). */
  private focused: ActiveWindowEntry | null = null;
  private snapshotTimer: NodeJS.Timeout | null = null;
  /** When to snapshot the focused window (created once accessibility started). */
  private snapshotPolicy: SnapshotPolicy | null = null;
  private readonly pending = new Set<Promise<unknown>>();
  private fault: AppError | null = null;
  private faultAtMs: number | null = null;
  /** A gap the hook gave up in (no end yet): stored when the session stops. */
  private openGap: InputGap | null = null;
  private hover: HoverElement | null = null;
  /** Exclusion rules at capture (null: none); input then passes through `inputChain` in order. */
  private readonly exclusion: CaptureExclusion | null;
  private inputChain: Promise<void> = Promise.resolve();
  /** The pointer's last position, to look up once the hook child reports it rests (onRest). */
  private hoverRest: { x: number; y: number; serial: number } | null = null;
  /** Incremented by every pointer move: a hover lookup from an older move is stale. */
  private moveSerial = 0;
  /**
   * The pause or resume in flight (its video segment ending or starting): stop() waits for it,
   * so no ffmpeg outlives the session and no segment is left unflushed.
   */
  private transition: { kind: TransitionKind; promise: Promise<void> } | null = null;
  /** The display recorded now, and how positions map into its pixels (a display change moves
   * both). */
  private display: DisplayInfo;
  private space: CoordinateSpace;
  /** Idle and long-recording warnings (created when recording starts), polled by a timer. */
  private liveWarnings: LiveWarningMonitor | null = null;
  private stopLiveWarnings: (() => void) | null = null;
  private resolveDone: (r: SessionResult) => void = () => undefined;
  /** Settles when the session is done or failed. */
  readonly done: Promise<SessionResult>;

  constructor(private readonly options: RecordingSessionOptions) {
    this.display = options.display;
    this.space = coordinateSpace(options.display, options.inputUnit);
    const rules = options.exclusion;
    this.exclusion =
      rules && (!rules.matcher.isEmpty || rules.isOwnWindow)
        ? new CaptureExclusion(
            rules,
            {
              open: (mark) => options.sink.mark({ ...mark, endMs: null }),
              end: (kind, tMs, endMs) => options.sink.endMark?.(kind, tMs, endMs),
            },
            monotonicNowMs,
            options.onWarning,
          )
        : null;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Current state. */
  get state(): SessionState {
    return this.stateValue;
  }

  /** Live figures: time recorded, frames, drops, events. */
  get stats(): SessionStats {
    const now = monotonicNowMs();
    const pausedNow = this.pausedAtMs === null ? 0 : now - this.pausedAtMs;
    const progress = this.ffmpeg?.lastProgress ?? null;
    return {
      elapsedMs:
        this.recordingSinceMs === 0
          ? 0
          : Math.max(0, Math.round(now - this.recordingSinceMs - this.pausedTotalMs - pausedNow)),
      frames: this.endedFrames + (progress?.frame ?? 0),
      droppedFrames: this.endedDrops + (progress?.dropFrames ?? 0),
      events: this.eventCount,
      isAccessibilityOn: this.options.accessibility != null,
    };
  }

  /**
   * Leaves the gesture that asked for a stop or pause at `requestMs` out of the steps: the last
   * press before the request, at most {@link APP_GESTURE_WINDOW_MS} earlier, when it was aimed at
   * the app's own window (the Record page, the HUD, the tray: {@link RecordingSessionOptions.
   * isAppPress}). First waits until the input hook has handed on everything stamped before the
   * request (the click usually arrives after the request does). An `app-input` mark from that
   * press to now tells the reducer to skip those events (the raw events stay stored). A press
   * aimed elsewhere is the annotator's own input (a request from a script, or from a click the
   * hook cannot see): nothing is left out then, nor without a check.
   */
  async excludeAppGesture(
    requestMs = monotonicNowMs(),
    withinMs = APP_GESTURE_WINDOW_MS,
  ): Promise<void> {
    await this.hook?.settle(requestMs);
    await this.inputChain; // the events exclusion rules were still judging
    const press = this.presses.filter((p) => p.tMs <= requestMs).at(-1);
    const isAppPress = this.options.isAppPress;
    if (press === undefined || requestMs - press.tMs > withinMs || !isAppPress) {
      return;
    }
    let isApp = false;
    try {
      isApp = await isAppPress({ ...press, focused: this.focused });
    } catch (e) {
      this.options.onWarning?.(`could not tell whether the last press was the app's: ${String(e)}`);
    }
    if (isApp) {
      this.options.sink.mark({ tMs: press.tMs, endMs: monotonicNowMs(), kind: 'app-input' });
      this.presses = this.presses.filter((p) => p.tMs > requestMs);
    }
  }

  /** Session-clock ms of video frame 0 of the first segment (0 before start()). */
  get startedAtMs(): number {
    return this.startedAt;
  }

  /** The capture fault that stopped the session, or null. */
  get faultError(): AppError | null {
    return this.fault;
  }

  /** Starts every capture; resolves once video frame 0 exists and input is hooked. */
  async start(): Promise<{ startedAtMs: number; videoStart: VideoStartEstimate }> {
    if (this.stateValue !== 'idle') {
      throw new AppError(
        'INVALID_STATE',
        `start() needs an idle session (state: ${this.stateValue}); create a new session.`,
      );
    }
    this.stateValue = 'starting';
    const o = this.options;
    try {
      this.hook = new InputHook({
        env: o.env,
        hotkeys: o.hotkeys,
        onEvents: (batch) => this.onInput(batch),
        // hover lookups: the child reports a pointer that stopped (accessibility on only)
        ...(o.accessibility ? { restMs: this.hoverDelayMs(), onRest: () => this.onRest() } : {}),
        onGap: (gap) => {
          this.gaps.push(gap);
          if (gap.endMs === null) {
            // the hook gave up: the gap lasts until the session stops (marked then)
            this.openGap = gap;
            return;
          }
          o.sink.mark({
            tMs: gap.startMs,
            endMs: gap.endMs,
            kind: 'input-gap',
            data: { reason: gap.reason, detail: gap.detail },
          });
        },
        onHotkey: (action, tMs) => this.onHotkey(action, tMs),
        onDiagnostic: (d) => {
          o.onWarning?.(`input: ${d.code}: ${d.message}`);
          if (d.code === 'INPUT_LOST' || d.code === 'HOOK_EVENTS_LOST') {
            this.noteInputLost(d);
          }
        },
        onFatal: (e) => {
          // the fault below is the user's message (onFault): no separate "gave up" line
          const reason = /Input capture stopped: (.*?)\. /.exec(e.message)?.[1] ?? e.message;
          this.stopWithFault(
            new AppError(
              'INPUT_HOOK_FAILED',
              `Keyboard and mouse capture failed for good, the input hook gave up (${reason}); the recording stopped there: input would no longer become steps and the stop and pause hotkeys no longer work.`,
              e.details,
              'Check that the X display and its RECORD extension are still up (cua-annotator doctor), then record the rest of the task again.',
            ),
          );
        },
        // a batch per read of the child's output (moves held there for up to
        // HOOK_DEFERRED_FLUSH_MS, so one SQLite transaction per 100 ms of motion) and a calmer
        // heartbeat keep the recorder's own CPU small next to ffmpeg's (bench/recorder.ts)
        heartbeatIntervalMs: 500,
        ...o.inputHookOptions,
      });
      await this.hook.start();
      if (o.accessibility) {
        try {
          const info = await o.accessibility.start();
          o.accessibility.onFocusChanged?.(() => this.track(this.refreshMask()));
          // a helper that stopped answering and was replaced: the span it lost, stored as input
          // gaps are (docs/helper-protocol.md §4); endMs null: accessibility was given up
          o.accessibility.onGap?.((gap) =>
            o.sink.mark({
              tMs: gap.startMs,
              endMs: gap.endMs,
              kind: 'accessibility-gap',
              data: { reason: gap.reason, detail: gap.detail, isGivenUp: gap.endMs === null },
            }),
          );
          this.snapshotPolicy = new SnapshotPolicy({
            now: monotonicNowMs,
            settleMs: o.snapshotSettleMs,
            hasContentEvents:
              o.accessibility.onContentChanged !== undefined &&
              info.capabilities.includes('contentEvents'),
          });
          o.accessibility.onContentChanged?.((change) => {
            this.snapshotPolicy?.contentChanged(change.isFocusedApp);
            this.pumpSnapshots();
          });
        } catch (e) {
          o.onWarning?.(`accessibility unavailable, recording without it: ${(e as Error).message}`);
          o.sink.mark({
            tMs: monotonicNowMs(),
            kind: 'a11y-unavailable',
            data: { message: (e as Error).message },
          });
          this.options.accessibility = null;
        }
      }
      this.windows = o.platform.windows({ env: o.env ?? process.env, now: monotonicNowMs });
      this.windows.onChange((entry) => {
        this.focused = entry;
        o.sink.window(this.exclusion?.window(entry) ?? entry);
        this.noteWindow(entry);
      });
      try {
        const first = await this.windows.start();
        this.focused = first;
        o.sink.window(this.exclusion?.window(first) ?? first);
        this.noteWindow(first);
      } catch (e) {
        o.onWarning?.(`active-window tracking unavailable: ${(e as Error).message}`);
        this.windows = null;
      }
      const videoStart = await this.startSegment();
      this.startedAt = videoStart.monotonicMs;
      this.recordingSinceMs = monotonicNowMs();
      this.stateValue = 'recording';
      this.pumpSnapshots(); // the window in front at the start
      this.watchDisplay();
      this.watchLiveWarnings();
      return { startedAtMs: this.startedAt, videoStart };
    } catch (e) {
      await this.teardown();
      this.stateValue = 'failed';
      const error = e instanceof AppError ? e : new AppError('INTERNAL', (e as Error).message);
      this.resolveDone(this.result('failed', error));
      throw error;
    }
  }

  /** Pauses: the video segment ends and no input is kept until resume(). */
  async pause(): Promise<void> {
    if (this.stateValue !== 'recording') {
      throw new AppError(
        'INVALID_STATE',
        `pause() needs a recording session (state: ${this.stateValue}).`,
      );
    }
    this.stateValue = 'paused';
    this.pausedAtMs = monotonicNowMs();
    this.liveWarnings?.pause(this.pausedAtMs);
    this.presses = [];
    await this.runTransition('pause', () => this.endSegment());
  }

  /** Resumes after pause(): a new video segment starts; the pause goes into the timeline. */
  async resume(): Promise<void> {
    if (this.stateValue !== 'paused') {
      throw new AppError(
        'INVALID_STATE',
        `resume() needs a paused session (state: ${this.stateValue}).`,
      );
    }
    if (this.transition?.kind === 'resume') {
      return await this.transition.promise; // already resuming
    }
    await this.runTransition('resume', async () => {
      if (this.stateValue !== 'paused') {
        return; // stopped while the pause before was still ending its segment
      }
      const videoStart = await this.startSegment();
      if (this.stateValue !== 'paused') {
        // stop() came while the segment was starting: it waits for this transition and then
        // ends the new segment with everything else; the session must not go back to recording
        return;
      }
      this.options.sink.mark({
        tMs: this.pausedAtMs ?? videoStart.monotonicMs,
        endMs: videoStart.monotonicMs,
        kind: 'pause',
      });
      this.pausedTotalMs += monotonicNowMs() - (this.pausedAtMs ?? monotonicNowMs());
      this.pausedAtMs = null;
      this.liveWarnings?.resume(monotonicNowMs());
      this.stateValue = 'recording';
      this.pumpSnapshots(); // a change during the pause still gets its snapshot
    });
  }

  // Runs a pause/resume step as the transition in flight (after the one before it, if any).
  private async runTransition(kind: TransitionKind, work: () => Promise<void>): Promise<void> {
    const before = this.transition?.promise;
    const promise = (async () => {
      await before?.catch(() => undefined); // its caller got its error
      await work();
    })();
    const transition = { kind, promise };
    this.transition = transition;
    try {
      await promise;
    } finally {
      if (this.transition === transition) {
        this.transition = null;
      }
    }
  }

  /** Stops every capture and finalises the video; resolves with the session result. */
  async stop(): Promise<SessionResult> {
    if (
      this.stateValue === 'done' ||
      this.stateValue === 'failed' ||
      this.stateValue === 'stopping'
    ) {
      return await this.done;
    }
    if (this.stateValue !== 'recording' && this.stateValue !== 'paused') {
      throw new AppError(
        'INVALID_STATE',
        `stop() needs a started session (state: ${this.stateValue}).`,
      );
    }
    if (this.stateValue === 'paused' && this.pausedAtMs !== null) {
      this.options.sink.mark({ tMs: this.pausedAtMs, endMs: monotonicNowMs(), kind: 'pause' });
    }
    this.stateValue = 'stopping';
    // a pause still flushing its segment, or a resume still starting one, finishes first: the
    // teardown below then ends whatever ffmpeg is running and nothing starts after it
    // (a segment a pause could not end is this session's error; a resume that could not start
    // one lost nothing the user still wanted, since they stopped)
    let transitionError: AppError | null = null;
    for (let t = this.transition; t; t = this.transition) {
      try {
        await t.promise;
      } catch (e) {
        if (t.kind === 'pause') {
          transitionError ??=
            e instanceof AppError ? e : new AppError('INTERNAL', (e as Error).message);
        }
      }
    }
    let error: AppError | null = null;
    try {
      await this.teardown();
    } catch (e) {
      error = e instanceof AppError ? e : new AppError('INTERNAL', (e as Error).message);
    }
    error = this.fault ?? error ?? transitionError;
    this.stateValue = error ? 'failed' : 'done';
    const result = this.result(this.stateValue, error);
    this.resolveDone(result);
    return result;
  }

  private result(state: 'done' | 'failed', error: AppError | null): SessionResult {
    return {
      state,
      startedAtMs: this.startedAt,
      stoppedAtMs: monotonicNowMs(),
      segments: [...this.segments],
      events: this.eventCount,
      gaps: [...this.gaps],
      error,
    };
  }

  private async startSegment(): Promise<VideoStartEstimate> {
    const o = this.options;
    const index = this.segments.length;
    const file = path.join(o.outputDir, `video-${index}.mp4`);
    const ffmpeg = new FfmpegRecorder();
    // ffmpeg finishes its fragments even when we are SIGKILLed: it gets one SIGTERM when this
    // process dies (src/infra/parent-death.ts: a watcher on Linux, which needs no setpriv)
    const started = await ffmpeg.start({
      ffmpegPath: o.ffmpegPath,
      source: o.platform.capture.source(this.display),
      outputPath: file,
      fps: o.fps ?? 30,
      env: o.env,
      parentDeathSignal: 'SIGTERM',
    });
    this.ffmpeg = ffmpeg;
    const segment: VideoSegment = {
      path: file,
      videoStart: started.videoStart,
      result: null,
      display: recordedDisplayOf(this.display),
    };
    this.segments.push(segment);
    o.sink.segmentStarted(index, segment);
    this.watchSegment(ffmpeg, segment);
    return started.videoStart;
  }

  private async endSegment(): Promise<void> {
    const ffmpeg = this.ffmpeg;
    this.ffmpeg = null;
    if (ffmpeg) {
      const segment = this.segments[this.segments.length - 1];
      await ffmpeg.stop();
      const result = await ffmpeg.done;
      if (segment) {
        segment.result = result;
      }
      const last = result.lastProgress;
      this.endedFrames += last?.frame ?? 0;
      this.endedDrops += last?.dropFrames ?? 0;
    }
  }

  // Starts watching the recorded display (no-op without a watcher).
  private watchDisplay(): void {
    const watcher = this.options.displayWatcher;
    if (!watcher) {
      return;
    }
    watcher.onChange((next) => this.onDisplayChange(next));
    watcher.start(this.display);
  }

  // The recorded display changed (docs/architecture.md §5 "Coordinates"): the video segment ends
  // and the next one starts on the new geometry, as the transition in flight; input goes on into
  // the same recording on the same clock and is mapped with the new origin from now on. While
  // paused only the geometry changes (resume starts on it). A `display-change` mark keeps both
  // geometries, from the change seen to frame 0 of the next segment.
  private onDisplayChange(next: DisplayInfo): void {
    const from = recordedDisplayOf(this.display);
    const to = recordedDisplayOf(next);
    if (
      isSameGeometry(from, to) ||
      (this.stateValue !== 'recording' && this.stateValue !== 'paused')
    ) {
      return;
    }
    const seenMs = monotonicNowMs();
    this.emitLiveWarning(displayChangedWarning(from, to, seenMs, this.startedAt));
    const work = async (): Promise<void> => {
      this.display = next;
      this.space = coordinateSpace(next, this.options.inputUnit);
      if (this.stateValue !== 'recording') {
        this.options.sink.mark({ tMs: seenMs, kind: 'display-change', data: { from, to } });
        return;
      }
      try {
        await this.endSegment();
      } catch (e) {
        // the old geometry's ffmpeg failed to end cleanly (its file is remuxed when saved)
        this.options.onWarning?.(
          `video segment before the display change: ${(e as Error).message}`,
        );
      }
      if (this.stateValue !== 'recording') {
        return; // stopped or paused meanwhile: no segment to start here
      }
      const videoStart = await this.startSegment();
      this.options.sink.mark({
        tMs: seenMs,
        endMs: videoStart.monotonicMs,
        kind: 'display-change',
        data: { from, to },
      });
    };
    void this.runTransition('display', work).catch((e: unknown) => {
      this.stopWithFault(
        new AppError(
          'FFMPEG_FAILED',
          `Screen capture could not start again after the display changed from ${from.width}x${from.height} to ${to.width}x${to.height} (${(e as Error).message}); the recording stopped there and keeps everything captured before.`,
          e instanceof AppError ? e.details : undefined,
          'Check that the display is still running (cua-annotator doctor), then record the rest of the task again.',
        ),
      );
    });
  }

  // Polls the idle and long-recording warnings while recording (off without a listener).
  private watchLiveWarnings(): void {
    if (!this.options.onLiveWarning) {
      return;
    }
    const monitor = new LiveWarningMonitor({
      ...this.options.liveWarnings,
      originMs: this.startedAt,
    });
    this.liveWarnings = monitor;
    // on the process's shared tick (src/infra/shared-tick.ts), with the input watchdog
    this.stopLiveWarnings = everyPeriod(monitor.checkIntervalMs, () => {
      if (this.stateValue === 'recording') {
        monitor.check(monotonicNowMs()).forEach((w) => this.emitLiveWarning(w));
      }
    });
  }

  // Input lost before it could be stored (the X server dropped it, or lines from the hook child
  // went missing): a warning stored with the recording at once, so it never looks complete.
  private noteInputLost(d: InputHookDiagnostic): void {
    const tMs = monotonicNowMs();
    const at = formatRecordingClock(tMs - (this.startedAt || tMs));
    const what =
      d.code === 'INPUT_LOST'
        ? `${typeof d.details?.keyPresses === 'number' ? d.details.keyPresses : 'some'} key press(es) (and the input around them) never reached the recorder: the X server dropped them while the machine was too busy for the input hook to keep up`
        : `input events were lost between the input hook and the recorder (${d.message})`;
    this.emitLiveWarning({
      code: 'INPUT_LOST',
      tMs,
      message: `INPUT_LOST: near ${at}, ${what}. Text typed around then may be incomplete: check those steps against the video, or record that part again on a less busy machine.`,
    });
  }

  private emitLiveWarning(warning: LiveWarning): void {
    try {
      this.options.onLiveWarning?.(warning);
    } catch (e) {
      this.options.onWarning?.(`live warning not delivered: ${(e as Error).message}`);
    }
  }

  /** Stops the session because something outside it failed for good (e.g. the disk is nearly
   * full); everything captured so far is kept. No-op unless recording or paused. */
  stopWithFault(error: AppError): void {
    if (this.fault || (this.stateValue !== 'recording' && this.stateValue !== 'paused')) {
      return;
    }
    this.fault = error;
    this.faultAtMs = monotonicNowMs();
    this.options.sink.mark({
      tMs: this.faultAtMs,
      kind: 'capture-fault',
      data: { code: error.code, message: error.message },
    });
    try {
      this.options.onFault?.(error);
    } catch {
      // a throwing listener must not keep the session from stopping
    }
    this.stopSoon();
  }

  // Starts stop() without waiting (its result arrives through `done`).
  private stopSoon(): void {
    if (this.stateValue !== 'recording' && this.stateValue !== 'paused') {
      return;
    }
    void (async () => {
      try {
        await this.stop();
      } catch (e) {
        this.options.onWarning?.(`stopping failed: ${(e as Error).message}`);
      }
    })();
  }

  // Watches one ffmpeg segment: an end the session did not ask for stops the whole session.
  private watchSegment(ffmpeg: FfmpegRecorder, segment: VideoSegment): void {
    void (async () => {
      let failure: AppError | null = null;
      try {
        const result = await ffmpeg.done;
        if (this.ffmpeg !== ffmpeg) {
          return; // endSegment() ended it
        }
        segment.result = result;
      } catch (e) {
        if (this.ffmpeg !== ffmpeg) {
          return;
        }
        failure = e instanceof AppError ? e : new AppError('FFMPEG_FAILED', String(e));
      }
      this.ffmpeg = null;
      if (failure !== null && isOutsideTermination(failure)) {
        // SIGTERM to the whole process group (a service manager, `kill -TERM -pgid`): ffmpeg
        // finished its file and the recorder is being stopped by the same signal, which may be
        // handled a moment later; only a session still recording after that is a fault
        await new Promise((resolve) => setTimeout(resolve, OUTSIDE_STOP_GRACE_MS));
        if (this.stateValue !== 'recording') {
          return;
        }
      }
      const watcher = this.options.displayWatcher;
      if (
        this.stateValue === 'recording' &&
        watcher &&
        (await watcher.check().catch(() => false))
      ) {
        // the display changed under ffmpeg (x11grab stops when the screen shrinks): the display
        // change (onDisplayChange) starts the next segment instead of a fault
        return;
      }
      if (failure === null) {
        // a clean end we did not ask for: a SIGINT/SIGTERM to the process group (Ctrl+C)
        // reached ffmpeg first; the recorder is being stopped by the same signal
        this.stopSoon();
        return;
      }
      const atS = ((monotonicNowMs() - this.startedAt) / 1000).toFixed(1);
      const signal = failure.details?.signal;
      const exitCode = failure.details?.exitCode;
      const exit =
        typeof signal === 'string'
          ? `killed by ${signal}`
          : `exit code ${typeof exitCode === 'number' ? exitCode : '?'}`;
      this.stopWithFault(
        new AppError(
          'FFMPEG_FAILED',
          `Screen capture (ffmpeg) ended unexpectedly ${atS} s into the recording (${exit}); the recording stopped there and keeps everything captured before.`,
          failure.details,
          'Check free disk space and that the X display is still running (cua-annotator doctor), then record the rest of the task again.',
        ),
      );
    })();
  }

  private async teardown(): Promise<void> {
    const stopMs = this.faultAtMs ?? monotonicNowMs();
    // no segment starts for a display change from here on
    const displaysStopped = Promise.resolve(this.options.displayWatcher?.stop());
    if (this.snapshotTimer) {
      clearTimeout(this.snapshotTimer);
      this.snapshotTimer = null;
    }
    this.hoverRest = null;
    this.stopLiveWarnings?.();
    this.stopLiveWarnings = null;
    const hook = this.hook;
    this.hook = null;
    const windows = this.windows;
    this.windows = null;
    // every part stops together and every outcome is awaited: a failing video end must neither
    // go unobserved (an unhandled rejection) nor keep the hook and the trackers running
    const [video] = await Promise.allSettled([
      this.endSegment(),
      hook?.stop(),
      windows?.stop(),
      displaysStopped,
    ]);
    if (this.openGap) {
      // input was lost until the fault stopped the session (or until now)
      const gap = { ...this.openGap, endMs: this.faultAtMs ?? monotonicNowMs() };
      this.openGap = null;
      const i = this.gaps.findIndex((g) => g.endMs === null);
      if (i >= 0) {
        this.gaps[i] = gap;
      }
      this.options.sink.mark({
        tMs: gap.startMs,
        endMs: gap.endMs,
        kind: 'input-gap',
        data: { reason: gap.reason, detail: gap.detail, isGivenUp: true },
      });
    }
    await Promise.allSettled([...this.pending]);
    // an excluded window still in front: its interval ends with the recording
    this.exclusion?.close(stopMs);
    await this.options.accessibility?.stop();
    // an ffmpeg that a group-wide SIGTERM ended while we stopped it finished its file
    if (
      video.status === 'rejected' &&
      !this.fault &&
      !(video.reason instanceof AppError && isOutsideTermination(video.reason))
    ) {
      throw video.reason;
    }
  }

  private onInput(batch: InputEvent[]): void {
    if (this.stateValue !== 'recording' && this.stateValue !== 'starting') {
      return; // nothing is captured while paused or stopping
    }
    // any input (an excluded window's too) ends an idle stretch
    this.liveWarnings?.input(monotonicNowMs(), batch.at(-1)?.tMs);
    const exclusion = this.exclusion;
    if (!exclusion) {
      this.keepInput(batch);
      return;
    }
    // exclusion rules judge each batch before the sink sees it, one batch at a time (events keep
    // their order); keys need the timeline to have caught up with the focus change
    const judge = async (): Promise<void> => {
      const waitMs = exclusionWaitMs(batch, monotonicNowMs());
      if (waitMs !== null) {
        if (waitMs > 0) {
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
        await this.windows?.settled?.();
      }
      const kept = await exclusion.filter(batch);
      if (kept.length > 0) {
        this.keepInput(kept);
      }
    };
    const before = this.inputChain;
    const next = (async () => {
      await before;
      try {
        await judge();
      } catch (e) {
        this.options.onWarning?.(`input batch dropped by the exclusion rules: ${String(e)}`);
      }
    })();
    this.inputChain = next;
    this.track(next);
  }

  // Stores input events and starts the accessibility lookups they call for.
  private keepInput(batch: InputEvent[]): void {
    this.eventCount += batch.length;
    this.options.sink.events(mapInputEvents(this.space, batch));
    for (const e of batch) {
      if (e.kind === 'down' || e.kind === 'keydown') {
        const at =
          e.kind === 'down' && e.x !== null && e.y !== null
            ? inputToVirtualPixels(this.space, e.x, e.y)
            : null;
        this.presses.push({
          kind: e.kind === 'down' ? 'button' : 'key',
          tMs: e.tMs,
          x: at?.x ?? null,
          y: at?.y ?? null,
          focusedAtPress: this.focused,
        });
        if (this.presses.length > 16) {
          this.presses.shift();
        }
      }
    }
    // nothing of an excluded window in front is looked up (hover, element, snapshot)
    const ax = this.exclusion?.isFocusedExcluded ? null : this.options.accessibility;
    let acted = false;
    let rest: { x: number; y: number } | null = null;
    for (const e of batch) {
      if (e.kind === 'down' || e.kind === 'up' || e.kind === 'keydown' || e.kind === 'wheel') {
        acted = true;
      }
      // lookups ask the adapter in its own space: virtual-desktop pixels (helper-protocol.md §3)
      if (e.kind === 'move' && e.x !== null && e.y !== null) {
        this.moveSerial += 1;
        rest = inputToVirtualPixels(this.space, e.x, e.y);
      }
      if (ax && e.kind === 'down' && e.x !== null && e.y !== null) {
        const at = inputToVirtualPixels(this.space, e.x, e.y);
        const hover =
          this.hover && this.hover.x === at.x && this.hover.y === at.y ? this.hover : null;
        this.track(this.captureElement(ax, at.x, at.y, e.tMs, hover));
      }
    }
    if (rest) {
      // a lookup for this place waits for the child's rest line (onRest)
      this.hover = null;
      this.hoverRest = ax ? { ...rest, serial: this.moveSerial } : null;
    }
    if (ax && acted) {
      this.scheduleSnapshot(ax);
    }
  }

  // The hook child saw the pointer stop (hook-protocol.ts `HookRestLine`): look up the element
  // under it, so a click that closes its window still gets the element it landed on (the lookup
  // after the click may find the window behind). After the input before it (exclusion rules may
  // still be judging that), and without holding that chain up for the lookup itself.
  private onRest(): void {
    const before = this.inputChain;
    const next = (async () => {
      await before;
      this.lookUpRest();
    })();
    this.inputChain = next;
    this.track(next);
  }

  private lookUpRest(): void {
    const rest = this.hoverRest;
    this.hoverRest = null;
    const ax = this.options.accessibility;
    if (
      !rest ||
      !ax ||
      rest.serial !== this.moveSerial ||
      this.stateValue !== 'recording' ||
      this.exclusion?.isFocusedExcluded
    ) {
      return;
    }
    const { x, y, serial } = rest;
    this.track(
      (async () => {
        try {
          const record = await ax.elementAt(x, y);
          if (serial === this.moveSerial) {
            this.hover = { x, y, record };
          }
        } catch {
          // no hover element: the click falls back to the lookup at the click
        }
      })(),
    );
  }

  // The rest before a hover lookup, measured by the hook child from the last move: longer than
  // the settle time and than the child's deferral plus a gap between moves, so the rest timer of
  // a pointer still moving is always moved on by the child's next write before it fires.
  private hoverDelayMs(): number {
    return Math.max(
      this.options.hoverSettleMs ?? DEFAULT_HOVER_SETTLE_MS,
      HOOK_DEFERRED_FLUSH_MS + HOVER_SLACK_MS,
    );
  }

  private async captureElement(
    ax: AccessibilityAdapter,
    x: number,
    y: number,
    pressMs: number,
    hover: HoverElement | null,
  ): Promise<void> {
    // the active window when the button went down (the timeline is read now, before the lookup,
    // but entries are stamped when observed, so a window closed by this click is still found)
    const timeline = this.windows?.timeline() ?? [];
    const activeAtPress = timeline.filter((w) => w.tMs <= pressMs).at(-1)?.title ?? null;
    let live: AxElementRecord | null = null;
    let failure: Error | null = null;
    try {
      live = await ax.elementAt(x, y);
    } catch (e) {
      failure = e as Error;
    }
    const record = pickClickedElement(live, hover?.record ?? null, activeAtPress, pressMs);
    if (record && this.isExcludedAx(record.app, windowNameOf(record))) {
      // an excluded window came to the front meanwhile, or the element is in one
    } else if (record) {
      this.hook?.setMaskKeys(record.isSecure);
      this.options.sink.element(mapElementRecord(this.space, record));
    } else if (failure) {
      this.options.onWarning?.(`element at (${x}, ${y}) not captured: ${failure.message}`);
    }
    await this.refreshMask();
  }

  private async refreshMask(): Promise<void> {
    const ax = this.options.accessibility;
    if (!ax || !this.hook) {
      return;
    }
    try {
      this.hook.setMaskKeys(await ax.focusedIsSecure());
    } catch {
      // keep the previous mask state when the query fails
    }
  }

  // The focused window (from the tracker) for the snapshot policy; a title change of the same
  // window counts as a content change.
  private noteWindow(entry: ActiveWindowEntry): void {
    const policy = this.snapshotPolicy;
    if (!policy) {
      return;
    }
    policy.windowChanged(entry.windowId ?? (entry.title === null ? null : `title:${entry.title}`));
    if (entry.change === 'title') {
      policy.contentChanged(true);
    }
    this.pumpSnapshots();
  }

  // An input action: a change for the snapshot policy where the adapter reports none itself.
  private scheduleSnapshot(_ax: AccessibilityAdapter): void {
    this.snapshotPolicy?.inputAction();
    this.pumpSnapshots();
  }

  // Takes the snapshot the policy asks for now, or arms one timer to ask again (src/axtree/
  // snapshot-policy.ts): a walk only when the focused window or its content changed.
  private pumpSnapshots(): void {
    const ax = this.options.accessibility;
    const policy = this.snapshotPolicy;
    if (
      !ax ||
      !policy ||
      this.snapshotTimer ||
      this.stateValue !== 'recording' ||
      this.exclusion?.isFocusedExcluded
    ) {
      return; // an excluded window in front is never walked (its change comes when focus leaves)
    }
    const decision = policy.decide();
    if (decision.kind === 'wait') {
      this.snapshotTimer = setTimeout(() => {
        this.snapshotTimer = null;
        this.pumpSnapshots();
      }, decision.inMs);
    } else if (decision.kind === 'reuse') {
      if (!this.isExcludedAx(decision.snapshot.app ?? null, decision.snapshot.root?.name ?? null)) {
        this.options.sink.snapshot(mapSnapshot(this.space, decision.snapshot));
      }
    } else if (decision.kind === 'walk') {
      this.track(
        (async () => {
          let snap: AxSnapshot | null = null;
          try {
            snap = await ax.snapshotFocusedWindow();
            if (!this.isExcludedAx(snap.app ?? null, snap.root?.name ?? null)) {
              this.options.sink.snapshot(mapSnapshot(this.space, snap));
            }
          } catch (e) {
            this.options.onWarning?.(`window snapshot skipped: ${(e as Error).message}`);
          } finally {
            policy.finished(snap);
          }
          this.pumpSnapshots();
        })(),
      );
    }
  }

  // True when accessibility data of this app/window must not be stored: an excluded window is in
  // front now, or the data's own application or window title matches an exclusion rule.
  private isExcludedAx(app: string | null, windowTitle: string | null): boolean {
    const exclusion = this.exclusion;
    if (!exclusion) {
      return false;
    }
    return (
      exclusion.isFocusedExcluded ||
      exclusion.judge({ title: windowTitle, app, appInstance: null }).excluded
    );
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private onHotkey(action: HotkeyAction, tMs: number): void {
    this.options.sink.mark({ tMs, kind: `hotkey:${action}` });
    this.options.onHotkey?.(action);
  }
}
