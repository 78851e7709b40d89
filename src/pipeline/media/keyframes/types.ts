// Options, results and counters of keyframe extraction (docs/keyframes.md §6): what
// extractKeyframes takes, the keyframes it returns with their pixels, and how it got them.
import type { KeyframePlan, KeyframeStepInput } from '../../keyframes/plan';
import type { ResolvedKeyframe } from '../../keyframes/resolve';

/** Default memory the buffering searches may hold at once, in bytes (a piped backward search
 * over the fixture's longest range holds ~190 MB of 720p RGB; the budget is split per slot). */
export const DEFAULT_KEYFRAME_BUFFER_BYTES = 512 * 1024 * 1024;

/** Options of extractKeyframes (keyframes-extract.ts). */
export type ExtractKeyframesOptions = {
  /** The episode's video file. */
  videoPath: string;
  /** ffmpeg executable (resolved by the caller, e.g. with the recorder's resolveFfmpeg). */
  ffmpegPath: string;
  /** ffprobe executable for the frame timeline (seeking) when the MP4 index cannot be used;
   * null or absent: decode from frame 0 then. */
  ffprobePath?: string | null;
  /** Read the MP4's sample index and pipe the needed packets to ffmpeg (default true); false:
   * use the ffprobe timeline (or frame 0) even for a plain H.264 MP4. */
  directRead?: boolean;
  /** `video_start_timestamp`: absolute clock s of frame 0. */
  videoStartS: number;
  /** Frame rate of the video (constant), e.g. 30. */
  fps: number;
  /** Exact frame count of the video (e.g. probeVideo().frameCount). */
  frameCount: number;
  /** Video width in px. */
  width: number;
  /** Video height in px. */
  height: number;
  /** The steps in output order. */
  steps: readonly KeyframeStepInput[];
  /** Aborts every decode (rejects with ABORTED). */
  signal?: AbortSignal;
  /** Decodes running at once; default min(2, available CPUs). */
  concurrency?: number;
  /** Memory budget of buffered frames, bytes; default {@link DEFAULT_KEYFRAME_BUFFER_BYTES}. */
  bufferBytes?: number;
  /** `-threads` of each decoding ffmpeg; default 1 when decodes run in parallel, else ffmpeg's
   * own (frame threads on every core, each holding its own frames). */
  decoderThreads?: number;
  /** Encodes a chosen frame (e.g. to PNG) as soon as its search is decided, so that its RGB is
   * not held to the end; the keyframes then carry `encoded` and no `rgb`. Called once per
   * chosen frame. Absent: the keyframes carry `rgb`. */
  encodeFrame?: (frame: number, rgb: Buffer) => Buffer;
};

/** One chosen keyframe with its pixels. */
export type ExtractedKeyframe = ResolvedKeyframe & {
  /** RGB24 pixels of `frame` (width · height · 3 bytes; steps choosing the same frame may share
   * the buffer); null when the frame could not be read (see diagnostics). */
  rgb: Buffer | null;
  /** With `encodeFrame`: what it made of `frame` (steps choosing the same frame share it), null
   * when the frame could not be read; without: null. */
  encoded: Buffer | null;
};

/** Counters of one extraction. */
export type KeyframeExtractionStats = {
  /** True when decodes skipped to the needed parts; false: one decode from frame 0. */
  isSeeking: boolean;
  /** How parts were found: the MP4's index (piped), the ffprobe timeline (seeks), or none. */
  frameSource: 'mp4-index' | 'ffprobe-timeline' | 'sequential';
  /** Decode segments (ffmpeg processes) of the main pass. */
  segments: number;
  /** Reference frames decoded beforehand for searches too large to buffer. */
  referenceFrames: number;
  /** Frames requested from the main pass (probes, candidates, references, fixed frames). */
  requestedFrames: number;
  /** Frames the main pass delivered before its segments could stop. */
  decodedFrames: number;
  /** Frames of the video the decoders had to go through (from each segment's keyframe to its
   * last delivered frame): the decoding work. */
  spannedFrames: number;
  /** Frames of the piped parts never sent to ffmpeg: not wanted, and no other frame refers to
   * them (non-reference pictures), so decoding them would be wasted. */
  skippedFrames: number;
  /** Probe comparisons made (gray similarity tests). */
  comparisons: number;
  /** Wall-clock ms of reading the MP4 index or the frame timeline listing. */
  timelineMs: number;
  /** Wall-clock ms of all decoding. */
  decodeMs: number;
};

/** Result of extractKeyframes (keyframes-extract.ts). */
export type KeyframeExtraction = {
  /** One keyframe per input step, same order. */
  steps: ExtractedKeyframe[];
  /** The terminate keyframe (video-relative time); null when there are no steps. */
  terminate: ExtractedKeyframe | null;
  /** The plan the decodes followed. */
  plan: KeyframePlan;
  /** Counters and timings. */
  stats: KeyframeExtractionStats;
};
