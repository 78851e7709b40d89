// What review, export and upload bundles share about keyframes (docs/keyframes.md §1, §6): a
// step's search input (the freshness key of a stored keyframe), the decode binaries and the one
// entry point that decodes a recording's video for its steps' keyframes.
import { msToSeconds } from '../../shared/clock';
import type { Step, VideoInfo } from '../../shared/domain';
import type { KeyframeStepInput } from '../../pipeline/keyframes/plan';
import type { KeyframeExtraction } from '../../pipeline/media/keyframes-extract';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';

const ACTION_WORD: Partial<Record<Step['kind'], string>> = {
  click: 'click',
  doubleClick: 'click',
  tripleClick: 'click',
  rightClick: 'click',
  middleClick: 'click',
  dragTo: 'drag',
  scroll: 'scroll',
  hscroll: 'scroll',
  write: 'type',
  press: 'type',
  hotkey: 'press',
};

/** The keyframe search input of a step (its AgentNet row when imported). */
export function keyframeInputOf(step: Step): KeyframeStepInput {
  const complete = (step.extra.agentnet as { complete?: Record<string, unknown> } | undefined)
    ?.complete;
  const pressStartS = msToSeconds(step.startMs);
  const endS = msToSeconds(step.endMs);
  if (complete) {
    const pre = complete.pre_move as { start_time?: unknown } | undefined;
    return {
      action: typeof complete.action === 'string' ? complete.action : '',
      preMoveStartS: pre && typeof pre.start_time === 'number' ? pre.start_time : null,
      pressStartS,
      endS,
    };
  }
  const action =
    step.extra.longPress === true ? 'mouse_press' : (ACTION_WORD[step.kind] ?? step.kind);
  return {
    action,
    preMoveStartS: step.preMove ? msToSeconds(step.preMove.startMs) : null,
    pressStartS,
    endS,
  };
}

/** The keyframe search input of a step as stored (a different input later = stale row); with
 * pixel redactions (`redactHash`, services/privacy/redact-media.ts) their hash too, so a stored
 * image is reused only when it was redacted with the same boxes. */
export function keyframeInputKey(step: Step, redactHash: string | null = null): string {
  const input = keyframeInputOf(step);
  return JSON.stringify(redactHash === null ? input : { ...input, redact: redactHash });
}

/** The stored input of the terminate keyframe: its search starts at the last step's end
 * (docs/keyframes.md §1.5), so only that end (and the redactions) decides whether it is stale. */
export function terminateInputKey(
  steps: readonly Step[],
  redactHash: string | null = null,
): string | null {
  const last = steps.at(-1);
  const endS = last ? keyframeInputOf(last).endS : null;
  if (endS === null) {
    return null;
  }
  return JSON.stringify(
    redactHash === null ? { terminate: endS } : { terminate: endS, redact: redactHash },
  );
}

/** ffmpeg, and ffprobe for seeking decodes (null: decode from frame 0), for keyframes. */
export type DecodeBinaries = { ffmpegPath: string; ffprobePath: string | null };

/** The given binaries (an explicit ffmpeg comes with its ffprobe or none), else the resolved
 * ones (CUA_FFMPEG, ffmpeg-static, PATH). */
export async function resolveDecodeBinaries(options: {
  ffmpegPath?: string;
  ffprobePath?: string | null;
}): Promise<DecodeBinaries> {
  if (options.ffmpegPath) {
    return { ffmpegPath: options.ffmpegPath, ffprobePath: options.ffprobePath ?? null };
  }
  const binary = await resolveFfmpeg();
  return { ffmpegPath: binary.path, ffprobePath: binary.ffprobePath };
}

/** The binaries of {@link resolveDecodeBinaries}, resolved when first asked for: a run that finds
 * every keyframe stored starts no ffmpeg (issue 31). */
export type LazyDecodeBinaries = () => Promise<DecodeBinaries>;

/** {@link resolveDecodeBinaries} on the first call, the same answer after. */
export function lazyDecodeBinaries(options: {
  ffmpegPath?: string;
  ffprobePath?: string | null;
}): LazyDecodeBinaries {
  let resolved: Promise<DecodeBinaries> | null = null;
  return () => (resolved ??= resolveDecodeBinaries(options));
}

/** How the services decode for keyframes (issue 31, measured with bench/export-cold.ts): one
 * decoder at a time (a second ffmpeg is 75–85 MiB more and buys little on two cores), without
 * frame threads (each thread holds its own frames: ffmpeg's peak 84 -> 71 MiB on the example,
 * and less CPU), and a small budget for buffered frames (a backward search larger than it
 * decodes its reference first, keeps it as gray and compares on the fly instead of holding its
 * probes' RGB). Same frames and pixels either way. */
export const SERVICE_DECODE_LIMITS = {
  concurrency: 1,
  decoderThreads: 1,
  bufferBytes: 16 * 1024 * 1024,
} as const;

/** The keyframes of `steps` in a recording's video (frame count and rate must be known): the
 * one place the services decode a video for keyframes. With `encodeFrame` (e.g. to PNG) each
 * chosen frame is encoded as soon as it is known and its RGB let go (the keyframes carry
 * `encoded`, no `rgb`). */
export async function extractStepKeyframes(
  videoPath: string,
  video: VideoInfo & { frameCount: number },
  steps: readonly Step[],
  binaries: DecodeBinaries,
  signal?: AbortSignal,
  encodeFrame?: (frame: number, rgb: Buffer) => Buffer,
): Promise<KeyframeExtraction> {
  // the decoder loads with the first extraction: hosts that only read keyframes skip it
  const { extractKeyframes } = await import('../../pipeline/media/keyframes-extract');
  return await extractKeyframes({
    videoPath,
    ...binaries,
    videoStartS: msToSeconds(video.startMs),
    fps: video.fps,
    frameCount: video.frameCount,
    width: video.width,
    height: video.height,
    steps: steps.map(keyframeInputOf),
    ...SERVICE_DECODE_LIMITS,
    ...(signal ? { signal } : {}),
    ...(encodeFrame ? { encodeFrame } : {}),
  });
}
