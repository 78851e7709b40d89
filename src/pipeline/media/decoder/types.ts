// The public shapes of a frame decode (docs/keyframes.md §2–3): what the caller passes to
// FrameDecoder/decodeFrames, what each frame looks like and what a finished decode reports.
import type { Writable } from 'node:stream';
import type { FrameBufferPool } from './buffer-pool';

/** Default limit between spawning ffmpeg and its readiness line, in ms. */
export const DEFAULT_DECODER_START_TIMEOUT_MS = 30_000;
/** Default delay between SIGTERM and SIGKILL when the decoder kills ffmpeg, in ms. */
export const DEFAULT_DECODER_KILL_GRACE_MS = 1_000;

/** The ffmpeg executable to run (structurally a subset of the recorder's `FfmpegBinary`). */
export type FfmpegExecutable = {
  /** Path of the ffmpeg executable. */
  path: string;
};

/** One decoded frame handed to {@link FrameDecoderOptions.onFrame}. */
export type DecodedFrame = {
  /** Frame index n (presentation order from 0, docs/keyframes.md §2). */
  index: number;
  /** Position of this frame among the requested frames (0-based). */
  ordinal: number;
  /** Packed RGB24 pixels, width · height · 3 bytes; the callback may keep the buffer. */
  rgb: Buffer;
  /** Frame width in px. */
  width: number;
  /** Frame height in px. */
  height: number;
};

/** Return 'stop' from the frame callback to end decoding early (the result is still success). */
export type FrameCallbackResult = void | 'stop';

/** Options of `FrameDecoder` and `decodeFrames`. */
export type FrameDecoderOptions = {
  /** ffmpeg to run (the caller resolves it; pipeline code cannot import the recorder). */
  ffmpeg: FfmpegExecutable;
  /** Video file to decode. */
  videoPath: string;
  /** Frame indices to decode (any order, duplicates ignored; each ≥ 0). */
  frames: Iterable<number>;
  /** Video width in px (output frames have the video's resolution). */
  width: number;
  /** Video height in px. */
  height: number;
  /** Start at a keyframe instead of frame 0: ffmpeg seeks there (input seek) and frames are
   * picked by their exact timestamps, so indices stay those of the whole video (§2). */
  seek?: FrameSeek;
  /** Read the frames from a piped Matroska stream instead (exclusive with `seek`). */
  stream?: FrameStream;
  /** How frames travel from ffmpeg: 'auto' (default) a named pipe where the OS has them, else
   * stdout; 'stdout' always stdout. */
  transport?: 'auto' | 'stdout';
  /** Decoder threads for ffmpeg (`-threads`); default: ffmpeg's choice. Use 1 when several
   * decodes run at once: frame threading then only adds overhead. */
  decoderThreads?: number;
  /** Where frame buffers come from (default: a new buffer per frame). With a pool, a frame
   * buffer belongs to the callback until it gives it back with `pool.release`. */
  pool?: FrameBufferPool;
  /** Called once per decoded frame, in ascending index order (descending with seek.reverse);
   * awaited before the next frame. */
  onFrame: (frame: DecodedFrame) => FrameCallbackResult | Promise<FrameCallbackResult>;
  /** Aborts decoding: ffmpeg is killed and `done` rejects with code ABORTED. */
  signal?: AbortSignal;
  /** ms until ffmpeg must have opened the video; default {@link DEFAULT_DECODER_START_TIMEOUT_MS}. */
  startTimeoutMs?: number;
  /** ms between SIGTERM and SIGKILL; default {@link DEFAULT_DECODER_KILL_GRACE_MS}. */
  killGraceMs?: number;
  /** Debug logger (`pipeline:frames`): spawn arguments, readiness, kills and the exit status. */
  log?: (message: string) => void;
};

/** Where a decode starts and how frame indices map to timestamps (see frame-timeline.ts). */
export type FrameSeek = {
  /** `-ss` value in seconds on the file's own timestamps (`-seek_timestamp 1`): a keyframe's
   * pts, rounded up to the microsecond. Every requested frame lies at or after that keyframe. */
  seconds: string;
  /** pts (stream time base) of frame n. */
  ptsOf: (frame: number) => number;
  /** Deliver the frames in descending index order: ffmpeg reads the input only up to
   * `stopSeconds` (file timestamps, just past the last requested frame), keeps the selected
   * frames (still undecoded to RGB) and converts them last first, so a consumer that stops early
   * spares the conversion of the rest. */
  reverse?: { stopSeconds: string | null };
};

/** Input written to ffmpeg's stdin instead of reading `videoPath`: a Matroska stream whose
 * blocks carry their frame index n as timestamp (see mkv-stream.ts), so frames are selected by
 * that pts. Frames must still come out in ascending index order (send the parts in order). */
export type FrameStream = {
  /** Writes the whole stream to `stdin` (honouring backpressure) and ends it; rejects on a read
   * error. After `signal` aborts (the decode ended), it should stop writing and resolve. */
  feed: (stdin: Writable, signal: AbortSignal) => Promise<void>;
};

/** Outcome of a finished decode. */
export type FrameDecodeResult = {
  /** The requested frame indices, ascending and unique. */
  frames: number[];
  /** Number of frames delivered to the callback. */
  decodedCount: number;
  /** Requested frames the video did not have (past its last frame); [] when stopped early. */
  missingFrames: number[];
  /** True when the callback returned 'stop' or stop() was called before the end. */
  isStoppedEarly: boolean;
  /** Wall-clock time from spawn to exit, in ms (0 when nothing had to be decoded). */
  durationMs: number;
};
