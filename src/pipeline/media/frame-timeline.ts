// The frame timeline of a video: every frame's presentation timestamp and which frames are
// keyframes, from one ffprobe packet listing (demuxing only, no decoding). It lets a decode start
// at the keyframe before the frames it needs (input seek) and still pick frames by their index n
// in presentation order (docs/keyframes.md §2), by selecting on the frames' exact timestamps.
import { runCommand } from '../../infra/run-command';

/** Default limit of the listing process, in ms (it reads the whole file). */
export const DEFAULT_TIMELINE_TIMEOUT_MS = 60_000;

/** Frame timestamps and keyframes of a video's first video stream. */
export type FrameTimeline = {
  /** Stream time base as a fraction of a second, e.g. { num: 1, den: 15360 }. */
  timeBase: { num: number; den: number };
  /** pts of frame n (presentation order), in time-base units; strictly ascending. */
  pts: number[];
  /** Indices n of the keyframes, ascending; always starts with 0. */
  keyframes: number[];
};

/** Options of {@link readFrameTimeline}. */
export type ReadFrameTimelineOptions = {
  /** Limit for the listing in ms; default {@link DEFAULT_TIMELINE_TIMEOUT_MS}. */
  timeoutMs?: number;
};

// Lists the packets of the first video stream; null when the timeline cannot be trusted for
// seeking (ffprobe fails, a packet without pts, repeated pts, frame 0 not a keyframe). Callers
// then decode sequentially from the start, which needs no timeline.
export async function readFrameTimeline(
  videoPath: string,
  ffprobePath: string,
  options: ReadFrameTimelineOptions = {},
): Promise<FrameTimeline | null> {
  let stdout: string;
  try {
    const result = await runCommand(
      ffprobePath,
      [
        ...['-v', 'error', '-select_streams', 'v:0'],
        ...['-show_entries', 'stream=time_base:packet=pts,flags'],
        ...['-of', 'csv=p=0', '-i', videoPath],
      ],
      { timeoutMs: options.timeoutMs ?? DEFAULT_TIMELINE_TIMEOUT_MS },
    );
    if (result.code !== 0 || result.isTimedOut || result.isStdoutTruncated) {
      return null;
    }
    stdout = result.stdout;
  } catch {
    return null; // ffprobe cannot start: decode without a timeline
  }
  return parseFrameTimeline(stdout);
}

// Parses `ffprobe -show_entries stream=time_base:packet=pts,flags -of csv=p=0` output.
export function parseFrameTimeline(text: string): FrameTimeline | null {
  let timeBase: FrameTimeline['timeBase'] | null = null;
  const packets: { pts: number; isKey: boolean }[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      continue;
    }
    const base = /^(\d+)\/(\d+)$/.exec(line);
    if (base) {
      const num = Number(base[1]);
      const den = Number(base[2]);
      if (!(num > 0 && den > 0)) {
        return null;
      }
      timeBase = { num, den };
      continue;
    }
    const packet = /^(-?\d+),([A-Z_]+)$/.exec(line);
    if (!packet) {
      return null; // N/A pts or anything unexpected
    }
    const pts = Number(packet[1]);
    if (!Number.isSafeInteger(pts)) {
      return null;
    }
    packets.push({ pts, isKey: (packet[2] ?? '').includes('K') });
  }
  if (timeBase === null || packets.length === 0) {
    return null;
  }
  // presentation order = ascending pts (packets are listed in decoding order)
  packets.sort((a, b) => a.pts - b.pts);
  const pts: number[] = [];
  const keyframes: number[] = [];
  for (const [index, packet] of packets.entries()) {
    if (index > 0 && packet.pts === pts[index - 1]) {
      return null;
    }
    pts.push(packet.pts);
    if (packet.isKey) {
      keyframes.push(index);
    }
  }
  if (keyframes[0] !== 0) {
    return null;
  }
  return { timeBase, pts, keyframes };
}

// The keyframe at or before frame `frame` (its index n).
export function keyframeAtOrBefore(
  timeline: Pick<FrameTimeline, 'keyframes'>,
  frame: number,
): number {
  const { keyframes } = timeline;
  let lo = 0;
  let hi = keyframes.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const keyframe = keyframes[mid] as number;
    if (keyframe <= frame) {
      found = keyframe;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

// Seconds for ffmpeg's `-seek_timestamp 1 -ss` that land on frame `frame` (a keyframe): its pts
// rounded up to the microsecond, so the seek (to the last keyframe at or before the time) can
// neither fall back to the previous keyframe nor skip this one (frames are ≫ 1 µs apart).
export function seekSecondsOf(timeline: FrameTimeline, frame: number): string {
  const pts = timeline.pts[frame];
  if (pts === undefined) {
    throw new RangeError(`seekSecondsOf: frame ${frame} is not in the timeline`);
  }
  return ticksToSeconds(timeline, BigInt(pts), 1n, 'up');
}

// Seconds for an input `-to` that keeps frame `frame` and drops every later one: halfway to the
// next frame's pts (rounded down to the microsecond); null for the last frame (read to the end).
export function stopSecondsAfter(timeline: FrameTimeline, frame: number): string | null {
  const pts = timeline.pts[frame];
  if (pts === undefined) {
    throw new RangeError(`stopSecondsAfter: frame ${frame} is not in the timeline`);
  }
  const next = timeline.pts[frame + 1];
  return next === undefined ? null : ticksToSeconds(timeline, BigInt(pts + next), 2n, 'down');
}

// (ticks / divisor) in seconds as a decimal string with 6 decimals, rounded as asked; exact
// integer arithmetic (time bases like 1/90000 make floats drift).
function ticksToSeconds(
  timeline: FrameTimeline,
  ticks: bigint,
  divisor: bigint,
  rounding: 'up' | 'down',
): string {
  const { num, den } = timeline.timeBase;
  const scaled = ticks * BigInt(num) * 1_000_000n;
  const by = BigInt(den) * divisor;
  // BigInt division truncates toward zero: fix it up to floor / ceil
  let micros = scaled / by;
  if (rounding === 'up' && micros * by < scaled) {
    micros += 1n;
  } else if (rounding === 'down' && micros * by > scaled) {
    micros -= 1n;
  }
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / 1_000_000n;
  const fraction = (abs % 1_000_000n).toString().padStart(6, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}
