// Decode plans (docs/keyframes.md §6 step 3): how the units' frames are grouped into decodes.
// Forward decodes seeking with a ffprobe timeline merge across short gaps; piped decodes (the MP4
// index) merge overlapping parts and deal them to the decode slots; reversed decodes (backward
// searches with a timeline) share a decode only when that saves more than it wastes. Pure.
import { keyframeAtOrBefore } from '../frame-timeline';
import type { FrameTimeline } from '../frame-timeline';
import { sampleRunFor } from '../mp4-feed';
import type { SampleRun } from '../mp4-feed';
import type { Mp4VideoIndex } from '../mp4-index';
import type { DecodeUnit } from './decode-unit';

/** Seeking decodes: a new segment starts only when the next keyframe lies this many frames
 * past the end of the current one: decoding a short gap is cheaper than starting another ffmpeg.
 * (Piped parts never merge across a gap: skipping samples costs nothing.) */
export const SEGMENT_MERGE_GAP_FRAMES = 60;

/** A contiguous frame range wanted by one unit. */
export type FrameRange = { first: number; last: number };

/** One decode: from `startFrame` (a keyframe) through `lastFrame`, for the units `members`. */
export type DecodeSegment = {
  /** Frame the decode starts at (a keyframe; 0 without a timeline). */
  startFrame: number;
  /** Last frame any member wants. */
  lastFrame: number;
  /** Indices into the ranges given to {@link planDecodeSegments}. */
  members: number[];
};

// Groups unit ranges into decode segments: a range joins the current segment when its keyframe
// lies at most `mergeGapFrames` after the segment's last frame (continuing costs at most that
// many extra frames), else it starts a new segment at its keyframe.
export function planDecodeSegments(
  ranges: readonly FrameRange[],
  keyframeOf: (frame: number) => number,
  mergeGapFrames: number = SEGMENT_MERGE_GAP_FRAMES,
): DecodeSegment[] {
  const order = ranges
    .map((range, index) => ({ range, index }))
    .sort((a, b) => a.range.first - b.range.first || a.index - b.index);
  const segments: DecodeSegment[] = [];
  for (const { range, index } of order) {
    const current = segments.at(-1);
    const keyframe = keyframeOf(range.first);
    if (current !== undefined && keyframe <= current.lastFrame + mergeGapFrames) {
      current.lastFrame = Math.max(current.lastFrame, range.last);
      current.members.push(index);
    } else {
      segments.push({ startFrame: keyframe, lastFrame: range.last, members: [index] });
    }
  }
  return segments;
}

/** One decode of the segment runner: its units' frames between two frames, in one direction. */
export type RunnerSegment = {
  /** Frame the decode starts at (a keyframe; 0 without a timeline). */
  startFrame: number;
  /** Last frame any unit wants. */
  lastFrame: number;
  /** Units fed by this decode. */
  units: DecodeUnit[];
  /** Descending order (needs the timeline): ffmpeg reads up to lastFrame, then emits backwards. */
  isReversed: boolean;
  /** With the MP4 index: the parts piped to this decode, ascending. */
  runs?: SampleRun[];
};

// Groups units into piped decodes: one part per unit (from the keyframe before its first frame),
// overlapping parts merged (decoded once for all their units), then the parts dealt to at most
// `slots` decodes, longest first to the least loaded, each decode's parts in ascending order. A
// forward search ends at its first differing probe, somewhere in its range: it counts for half.
export function planPipedSegments(
  units: readonly DecodeUnit[],
  index: Mp4VideoIndex,
  slots: number,
): RunnerSegment[] {
  const parts = units
    .filter((unit) => unit.frames.length > 0)
    .map((unit) => {
      const first = unit.frames[0] as number;
      const last = unit.frames.at(-1) as number;
      const run = sampleRunFor(index, first, last);
      const expectedLast = unit.isOpenEnded ? Math.round((first + last) / 2) : last;
      return { run, expectedLast, units: [unit] };
    })
    .sort((a, b) => a.run.firstFrame - b.run.firstFrame);
  const merged: typeof parts = [];
  for (const part of parts) {
    const current = merged.at(-1);
    if (current !== undefined && part.run.firstFrame <= current.run.lastFrame) {
      current.run = {
        ...current.run,
        lastFrame: Math.max(current.run.lastFrame, part.run.lastFrame),
        lastSample: Math.max(current.run.lastSample, part.run.lastSample),
      };
      current.expectedLast = Math.max(current.expectedLast, part.expectedLast);
      current.units.push(...part.units);
    } else {
      merged.push({ ...part, run: { ...part.run }, units: [...part.units] });
    }
  }
  const cost = (part: (typeof merged)[number]): number =>
    part.expectedLast - part.run.firstFrame + 1;
  const bins = Array.from({ length: Math.min(slots, merged.length) }, () => ({
    cost: 0,
    parts: [] as typeof merged,
  }));
  for (const part of [...merged].sort((a, b) => cost(b) - cost(a))) {
    const bin = bins.reduce((least, candidate) =>
      candidate.cost < least.cost ? candidate : least,
    );
    bin.cost += cost(part);
    bin.parts.push(part);
  }
  return bins.map((bin) => {
    const ordered = bin.parts.sort((a, b) => a.run.firstFrame - b.run.firstFrame);
    return {
      startFrame: (ordered[0] as (typeof merged)[number]).run.firstFrame,
      lastFrame: (ordered.at(-1) as (typeof merged)[number]).run.lastFrame,
      units: ordered.flatMap((part) => part.units),
      isReversed: false,
      runs: ordered.map((part) => part.run),
    };
  });
}

/** Cost of starting one more ffmpeg, in decoded frames (Debian's ffmpeg needs ~0.1 s of CPU
 * to start; a 720p frame decodes in ~1.3 ms). */
const SPAWN_COST_FRAMES = 70;
/** Cost of one frame converted to RGB and piped to us, in decoded frames. */
const DELIVERY_COST_FRAMES = 6;

// Groups reversed (backward-search) units into decodes. In a shared reversed decode the higher
// unit is served first, and its frames after its own decision are converted for nothing until
// the lower unit is done; so a unit joins the decode below it only when what that saves (the
// frames from its keyframe up to the decode's end, plus one ffmpeg start) outweighs converting
// all its frames.
export function planReversedSegments(
  units: readonly DecodeUnit[],
  timeline: FrameTimeline,
): RunnerSegment[] {
  const sorted = [...units].sort((a, b) => (a.frames[0] as number) - (b.frames[0] as number));
  const segments: RunnerSegment[] = [];
  for (const unit of sorted) {
    const first = unit.frames[0] as number;
    const last = unit.frames.at(-1) as number;
    const keyframe = keyframeAtOrBefore(timeline, first);
    const current = segments.at(-1);
    if (
      current !== undefined &&
      keyframe <= current.lastFrame &&
      current.lastFrame - keyframe + SPAWN_COST_FRAMES >= unit.frames.length * DELIVERY_COST_FRAMES
    ) {
      current.lastFrame = Math.max(current.lastFrame, last);
      current.units.push(unit);
    } else {
      segments.push({ startFrame: keyframe, lastFrame: last, units: [unit], isReversed: true });
    }
  }
  return segments;
}
