// The recording session's public shapes (its options, sink, marks, segments, stats and result)
// and the context its tracks share. Types only: the state machine is recording-session.ts, the
// tracks are video-track.ts, input-track.ts, accessibility-track.ts and window-track.ts.
import type { AccessibilityAdapter } from '../../axtree/adapter';
import type { AxElementRecord, AxSnapshot } from '../../axtree/model';
import type { AppError } from '../../shared/errors';
import type { DisplayGeometry } from '../../shared/domain/display';
import type { CoordinateSpace, CoordinateUnit } from '../coordinates';
import type { DisplayInfo } from '../display-info';
import type { DisplayWatcher } from '../display-watcher';
import type { InputGap, InputHookOptions } from '../input/hook-process';
import type { HotkeyAction, HotkeyBindings } from '../input/hotkeys';
import type { InputEvent } from '../input/normalize-input-event';
import type { FfmpegRecordingResult } from '../screen/ffmpeg-process';
import type { VideoStartEstimate } from '../screen/video-start';
import type { RecorderPlatform } from '../platform';
import type { CaptureExclusion, CaptureExclusionOptions } from '../privacy/capture-exclusion';
import type { ActiveWindowEntry } from '../windows/active-window';
import type { LiveWarning, LiveWarningOptions } from '../live-warnings';

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

/** What every track reads from the session it belongs to (recording-session.ts builds it). */
export type TrackContext = {
  /** The session's options; `accessibility` turns null when the adapter fails to start. */
  options: RecordingSessionOptions;
  /** The session's state now. */
  state: () => SessionState;
  /** How input positions map into pixels of the display recorded now (a display change moves
   * it). */
  space: () => CoordinateSpace;
  /** Exclusion rules at capture, or null when there are none. */
  exclusion: CaptureExclusion | null;
  /** Keeps `p` among the work the session's teardown waits for. */
  track: (p: Promise<unknown>) => void;
};
