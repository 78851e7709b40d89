// What a recording needs from the operating system, as one object per OS (docs/architecture.md
// §1): the screen capture backend, the accessibility adapter and its role system, the
// active-window tracker, the window lookups of exclusion rules and the checks `doctor` runs. The
// composition root picks the platform (createPlatform in index.ts); the record, replay and doctor
// services only use these parts, so tests can hand them a fake platform and nothing outside this
// folder asks which OS it runs on.
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
import type { PointerWindowLookup } from '../privacy/x11-pointer-window';
import type { ActiveWindowEntry } from '../windows/active-window';
import type { StackSelect, WindowStackTracker } from '../windows/x11-window-stack';

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
  /** The role vocabulary of the adapter's trees (`atspi`, `ax`, `uia`): how a replay maps roles
   * to control types (src/pipeline/agentnet/role-map.ts `RoleSystem`). */
  readonly roleSystem: 'atspi' | 'ax' | 'uia';
  /** True when each display's desktop session has an accessibility bus of its own (Linux: the
   * AT_SPI_BUS property of its root window), so a replay on another display reads the elements
   * there; absent or false: one per machine, the caller's. */
  readonly hasAccessibilityBusPerDisplay?: boolean;
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
  /** The window under the pointer, for exclusion rules (docs/privacy.md §2). Absent: where the
   * OS does not let us ask, clicks count as aimed at the focused window. */
  readonly pointerWindow?: (env: NodeJS.ProcessEnv) => PointerWindowLookup;
  /** The name of a process (exclusion rules by application). Absent: not known. */
  readonly processName?: (pid: number) => string | null;
  /** A tracker (not started) of the windows on the screen, focused or not, so excluded ones are
   * blanked where they are. Absent: only the focused window is judged. */
  readonly windowStack?: (options: WindowStackOptions) => WindowStackTracker;
  /** What `doctor` checks on this OS besides the checks every OS shares. */
  readonly doctor: PlatformDoctor;
};

/** What a window stack tracker is built with. */
export type WindowStackOptions = PlatformPartOptions & {
  /** Which clients to look at. */
  select: StackSelect;
  /** A reading failed (the next one may work; a run of failures is reported once). */
  onError: (error: Error) => void;
};

/** Ids of the checks a platform supplies to `doctor`. */
export type PlatformCheckId =
  | 'session'
  | 'display'
  | 'xrecord'
  | 'xtest'
  | 'windowmanager'
  | 'x11grab'
  | 'avfoundation'
  | 'ddagrab'
  | 'gdigrab'
  | 'atspi';

/** Result of one of a platform's doctor checks (src/services/system/doctor.ts reports it). */
export type PlatformCheck = {
  /** Which check this is. */
  id: PlatformCheckId;
  /** True when the requirement is met. */
  ok: boolean;
  /** How bad a failure is: `error` blocks recording, `warning` degrades it. */
  severity: 'error' | 'warning';
  /** One line saying what was found. */
  summary: string;
  /** What to install, enable or run when `ok` is false. */
  fix?: string;
};

/** The fixes a capture device check names. */
export type CaptureDeviceFixes = {
  /** How to install ffmpeg on this OS (`apt-get install ffmpeg`). */
  install: string;
  /** How to get another ffmpeg build (the install, after unsetting CUA_FFMPEG if it is set). */
  otherBuild: string;
};

/**
 * What `doctor` checks on one OS besides what every OS shares (ffmpeg's version and libx264, the
 * library): the desktop session, ffmpeg's capture device, accessibility.
 */
export type PlatformDoctor = {
  /** How to install ffmpeg here, in the fixes of the ffmpeg checks. */
  readonly installFfmpeg: string;
  /** The capture device checks' ids in report order (reported as not checked without a usable
   * ffmpeg). */
  readonly captureDeviceIds: readonly PlatformCheckId[];
  /** Checks of the desktop session, reported before ffmpeg's (Linux: not Wayland, the X display,
   * RECORD, XTEST, a window manager); `timeoutMs` limits each external command. */
  session?(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<PlatformCheck[]>;
  /** Checks of ffmpeg's capture device for this OS, reported after the ffmpeg check. */
  captureDevices(binary: FfmpegBinary, fixes: CaptureDeviceFixes): PlatformCheck[];
  /** Checks of accessibility, reported after ffmpeg's (Linux: AT-SPI). */
  accessibility?(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<PlatformCheck[]>;
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
