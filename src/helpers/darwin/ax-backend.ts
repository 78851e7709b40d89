// The seam between the macOS helper's walking logic and the OS: every AX, CoreFoundation and
// CoreGraphics call the helper makes goes through these two interfaces. ffi/koffi-backend.ts
// implements them over koffi (the only koffi user); tests implement them in memory and record
// every call. Coordinates here are the OS's own: points of the global display space (origin at
// the primary display's top-left, y down); darwin/displays.ts converts them to pixels
// (docs/helper-protocol.md §6).

/** A point in global display points. */
export type AxPoint = { x: number; y: number };
/** A size in points. */
export type AxSize = { width: number; height: number };
/** A rectangle in global display points. */
export type PointRect = { x: number; y: number; width: number; height: number };

/** A decoded attribute value (CFString, CFNumber, CFBoolean, AXValue point/size); `null` for
 * anything else (elements, arrays, ranges). `undefined` in a result means "not there": the
 * attribute is unsupported, has no value or failed. */
export type AxAttributeValue = string | number | boolean | AxPoint | AxSize | null;

/** AXError codes the helper tells apart (HIServices AXError.h). */
export const AX_ERROR = {
  success: 0,
  failure: -25200,
  illegalArgument: -25201,
  invalidUIElement: -25202,
  cannotComplete: -25204,
  attributeUnsupported: -25205,
  notImplemented: -25208,
  apiDisabled: -25211,
  noValue: -25212,
} as const;

/** A failed AX call as a whole (not one attribute of a multi-attribute call). */
export class AxCallError extends Error {
  constructor(
    /** The AXError code, e.g. -25204 (kAXErrorCannotComplete: the app did not answer in time). */
    readonly code: number,
    /** Which call failed, e.g. `AXUIElementCopyAttributeValue(AXParent)`. */
    readonly call: string,
  ) {
    super(`${call} failed: ${describeAxError(code)}`);
  }
}

/** Human words for an AXError code. */
export function describeAxError(code: number): string {
  switch (code) {
    case AX_ERROR.cannotComplete:
      return 'the application did not answer in time (kAXErrorCannotComplete)';
    case AX_ERROR.invalidUIElement:
      return 'the element is gone (kAXErrorInvalidUIElement)';
    case AX_ERROR.apiDisabled:
      return 'accessibility access is not granted (kAXErrorAPIDisabled)';
    case AX_ERROR.noValue:
      return 'no value (kAXErrorNoValue)';
    case AX_ERROR.attributeUnsupported:
      return 'attribute unsupported (kAXErrorAttributeUnsupported)';
    default:
      return `AXError ${code}`;
  }
}

/**
 * The AX C API as the walker needs it. `E` is an element handle (a CFTypeRef pointer for koffi).
 * Every method returning handles returns them owned (+1): the caller releases each with
 * {@link AxBackend.release}. Calls that fail as a whole throw {@link AxCallError}.
 */
export interface AxBackend<E> {
  /** AXIsProcessTrusted, or AXIsProcessTrustedWithOptions with the prompt option. */
  isProcessTrusted(prompt?: boolean): boolean;
  /** AXUIElementCreateSystemWide. */
  systemWide(): E;
  /** AXUIElementCreateApplication. */
  application(pid: number): E;
  /** AXUIElementCopyElementAtPosition on `systemWide`, point in global points; null over nothing. */
  elementAtPosition(systemWide: E, x: number, y: number): E | null;
  /**
   * AXUIElementCopyMultipleAttributeValues: the values of `names` in ONE call, in order
   * (`undefined` for those that failed or have no value).
   */
  copyAttributes(element: E, names: readonly string[]): (AxAttributeValue | undefined)[];
  /** AXUIElementCopyAttributeValue of an element-valued attribute (AXParent,
   * AXFocusedApplication, AXFocusedWindow, AXFocusedUIElement); null when it has none. */
  copyElementAttribute(element: E, name: string): E | null;
  /** AXUIElementGetAttributeValueCount(AXChildren). */
  childCount(element: E): number;
  /** AXUIElementCopyAttributeValues(AXChildren, 0, max): at most `max` children, in order. */
  children(element: E, max: number): E[];
  /** AXUIElementSetMessagingTimeout (seconds, > 0: 0 would mean "the global default"). */
  setMessagingTimeout(element: E, seconds: number): void;
  /** AXUIElementGetPid; null when the element is gone. */
  pid(element: E): number | null;
  /** AXUIElementSetAttributeValue(appElement, AXManualAccessibility, true); false if refused. */
  setManualAccessibility(applicationElement: E): boolean;
  /** CFEqual of two elements. */
  sameElement(a: E, b: E): boolean;
  /** CFRelease. */
  release(element: E): void;
}

/** One on-screen window of CGWindowListCopyWindowInfo, front to back. */
export type CgWindow = {
  /** kCGWindowNumber. */
  number: number;
  /** kCGWindowOwnerPID. */
  pid: number;
  /** kCGWindowOwnerName ('' when missing). */
  ownerName: string;
  /** kCGWindowName: present only with the screen-recording permission (macOS 10.15+). */
  name: string | null;
  /** kCGWindowLayer (0: ordinary application windows). */
  layer: number;
  /** kCGWindowBounds, global points. */
  bounds: PointRect;
};

/** One active display of CGGetActiveDisplayList. */
export type CgDisplay = {
  /** CGDirectDisplayID. */
  id: number;
  /** CGDisplayBounds, global points. */
  bounds: PointRect;
  /** CGDisplayModeGetPixelWidth / CGDisplayModeGetWidth of the current mode (1 when unknown). */
  scale: number;
  /** CGMainDisplayID() === id. */
  primary: boolean;
};

/** A permission as the OS reports it. */
export type OsPermission = 'granted' | 'denied' | 'unknown';

/** CoreGraphics and IOKit calls (no accessibility permission needed for any of them). */
export interface DarwinSystem {
  /** CGWindowListCopyWindowInfo(OnScreenOnly | ExcludeDesktopElements, kCGNullWindowID). */
  windows(): CgWindow[];
  /** Active displays with bounds in points and backing scale. */
  displays(): CgDisplay[];
  /** CGPreflightScreenCaptureAccess (unknown before macOS 10.15). */
  screenRecording(): OsPermission;
  /** IOHIDCheckAccess(kIOHIDRequestTypeListenEvent). */
  inputMonitoring(): OsPermission;
}
