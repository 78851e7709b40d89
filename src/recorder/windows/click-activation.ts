// Which press brought a window to the front (issue 26, item 17). A click on a window in the
// background makes the window manager activate it as the button goes down, but the active-window
// timeline stamps the change when xprop reports it, a few to a few hundred milliseconds later:
// the click's step, which starts at the press, was attributed to the window in front before it.
// A timeline entry whose window was activated by a press is stamped with the press instead.
// Pure: the caller keeps the recent presses and the entry before.
import type { ActiveWindowEntry } from './active-window';

/** A button press: when and where (pixels of the recorded display, which on X11 are the screen's). */
export type PressPoint = { tMs: number; x: number; y: number };

/** How long after a press its activation may be reported, ms. */
export const CLICK_ACTIVATION_MAX_MS = 500;

/** Window-manager decorations around the client area (the bounds the timeline stores) that a
 * press may land on and still activate the window: the title bar above, the borders around, px. */
export const FRAME_MARGIN_PX = { top: 40, side: 12, bottom: 12 } as const;

/**
 * The press that activated `entry`'s window, or null. It must come after the entry before it
 * (no other window came to the front in between), at most {@link CLICK_ACTIVATION_MAX_MS} before
 * the entry, and land on the window (its client area or decorations) but not on the client area
 * of the window in front before it (that window took the press). A transient window (a
 * dialog, `WM_TRANSIENT_FOR`) is never taken: a click on a button that opens one activates the
 * dialog after the click, and the click belongs to the window it was made in. The latest such
 * press wins.
 */
export function activatingPress(
  entry: Pick<ActiveWindowEntry, 'tMs' | 'change' | 'windowId' | 'bounds' | 'transientFor'>,
  previous: {
    tMs: number;
    windowId: string | null;
    bounds?: ActiveWindowEntry['bounds'];
  } | null,
  presses: readonly PressPoint[],
): PressPoint | null {
  const b = entry.bounds;
  if (
    entry.change !== 'activated' ||
    entry.windowId === null ||
    b === null ||
    previous === null ||
    previous.windowId === entry.windowId ||
    (entry.transientFor ?? null) !== null
  ) {
    return null;
  }
  // the window in front held the press when it landed on it (its client area): that click was
  // the front window's, whatever came to the front after it (a dialog closed by its own button
  // hands the focus to the window behind, under the same point)
  const front = previous.bounds ?? null;
  const isOnFront = (p: PressPoint): boolean =>
    front !== null &&
    p.x >= front.x &&
    p.x < front.x + front.width &&
    p.y >= front.y &&
    p.y < front.y + front.height;
  let best: PressPoint | null = null;
  for (const p of presses) {
    const isInTime =
      p.tMs >= previous.tMs && p.tMs < entry.tMs && entry.tMs - p.tMs <= CLICK_ACTIVATION_MAX_MS;
    const isOnWindow =
      p.x >= b.x - FRAME_MARGIN_PX.side &&
      p.x < b.x + b.width + FRAME_MARGIN_PX.side &&
      p.y >= b.y - FRAME_MARGIN_PX.top &&
      p.y < b.y + b.height + FRAME_MARGIN_PX.bottom;
    if (isInTime && isOnWindow && !isOnFront(p) && (best === null || p.tMs > best.tMs)) {
      best = p;
    }
  }
  return best;
}
