// Pixel redaction (issue 14, item 3): boxes of the video blacked out over a time range, from the
// reviewer's `redact-box` edits and from the intervals an excluded window had focus (blanked
// whole). Pure: which frames a redaction covers, the boxes of one frame, filling them in an RGB
// frame, and the ffmpeg drawbox filter that draws the same boxes on the same frames of a video.
// Frames are matched by index (frame n shows recording time videoStartMs + n·1000/fps), so
// keyframes and the exported video agree to the frame.

/** A box in recording pixels (the video's pixel space, top-left 0,0). */
export type RedactBox = { x: number; y: number; width: number; height: number };

/** One pixel redaction: `box` over [startMs, endMs] (recording clock, both ends included);
 * a null box is the whole frame (an excluded interval). */
export type PixelRedaction = { startMs: number; endMs: number; box: RedactBox | null };

/** The frame timing of a video: its first frame's recording time, rate and length. */
export type FrameTiming = { startMs: number; fps: number; frameCount: number };

// A frame time computed in floating point may miss an integer ms bound by a few ulps.
const EPS = 1e-6;

/** The frames [first, last] (inclusive) of `timing` that `r` covers, or null when none. */
export function redactedFrames(
  r: Pick<PixelRedaction, 'startMs' | 'endMs'>,
  timing: FrameTiming,
): { first: number; last: number } | null {
  const first = Math.max(0, Math.ceil(((r.startMs - timing.startMs) * timing.fps) / 1000 - EPS));
  const last = Math.min(
    timing.frameCount - 1,
    Math.floor(((r.endMs - timing.startMs) * timing.fps) / 1000 + EPS),
  );
  return first <= last ? { first, last } : null;
}

/** `box` clipped to a width×height frame (null box: the whole frame); null when nothing is left. */
export function clipBox(box: RedactBox | null, width: number, height: number): RedactBox | null {
  if (!box) {
    return width > 0 && height > 0 ? { x: 0, y: 0, width, height } : null;
  }
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(width, Math.ceil(box.x + box.width));
  const y1 = Math.min(height, Math.ceil(box.y + box.height));
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** The clipped boxes to black out in frame `frame` of a width×height video. */
export function boxesAtFrame(
  redactions: readonly PixelRedaction[],
  frame: number,
  timing: FrameTiming,
  width: number,
  height: number,
): RedactBox[] {
  const out: RedactBox[] = [];
  for (const r of redactions) {
    const span = redactedFrames(r, timing);
    if (span && frame >= span.first && frame <= span.last) {
      const b = clipBox(r.box, width, height);
      if (b) {
        out.push(b);
      }
    }
  }
  return out;
}

/** Fills `boxes` with black in a packed RGB24 frame (in place); returns the same buffer. */
export function fillRgbBoxes(
  rgb: Uint8Array,
  width: number,
  height: number,
  boxes: readonly RedactBox[],
): Uint8Array {
  for (const box of boxes) {
    const b = clipBox(box, width, height);
    if (!b) {
      continue;
    }
    for (let y = b.y; y < b.y + b.height; y += 1) {
      const row = (y * width + b.x) * 3;
      rgb.fill(0, row, row + b.width * 3);
    }
  }
  return rgb;
}

/** True when some redaction covers a frame of the video. */
export function touchesVideo(
  redactions: readonly PixelRedaction[],
  timing: FrameTiming,
  width: number,
  height: number,
): boolean {
  return redactions.some(
    (r) => redactedFrames(r, timing) !== null && clipBox(r.box, width, height) !== null,
  );
}

/**
 * The ffmpeg filter chain (comma-joined drawbox filters, or null when nothing applies) that
 * blacks out every redaction on its frames of a width×height video whose frame 0 is `timing`'s
 * frame 0 (`n` in the enable expression is the output frame index).
 */
export function drawboxFilter(
  redactions: readonly PixelRedaction[],
  timing: FrameTiming,
  width: number,
  height: number,
  /** Source frames [startFrame, endFrame) the output holds (a cut); default all of them. */
  window: { startFrame: number; endFrame: number } = { startFrame: 0, endFrame: timing.frameCount },
): string | null {
  const parts: string[] = [];
  for (const r of redactions) {
    const span = redactedFrames(r, timing);
    const b = clipBox(r.box, width, height);
    if (!span || !b) {
      continue;
    }
    const first = Math.max(span.first, window.startFrame) - window.startFrame;
    const last = Math.min(span.last, window.endFrame - 1) - window.startFrame;
    if (first > last) {
      continue;
    }
    parts.push(
      `drawbox=x=${b.x}:y=${b.y}:w=${b.width}:h=${b.height}:color=black:t=fill:` +
        `enable='between(n,${first},${last})'`,
    );
  }
  return parts.length ? parts.join(',') : null;
}

/** A stable text of a redaction list (order-independent), null when empty: what a cached
 * keyframe must have been computed with to be reused. */
export function redactionsKey(redactions: readonly PixelRedaction[]): string | null {
  if (!redactions.length) {
    return null;
  }
  const items = redactions
    .map((r) =>
      JSON.stringify([
        r.startMs,
        r.endMs,
        r.box ? [r.box.x, r.box.y, r.box.width, r.box.height] : null,
      ]),
    )
    .sort();
  return `[${items.join(',')}]`;
}
