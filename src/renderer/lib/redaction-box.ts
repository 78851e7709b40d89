// Box redaction in the review UI (issue 14, item 3), pure: where the video's picture sits in its
// element (object-fit: contain letterboxes it), mapping a dragged rectangle from the element's
// CSS pixels to the video's pixel space (what a `redact-box` edit stores) and back for drawing,
// and which redactions cover the frame at the playhead: the same frame rule as exports
// (src/pipeline/privacy/redact-box.ts: frame n shows videoStartMs + n·1000/fps, both ends of a
// range included), so the player blacks out exactly what will leave blanked.

/** A rectangle in CSS pixels, relative to the video element's top-left corner. */
export type DisplayRect = { left: number; top: number; width: number; height: number };

/** A box in video pixels (top-left 0,0), as a `redact-box` edit stores it. */
export type VideoBox = { x: number; y: number; width: number; height: number };

/** A point in CSS pixels relative to the video element. */
export type DisplayPoint = { x: number; y: number };

/** A video's pixel size. */
export type VideoSize = { width: number; height: number };

/** A box redaction as the player needs it (recording clock, ms; both ends included). */
export type TimedBox = { startMs: number; endMs: number; box: VideoBox };

/** An excluded interval (recording clock, ms; endMs null while open: to the end). */
export type TimedInterval = { startMs: number; endMs: number | null };

/** Drags shorter than this (CSS px) in either direction are clicks, not boxes. */
export const MIN_DRAG_PX = 3;

/** Default length of a new box redaction's time range, ms. */
export const DEFAULT_RANGE_MS = 1000;

// A frame time computed in floating point may miss an integer ms bound by a few ulps.
const EPS = 1e-6;

/** Where the picture of a `video` sits inside an element of `el` size (object-fit: contain). */
export function fittedRect(el: VideoSize, video: VideoSize): DisplayRect {
  if (el.width <= 0 || el.height <= 0 || video.width <= 0 || video.height <= 0) {
    return { left: 0, top: 0, width: 0, height: 0 };
  }
  const scale = Math.min(el.width / video.width, el.height / video.height);
  const width = video.width * scale;
  const height = video.height * scale;
  return { left: (el.width - width) / 2, top: (el.height - height) / 2, width, height };
}

/** A point of the element in video pixels (fractional), clamped to the picture. */
export function displayToVideo(p: DisplayPoint, rect: DisplayRect, video: VideoSize): DisplayPoint {
  if (rect.width <= 0 || rect.height <= 0) {
    return { x: 0, y: 0 };
  }
  const x = ((p.x - rect.left) / rect.width) * video.width;
  const y = ((p.y - rect.top) / rect.height) * video.height;
  return {
    x: Math.min(video.width, Math.max(0, x)),
    y: Math.min(video.height, Math.max(0, y)),
  };
}

/**
 * The video box a drag from `a` to `b` (element CSS px, either direction) covers: corners rounded
 * to whole video pixels, clipped to the picture, at least 1×1. Null for a click (a drag shorter
 * than {@link MIN_DRAG_PX}) or a drag wholly outside the picture.
 */
export function dragToVideoBox(
  a: DisplayPoint,
  b: DisplayPoint,
  rect: DisplayRect,
  video: VideoSize,
): VideoBox | null {
  if (Math.abs(a.x - b.x) < MIN_DRAG_PX || Math.abs(a.y - b.y) < MIN_DRAG_PX) {
    return null;
  }
  const p = displayToVideo(a, rect, video);
  const q = displayToVideo(b, rect, video);
  const x0 = Math.round(Math.min(p.x, q.x));
  const y0 = Math.round(Math.min(p.y, q.y));
  const x1 = Math.round(Math.max(p.x, q.x));
  const y1 = Math.round(Math.max(p.y, q.y));
  if (x1 <= x0 && (x0 >= video.width || x1 <= 0)) {
    return null;
  }
  if (y1 <= y0 && (y0 >= video.height || y1 <= 0)) {
    return null;
  }
  const x = Math.min(x0, video.width - 1);
  const y = Math.min(y0, video.height - 1);
  return {
    x,
    y,
    width: Math.max(1, Math.min(x1, video.width) - x),
    height: Math.max(1, Math.min(y1, video.height) - y),
  };
}

/** A video box as a rectangle of the element (CSS px), for drawing it over the picture. */
export function videoBoxToDisplay(box: VideoBox, rect: DisplayRect, video: VideoSize): DisplayRect {
  if (video.width <= 0 || video.height <= 0) {
    return { left: 0, top: 0, width: 0, height: 0 };
  }
  const sx = rect.width / video.width;
  const sy = rect.height / video.height;
  return {
    left: rect.left + box.x * sx,
    top: rect.top + box.y * sy,
    width: box.width * sx,
    height: box.height * sy,
  };
}

/** Recording-clock ms of the frame shown at video time `videoSec` (fps unknown: the time). */
export function frameTimeMs(videoSec: number, video: { startMs: number; fps: number }): number {
  if (!(video.fps > 0)) {
    return video.startMs + videoSec * 1000;
  }
  const frame = Math.max(0, Math.floor(videoSec * video.fps + EPS));
  return video.startMs + (frame * 1000) / video.fps;
}

/** True when [startMs, endMs] (both included; null end: open) covers `tMs`. */
export function covers(r: { startMs: number; endMs: number | null }, tMs: number): boolean {
  return tMs >= r.startMs - EPS && (r.endMs === null || tMs <= r.endMs + EPS);
}

/** The box redactions covering the frame at `tMs` (recording clock), in their order. */
export function boxesAt<T extends TimedBox>(boxes: readonly T[], tMs: number): T[] {
  return boxes.filter((b) => covers(b, tMs));
}

/** True when an excluded interval covers the frame at `tMs` (the whole frame is blanked). */
export function isExcludedAt(intervals: readonly TimedInterval[], tMs: number): boolean {
  return intervals.some((r) => covers(r, tMs));
}

/** A new box redaction's default time range: the playhead to one second later (whole ms). */
export function defaultRange(nowMs: number): { startMs: number; endMs: number } {
  const startMs = Math.max(0, Math.round(nowMs));
  return { startMs, endMs: startMs + DEFAULT_RANGE_MS };
}

/** Why a draft cannot be applied yet, or null when it can. */
export function draftProblem(draft: {
  box: VideoBox | null;
  startMs: number;
  endMs: number;
}): string | null {
  if (!draft.box) {
    return 'Drag a rectangle over the video.';
  }
  if (!Number.isFinite(draft.startMs) || !Number.isFinite(draft.endMs) || draft.startMs < 0) {
    return 'Give a start and an end time.';
  }
  if (draft.endMs < draft.startMs) {
    return 'The end is before the start.';
  }
  return null;
}
