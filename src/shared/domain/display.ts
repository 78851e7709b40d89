// The coordinate contract of a recording (docs/architecture.md §5 "Coordinates"): events,
// accessibility bounds and video are in physical pixels of the recorded display, whose origin in
// the virtual desktop, size and scale are stored with the recording and with each video segment.

/** Where the recorded display sits and how big it is, in physical px of the virtual desktop. */
export type DisplayGeometry = {
  /** Left edge in the virtual desktop (negative on a monitor left of the primary one). */
  x: number;
  /** Top edge in the virtual desktop (negative on a monitor above the primary one). */
  y: number;
  width: number;
  height: number;
  /** Physical px per logical px (point): 2 on a Retina display, 1.5 at Windows' 150 %. */
  scale: number;
};

/** One stretch of a recording's video captured on one display geometry. */
export type VideoSegmentInfo = {
  /** Video file, relative to the library root. */
  path: string;
  /** Recording-clock ms of the segment's frame 0. */
  startMs: number;
  /** Recording-clock ms after its last frame; null while capturing (or unknown). */
  endMs: number | null;
  /** The recorded display while this segment was captured. */
  display: DisplayGeometry;
};

/** True when both geometries place the same pixels at the same size and scale. */
export function isSameGeometry(a: DisplayGeometry, b: DisplayGeometry): boolean {
  return (
    a.x === b.x &&
    a.y === b.y &&
    a.width === b.width &&
    a.height === b.height &&
    a.scale === b.scale
  );
}

/**
 * The segment showing recording time `tMs`: the last one that started at or before it (a time in
 * a pause belongs to the segment before the pause), or the first one for a time before every
 * segment. Null without segments. Segments are taken in start order whatever the input order.
 */
export function segmentAt<T extends { startMs: number }>(
  segments: readonly T[],
  tMs: number,
): T | null {
  let best: T | null = null;
  let first: T | null = null;
  for (const s of segments) {
    if (first === null || s.startMs < first.startMs) {
      first = s;
    }
    if (s.startMs <= tMs && (best === null || s.startMs >= best.startMs)) {
      best = s;
    }
  }
  return best ?? first;
}

/**
 * The frame size that holds every segment at its top-left corner (pixel (x, y) of any segment is
 * pixel (x, y) of the canvas): the size of a recording's joined video when the display changed.
 */
export function canvasOf(sizes: readonly { width: number; height: number }[]): {
  width: number;
  height: number;
} {
  let width = 0;
  let height = 0;
  for (const s of sizes) {
    width = Math.max(width, s.width);
    height = Math.max(height, s.height);
  }
  return { width, height };
}
