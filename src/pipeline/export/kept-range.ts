// What an export of a trimmed recording keeps: the trim window widened to the kept steps, and
// the whole video frames that cover it. docs/agentnet-raw-export.md §3 explains the choices.
// docs/agentnet-raw-format.md §3 (video time = t − video_start_timestamp), §13.4; docs/keyframes.md §2
import { strictAssert } from '../../shared/assert';

/** The trim of a recording (recording clock ms; null = open end). */
export type TrimWindow = { startMs: number | null; endMs: number | null };

/** The part of a recording an export keeps. */
export type KeptRange = {
  /** Events, trees and windows stamped in [fromMs, toMs] are exported (clock ms). */
  fromMs: number;
  toMs: number;
  /** The exported video is source frames [startFrame, endFrame). */
  startFrame: number;
  endFrame: number;
  /** Clock ms of the exported video's frame 0 (the new `video_start_timestamp`). */
  videoStartMs: number;
  /** Frame rate of the source (and the exported) video. */
  fps: number;
};

/** The video facts the plan needs (constant frame rate: frame n at startMs + n·1000/fps). */
export type KeptRangeVideo = { startMs: number; fps: number; frameCount: number };

// Absorbs float noise in (t − start)·fps so a time exactly on a frame stays on it.
const FRAME_EPSILON = 1e-6;

/**
 * The kept range of a trimmed recording, or null when the trim keeps everything (no cut).
 * `steps` are the steps the trim kept: a step kept by its start may end after the trim's end,
 * so the range reaches the end of the last kept step. The video keeps every frame that shows
 * part of the range: frame 0 of the cut starts at or before `fromMs`.
 */
export function planKeptRange(
  video: KeptRangeVideo,
  steps: readonly { startMs: number; endMs: number }[],
  trim: TrimWindow,
): KeptRange | null {
  if (trim.startMs === null && trim.endMs === null) {
    return null;
  }
  strictAssert(
    video.fps > 0 && video.frameCount > 0,
    `a cut needs a frame rate and a frame count, got ${video.fps} fps, ${video.frameCount} frames`,
  );
  const lastStepEndMs = steps.reduce((max, s) => Math.max(max, s.endMs), -Infinity);
  const fromMs = trim.startMs ?? -Infinity;
  const toMs = trim.endMs === null ? Infinity : Math.max(trim.endMs, lastStepEndMs);
  const frameOf = (tMs: number): number => ((tMs - video.startMs) * video.fps) / 1000;
  const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));
  const startFrame = Number.isFinite(fromMs)
    ? clamp(Math.floor(frameOf(fromMs) + FRAME_EPSILON), 0, video.frameCount - 1)
    : 0;
  const endFrame = Number.isFinite(toMs)
    ? clamp(Math.ceil(frameOf(toMs) - FRAME_EPSILON) + 1, startFrame + 1, video.frameCount)
    : video.frameCount;
  return {
    fromMs,
    toMs,
    startFrame,
    endFrame,
    videoStartMs: video.startMs + (startFrame * 1000) / video.fps,
    fps: video.fps,
  };
}

/** True when a clock time lies inside the kept range (always true without a range). */
export function isKept(range: KeptRange | null | undefined, tMs: number): boolean {
  return !range || (tMs >= range.fromMs && tMs <= range.toMs);
}
