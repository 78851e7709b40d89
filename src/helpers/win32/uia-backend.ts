// What the Windows helper's walking logic (walk.ts) needs from UI Automation and from plain
// Win32, as interfaces: implemented over koffi in ffi/ and by in-memory fakes in the tests.
// Every element comes back with its properties already cached (one cross-process call per
// element: ElementFromPointBuildCache, GetFocusedElementBuildCache, the control-view walker's
// …BuildCache methods); `props` only reads that cache (docs/helper-protocol.md §6).
import type { AxBounds } from '../../axtree/model';

/** UIA property ids the helper caches (UIA_…PropertyId). */
export const UIA_PROPERTY = {
  BoundingRectangle: 30001,
  ProcessId: 30002,
  ControlType: 30003,
  Name: 30005,
  HasKeyboardFocus: 30008,
  IsEnabled: 30010,
  AutomationId: 30011,
  ClassName: 30012,
  IsPassword: 30019,
} as const;

/** The properties fetched with every element, in one call (never Value: §6). */
export const CACHED_PROPERTIES: readonly number[] = [
  UIA_PROPERTY.ControlType,
  UIA_PROPERTY.Name,
  UIA_PROPERTY.BoundingRectangle,
  UIA_PROPERTY.IsPassword,
  UIA_PROPERTY.ProcessId,
  UIA_PROPERTY.HasKeyboardFocus,
  UIA_PROPERTY.IsEnabled,
  UIA_PROPERTY.AutomationId,
  UIA_PROPERTY.ClassName,
];

/**
 * Ids the helper must never request: UIA_ValueValuePropertyId, UIA_ValuePatternId and
 * UIA_LegacyIAccessibleValuePropertyId (reading a value triggers autocomplete in some apps, §6).
 */
export const FORBIDDEN_IDS: readonly number[] = [30045, 10002, 30093];

/** The cached properties of one element. */
export type UiaProps = {
  controlType: number;
  name: string;
  /** Physical pixels of the virtual desktop (the process is per-monitor-v2 DPI aware). */
  bounds: AxBounds | null;
  isPassword: boolean;
  processId: number;
  hasKeyboardFocus: boolean;
  isEnabled: boolean;
  automationId: string;
  className: string;
};

/** UI Automation as the walking logic sees it; `E` is the backend's element handle. */
export type UiaBackend<E> = {
  /** Element at a point (cached), or null over nothing. */
  elementFromPoint(x: number, y: number): E | null;
  /** Focused element (cached), or null. */
  focusedElement(): E | null;
  /** Element of a window handle (cached), or null. */
  elementFromHandle(hwnd: bigint): E | null;
  /** Control-view parent (cached); null at the desktop root or above a top-level window. */
  parent(element: E): E | null;
  /** Control-view first child (cached), or null. */
  firstChild(element: E): E | null;
  /** Control-view next sibling (cached), or null. */
  nextSibling(element: E): E | null;
  /** The element's cached properties (no cross-process call). */
  props(element: E): UiaProps;
  /** Releases the element (COM Release). */
  release(element: E): void;
  /** Sets UIA's transaction timeout (per call), ms, when the platform supports it. */
  setCallTimeout(ms: number): void;
};

/** A Win32 rectangle (right/bottom exclusive), physical pixels. */
export type Win32Rect = { left: number; top: number; right: number; bottom: number };

/** One monitor from EnumDisplayMonitors + GetMonitorInfoW + GetDpiForMonitor. */
export type Win32Monitor = {
  /** Device name, e.g. `\\.\DISPLAY1`. */
  device: string;
  /** rcMonitor, physical pixels of the virtual desktop (may be negative). */
  rect: Win32Rect;
  /** MONITORINFOF_PRIMARY. */
  primary: boolean;
  /** Effective DPI (96 = 100 %), or null when GetDpiForMonitor is missing or failed. */
  dpi: number | null;
};

/** The foreground window from plain Win32 calls. */
export type Win32Window = {
  hwnd: bigint;
  title: string;
  pid: number;
  /** DWM extended frame bounds when available, else GetWindowRect. */
  rect: Win32Rect;
};

/** Plain Win32 (user32, shcore, dwmapi, kernel32) as the helper sees it. */
export type Win32Backend = {
  /** GetForegroundWindow with its title, pid and rectangle, or null. */
  foregroundWindow(): Win32Window | null;
  /** Monitors in EnumDisplayMonitors order. */
  monitors(): Win32Monitor[];
  /** Executable base name without `.exe` (`explorer`), or null when the process is not readable. */
  processName(pid: number): string | null;
};

/** Converts a Win32 rectangle to model bounds (null when empty or inverted). */
export function rectToBounds(rect: Win32Rect): AxBounds | null {
  const width = rect.right - rect.left;
  const height = rect.bottom - rect.top;
  if (!(width > 0 && height > 0)) {
    return null;
  }
  return { x: rect.left, y: rect.top, width, height };
}
