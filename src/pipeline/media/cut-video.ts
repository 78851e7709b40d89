// Cuts a constant-frame-rate video to a frame range by re-encoding, so the cut's frame 0 is
// exactly source frame `startFrame` (a stream copy can only cut at key frames).
// docs/agentnet-raw-export.md §3; docs/agentnet-raw-format.md §13.4 (H.264 yuv420p, CFR)
import { AppError } from '../../shared/errors';
import { runCommand } from '../../infra/run-command';

/** Default wall-clock limit of one cut: 30 min (a re-encode of a long recording on 2 cores). */
export const DEFAULT_CUT_TIMEOUT_MS = 30 * 60 * 1000;

/** Options of {@link cutVideoFrames}. */
export type CutVideoOptions = {
  ffmpegPath: string;
  inputPath: string;
  /** An `.mp4` path; replaced if it exists. */
  outputPath: string;
  /** First source frame kept (0-based). */
  startFrame: number;
  /** First source frame no longer kept (exclusive). */
  endFrame: number;
  /** Wall-clock limit, ms; default {@link DEFAULT_CUT_TIMEOUT_MS}. */
  timeoutMs?: number;
};

/** The ffmpeg arguments of a cut (pure; one comment per flag). */
export function cutVideoArgs(options: CutVideoOptions): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    ...['-loglevel', 'error'],
    ...['-i', options.inputPath],
    // the first video stream only: our recordings have no audio, AgentNet's is muted
    ...['-map', '0:v:0'],
    // select by decoded frame index (exact, unlike a time seek), then restart the clock at 0
    ...[
      '-vf',
      `trim=start_frame=${options.startFrame}:end_frame=${options.endFrame},setpts=PTS-STARTPTS`,
    ],
    // keep the source's timestamps: frame n of the cut stays at n/fps (no frames added/dropped)
    ...['-fps_mode', 'passthrough'],
    // H.264 yuv420p as docs/agentnet-raw-format.md §13.4 asks; crf 18 keeps UI text as recorded
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p'],
    '-an',
    ...['-movflags', '+faststart'],
    '-y',
    options.outputPath,
  ];
}

/** Writes source frames [startFrame, endFrame) of `inputPath` to `outputPath`. */
export async function cutVideoFrames(options: CutVideoOptions): Promise<void> {
  if (
    !Number.isInteger(options.startFrame) ||
    !Number.isInteger(options.endFrame) ||
    options.startFrame < 0 ||
    options.endFrame <= options.startFrame
  ) {
    throw new Error(
      `Assertion failed: frame range [${options.startFrame}, ${options.endFrame}) is empty or invalid`,
    );
  }
  const result = await runCommand(options.ffmpegPath, cutVideoArgs(options), {
    timeoutMs: options.timeoutMs ?? DEFAULT_CUT_TIMEOUT_MS,
  });
  if (result.code !== 0) {
    throw new AppError(
      'FFMPEG_FAILED',
      `ffmpeg could not cut ${options.inputPath} to frames ${options.startFrame}–${options.endFrame - 1}: ` +
        (result.isTimedOut
          ? `timed out after ${options.timeoutMs ?? DEFAULT_CUT_TIMEOUT_MS} ms`
          : `exit code ${String(result.code)}${result.signal ? `, signal ${result.signal}` : ''}: ${result.stderr.trim().slice(-500)}`),
      { startFrame: options.startFrame, endFrame: options.endFrame },
      'Check that the video plays (`cua-annotator doctor`) and that the output disk has space, then export again.',
    );
  }
}
