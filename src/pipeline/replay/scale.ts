// Coordinate scaling from the recording's screen to the replay screen (docs/replay.md §3).

/** A screen in the virtual desktop: size in pixels and the top-left corner (default 0,0). */
export type ScreenFrame = {
  width: number;
  height: number;
  /** Top-left corner in virtual-desktop pixels (negative left of or above the primary monitor). */
  origin?: { x: number; y: number };
};

/** A point in pixels. */
export type Point = { x: number; y: number };

/**
 * Maps a virtual-desktop point on screen `from` to the same relative place on screen `to`:
 * `to.origin + (p − from.origin) · to.size / from.size`, rounded to integers and clamped to the
 * last pixel inside `to` (so a point at the right or bottom edge, or off the recorded screen,
 * still lands on the replay screen).
 */
export function scalePoint(p: Point, from: ScreenFrame, to: ScreenFrame): Point {
  const fx = from.origin?.x ?? 0;
  const fy = from.origin?.y ?? 0;
  const tx = to.origin?.x ?? 0;
  const ty = to.origin?.y ?? 0;
  const x = Math.round(tx + ((p.x - fx) * to.width) / from.width);
  const y = Math.round(ty + ((p.y - fy) * to.height) / from.height);
  return {
    x: clamp(x, tx, tx + to.width - 1),
    y: clamp(y, ty, ty + to.height - 1),
  };
}

function clamp(value: number, low: number, high: number): number {
  // `+ 0` turns a −0 from rounding into 0.
  return Math.min(high, Math.max(low, value)) + 0;
}
