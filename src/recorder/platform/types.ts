// What a recording needs from the operating system, as one object per OS (docs/architecture.md
// §1): the screen capture backend, the accessibility adapter and the active-window tracker. The
// composition root picks the platform (createPlatform in index.ts); the record service and the
// session only use these parts, so tests can hand them a fake platform.
import type { AccessibilityAdapter } from '../../axtree/adapter';
import type {
  ActiveWindowResult,
  HelperDisplay,
  PermissionsResult,
} from '../../axtree/platform/helper-protocol';
import type { AppError } from '../../shared/errors';
import type { DisplayInfo } from '../display-info';
import type { DisplayWatcher } from '../display-watcher';
import type { CoordinateUnit } from '../coordinates';
import type { CaptureSource } from '../screen/ffmpeg-args';
import type { FfmpegBinary } from '../../infra/ffmpeg/binary';
import type { ActiveWindowEntry } from '../windows/active-window';

/**
 * The screen capture backend: which display, which ffmpeg, which input device. One object per
 * capture method, so another method (e.g. a ScreenCaptureKit helper on macOS 15, docs/
 * platform-macos-windows.md §2) replaces it without touching the session or the record service.
 */
export type CaptureBackend = {
  /** The ffmpeg input device (`x11grab`), stored in the recording's capture facts. */
  readonly device: CaptureSource['kind'];
  /** Reads the display to record (size, scale, monitors); throws a coded error with a fix. */
  readDisplay(env: NodeJS.ProcessEnv): Promise<DisplayInfo>;
  /** Finds ffmpeg and checks it can capture with this backend; throws FFMPEG_NOT_FOUND. */
  resolveFfmpeg(env: NodeJS.ProcessEnv): Promise<FfmpegBinary>;
  /** The ffmpeg input of a display. */
  source(display: DisplayInfo): CaptureSource;
};

/** The active-window timeline of a session. */
export type WindowTracker = {
  /** Starts tracking; resolves with the first reading. */
  start(): Promise<ActiveWindowEntry>;
  /** Subscribes to the changes after the first reading (start()'s answer, which is not
   * reported again); returns the unsubscribe function. */
  onChange(listener: (entry: ActiveWindowEntry) => void): () => void;
  /** Every entry so far. */
  timeline(): ActiveWindowEntry[];
  /** Resolves once every change reported so far is in the timeline (exclusion rules wait for it
   * before judging keys, src/recorder/privacy). Absent: the timeline is taken as it is. */
  settled?(): Promise<void>;
  stop(): Promise<void>;
};

/** What the parts of a platform are built with. */
export type PlatformPartOptions = {
  /** Session clock in ms (CLOCK_MONOTONIC), the recorder's one clock. */
  now: () => number;
  /** Environment (DISPLAY, DBUS_SESSION_BUS_ADDRESS…). */
  env: NodeJS.ProcessEnv;
};

/** The recording parts of one operating system. */
export type RecorderPlatform = {
  /** The OS these parts are for. */
  readonly os: NodeJS.Platform;
  capture: CaptureBackend;
  /** The accessibility API (`atspi`), stored in the recording's capture facts. */
  readonly accessibilityApi: string;
  /** A new accessibility adapter (not started), e.g. AT-SPI on Linux. */
  accessibility(options: PlatformPartOptions): AccessibilityAdapter;
  /** A new active-window tracker (not started). */
  windows(options: PlatformPartOptions): WindowTracker;
  /** A new watcher of the recorded display (not started): a change of its geometry starts a new
   * video segment (src/recorder/display-watcher.ts); absent = the display is not watched. */
  displays?(options: PlatformPartOptions): DisplayWatcher;
  /** The unit of the input hook's positions: `points` on macOS, default `pixels`
   * (src/recorder/coordinates.ts). */
  readonly inputUnit?: CoordinateUnit;
  /**
   * Refuses an environment this OS cannot record in, before anything is written: a coded error
   * with the fix (Linux: a Wayland session; macOS: a permission denied). Absent: nothing to check.
   */
  preflight?(env: NodeJS.ProcessEnv): Promise<void>;
  /**
   * A start failure in this OS's terms (a blocked input hook → the setting that unblocks it);
   * returns the error unchanged when it has nothing to add. Absent: errors pass unchanged.
   */
  explainStartFailure?(error: AppError): AppError;
};

/**
 * What the macOS and Windows parts need from the accessibility helper (docs/helper-protocol.md
 * §3): the helper client (src/axtree/platform/native-helper.ts) implements it.
 */
export type PlatformHelper = {
  /** Starts the helper; resolves after its hello line. */
  start(): Promise<unknown>;
  displays(): Promise<HelperDisplay[]>;
  activeWindow(): Promise<ActiveWindowResult | null>;
  permissions(): Promise<PermissionsResult>;
  /** Subscribes to the helper's `displays` events (docs/helper-protocol.md §5); returns the
   * unsubscribe. Absent: the layout is read only when asked. */
  onDisplaysChanged?(listener: (displays: HelperDisplay[]) => void): () => void;
  /** Stops it (shutdown line, then signals); safe to call twice. */
  stop(): Promise<void>;
};

/** Makes a helper client (not started) for one purpose, with the recorder's clock. */
export type PlatformHelperFactory = (options: PlatformPartOptions) => PlatformHelper;
