// The app's own windows as the recorder sees them: native window ids (X11 XIDs, HWNDs, NSView
// pointers) from BrowserWindow.getNativeWindowHandle(). The composition root hands them to the
// services (createServices' appWindows), whose recorder compares them with the window ids it
// tracks (xprop's `0x3a00007`): the app's windows (the HUD) are left out of the recording.
import type { BrowserWindow } from 'electron';

/** A window whose native id can be read. */
export type NativeWindow = Pick<BrowserWindow, 'getNativeWindowHandle' | 'isDestroyed'>;

/** The native id in a handle buffer (8 bytes on 64-bit systems, 4 on 32-bit ones). */
export function nativeWindowId(handle: Buffer): number {
  if (handle.length >= 8) {
    return Number(handle.readBigUInt64LE(0));
  }
  return handle.length >= 4 ? handle.readUInt32LE(0) : 0;
}

/** The native ids of the live windows among `windows`. */
export function ownWindowIds(windows: readonly NativeWindow[]): number[] {
  return windows
    .filter((w) => !w.isDestroyed())
    .map((w) => nativeWindowId(w.getNativeWindowHandle()));
}
