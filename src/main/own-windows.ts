// The app's own windows as the recorder sees them: native window ids (X11 XIDs, HWNDs, NSView
// pointers) from BrowserWindow.getNativeWindowHandle(), and a check the recorder can run on the
// window id it tracks (src/recorder/windows: xprop's `0x3a00007`), so clicks and keys aimed at
// the app itself (HUD, tray menu, main window) never become steps.
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

/** A window id as the recorder writes it (`0x3a00007`, or decimal) as a number, or null. */
export function parseWindowId(windowId: string): number | null {
  const text = windowId.trim().toLowerCase();
  if (/^0x[0-9a-f]+$/.test(text)) {
    return Number.parseInt(text.slice(2), 16);
  }
  return /^\d+$/.test(text) ? Number(text) : null;
}

/**
 * The `isOwnWindow` option for the recorder: true when `windowId` is one of `ids()` (read on each
 * call, so windows opened later count too).
 */
export function createOwnWindowCheck(ids: () => readonly number[]): (windowId: string) => boolean {
  return (windowId) => {
    const id = parseWindowId(windowId);
    return id !== null && id !== 0 && ids().includes(id);
  };
}
