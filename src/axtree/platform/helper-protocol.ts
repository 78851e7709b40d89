// The wire types of the accessibility helper protocol, version 2 (docs/helper-protocol.md): what
// the macOS and Windows helper programs (src/helpers/) print and what the recorder's client
// (native-helper.ts) reads. Pure types and constants, shared by both sides so they cannot drift.
import type { AxBounds, AxNode } from '../model';

/** Protocol version of the hello line (`{"type":"hello","protocol":2,…}`). */
export const HELPER_PROTOCOL_VERSION = 2;

/** Request methods, each listed in docs/helper-protocol.md §3. */
export const HELPER_METHODS = {
  elementAt: 'elementAt',
  snapshotFocusedWindow: 'snapshotFocusedWindow',
  focusedIsSecure: 'focusedIsSecure',
  activeWindow: 'activeWindow',
  displays: 'displays',
  permissions: 'permissions',
} as const;

export type HelperMethod = (typeof HELPER_METHODS)[keyof typeof HELPER_METHODS];

/** Capabilities that need the OS accessibility API (macOS: its permission; Windows: UIA). */
export const HELPER_ACCESSIBILITY_CAPABILITIES = [
  'elementAt',
  'snapshot',
  'secure',
  'focusEvents',
] as const;

/** Capabilities that work without it (the window server and display APIs). */
export const HELPER_SYSTEM_CAPABILITIES = ['activeWindow', 'displays', 'permissions'] as const;

/** Capabilities a hello line may announce (a helper announces only what works right now). */
export const HELPER_CAPABILITIES = [
  ...HELPER_ACCESSIBILITY_CAPABILITIES,
  ...HELPER_SYSTEM_CAPABILITIES,
] as const;

export type HelperCapability = (typeof HELPER_CAPABILITIES)[number];

/** The first line a helper prints. */
export type HelperHelloLine = {
  type: 'hello';
  protocol: number;
  capabilities: string[];
  /** Which helper answered, e.g. `{ name: 'uia-helper', os: 'win32', pid: 4242 }`. */
  helper?: { name: string; os: string; pid: number; version?: string };
};

/** Params of `elementAt`: a point in physical pixels of the virtual desktop (may be negative). */
export type ElementAtParams = { x: number; y: number };

/** Result of `elementAt` (or null over no application). */
export type ElementAtResult = {
  /** Element under the point first, then its ancestors up to the application. */
  path: AxNode[];
  /** Application (process) name, or null. */
  app: string | null;
  /** Owning process id, when known. */
  pid?: number;
  /** True when the element or an ancestor is a secure text field (names and values dropped). */
  isSecure: boolean;
};

/** Params of `snapshotFocusedWindow`: the budget, plus the per-element timeout. */
export type SnapshotParams = {
  maxNodes: number;
  maxMs: number;
  maxChildrenPerNode: number;
  /** Messaging timeout set on every element visited (AX) / per call (UIA), ms; default 250. */
  elementTimeoutMs?: number;
};

/** Result of `snapshotFocusedWindow`. */
export type SnapshotResult = {
  root: AxNode | null;
  nodeCount: number;
  truncated: boolean;
  note?: string;
  app?: string;
};

/** Result of `activeWindow` (or null when no window is active). */
export type ActiveWindowResult = {
  title: string;
  /** Application (process) name. */
  app: string;
  pid: number;
  /** Window rectangle in physical pixels of the virtual desktop. */
  bounds: AxBounds;
  /** Platform window id (HWND, CGWindowID) as a string, when known. */
  windowId?: string;
};

/** One display of `displays`. */
export type HelperDisplay = {
  /** Platform id (CGDirectDisplayID, monitor device name) as a string. */
  id: string;
  /** Bounds in physical pixels of the virtual desktop (x/y negative left of/above the primary). */
  bounds: AxBounds;
  /** Physical pixels per logical unit (macOS backing scale, Windows DPI / 96). */
  scale: number;
  primary: boolean;
  /** Human name when the platform has one. */
  name?: string;
  /**
   * Position in the OS's own display enumeration, when it differs from this list's order: macOS
   * CGGetActiveDisplayList, which ffmpeg's avfoundation numbers `Capture screen N` by
   * (docs/platform-macos-windows.md §2).
   */
  listIndex?: number;
};

/** State of one permission. */
export type PermissionState = 'granted' | 'denied' | 'unknown' | 'not-required';

/** Result of `permissions`. */
export type PermissionsResult = {
  accessibility: PermissionState;
  screenRecording: PermissionState;
  inputMonitoring: PermissionState;
};

/** A focus event line: `{"type":"event","event":"focus","t":…,"role","name","isSecure",…}`. */
export type FocusEventLine = {
  type: 'event';
  event: 'focus';
  /** Helper's monotonic clock, s (informational). */
  t: number;
  role: string;
  /** '' for secure fields. */
  name: string;
  isSecure: boolean;
  app?: string;
  pid?: number;
};

/** A display-layout change: `{"type":"event","event":"displays","displays":[…]}`. */
export type DisplaysEventLine = {
  type: 'event';
  event: 'displays';
  t: number;
  displays: HelperDisplay[];
};
