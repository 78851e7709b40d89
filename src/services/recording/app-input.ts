// The app's own input in a recording: the click or key on the app's window that stopped or paused
// it (src/recorder/session excludeAppGesture stores an `app-input` mark over it), and how a
// press is told to be the app's (appPressCheck): only a press aimed at one of the app's windows
// may be taken for that gesture; a pause or stop with none (a script, a click the hook cannot
// see) leaves every press the annotator's.
import type { AppPressCheck, GesturePress } from '../../recorder/session';
import type { PointerWindowLookup } from '../../recorder/privacy/x11-pointer-window';
import type { RawEvent } from '../../shared/domain';
import type { MarkRecord } from '../../store';

/**
 * The title of a window whose page shows a recording under way (the Record page or the HUD, in
 * the desktop app or a browser on `serve`): src/renderer/hooks/use-recorder-status.ts sets it
 * (tests/faults/trust-input.test.ts checks the two agree). A browser adds its own name to it.
 */
export const APP_RECORDING_TITLE = '● Recording — cua-annotator';

/** The app's own windows: native window ids (X11 XIDs, HWNDs…) and the processes owning them. */
export type AppWindows = { windowIds: readonly number[]; pids: readonly number[] };

/** A window as the trackers report it. */
export type WindowFacts = {
  /** `0x3a00007` (X11) or a decimal id; null when unknown. */
  windowId: string | null;
  pid: number | null;
  title: string | null;
  bounds?: { x: number; y: number; width: number; height: number } | null;
};

const parseWindowId = (id: string | null): number | null => {
  const text = id?.trim().toLowerCase() ?? '';
  if (/^0x[0-9a-f]+$/.test(text)) {
    return Number.parseInt(text.slice(2), 16);
  }
  return /^\d+$/.test(text) ? Number(text) : null;
};

/** True when `w` is one of the app's windows: by id, by owning process, or by the Record page's
 * title. */
export function isAppWindow(w: WindowFacts, app: AppWindows): boolean {
  const id = parseWindowId(w.windowId);
  return (
    (id !== null && id !== 0 && app.windowIds.includes(id)) ||
    (w.pid !== null && app.pids.includes(w.pid)) ||
    (w.title?.includes(APP_RECORDING_TITLE) ?? false)
  );
}

const contains = (w: WindowFacts, x: number | null, y: number | null): boolean =>
  !w.bounds ||
  x === null ||
  y === null ||
  (x >= w.bounds.x &&
    y >= w.bounds.y &&
    x < w.bounds.x + w.bounds.width &&
    y < w.bounds.y + w.bounds.height);

/** Options of {@link appPressCheck}. */
export type AppPressCheckOptions = {
  /** The window under the pointer now (X11), or null where the OS does not tell. */
  pointerWindow: PointerWindowLookup | null;
  /** The app's windows, asked at each check (windows opened later count too). */
  appWindows: () => AppWindows;
};

/**
 * Decides whether the last press before a pause or stop the app asked for was aimed at the app:
 * a key when the app's window had the focus as it was pressed; a click when the window under
 * the pointer (where the OS tells, else the focused one) is the app's and holds the point the
 * button went down at.
 */
export function appPressCheck(options: AppPressCheckOptions): AppPressCheck {
  return async (press: GesturePress) => {
    const app = options.appWindows();
    if (press.kind === 'key') {
      // where the key went: the focus when it was pressed (a later click may have moved it)
      return press.focusedAtPress !== null && isAppWindow(press.focusedAtPress, app);
    }
    const pointed = options.pointerWindow ? await options.pointerWindow() : null;
    const target: WindowFacts | null = pointed ?? press.focused;
    return target !== null && isAppWindow(target, app) && contains(target, press.x, press.y);
  };
}

/**
 * The events left after the app's own input: the click or key that stopped or paused a recording
 * from the app's window (an `app-input` mark, src/recorder/session excludeAppGesture) is never a
 * step. The raw events stay stored; only the reduction skips them.
 */
export function withoutAppInput(events: RawEvent[], marks: readonly MarkRecord[]): RawEvent[] {
  const spans = marks.filter((m) => m.kind === 'app-input' && m.endMs !== null);
  if (!spans.length) {
    return events;
  }
  return events.filter((e) => !spans.some((m) => e.tMs >= m.tMs && e.tMs <= (m.endMs as number)));
}
