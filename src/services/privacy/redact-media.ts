// Pixel redaction of what leaves the machine (issue 14, item 3): the recording's active
// `redact-box` edits and its excluded intervals (marks of kind `excluded`, blanked whole), applied
// to keyframe images and to the exported video. The library's video and rows never change.
import { createHash } from 'node:crypto';
import { EXCLUDED_MARK_KIND, EXCLUDED_REGION_MARK_KIND } from '../../shared/domain/privacy';
import type { VideoInfo } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import type { KeptRange } from '../../pipeline/export/kept-range';
import {
  boxesAtFrame,
  drawboxFilter,
  fillRgbBoxes,
  redactionsKey,
  type FrameTiming,
  type PixelRedaction,
} from '../../pipeline/privacy/redact-box';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';
import { runCommand } from '../../infra/run-command';
import { listEdits, listMarks } from '../../store';
import type { Library } from '../library/library';

/** Default wall-clock limit of one redacting re-encode: 30 min (as a cut). */
const REDACT_TIMEOUT_MS = 30 * 60 * 1000;

/** Every pixel redaction of a recording: active box edits, then excluded intervals (an open
 * interval runs to the end of the video), then the rectangles of excluded windows while they were
 * on the screen (`excluded-region` marks, docs/privacy.md §2; without bounds: the whole frame). */
export function pixelRedactions(lib: Library, seq: number): PixelRedaction[] {
  const out: PixelRedaction[] = [];
  for (const e of listEdits(lib.db, seq, ['active'])) {
    if (e.edit.op === 'redact-box') {
      out.push({ startMs: e.edit.startMs, endMs: e.edit.endMs, box: { ...e.edit.box } });
    }
  }
  for (const m of listMarks(lib.db, seq)) {
    if (m.kind === EXCLUDED_MARK_KIND) {
      out.push({ startMs: m.tMs, endMs: m.endMs ?? Number.MAX_SAFE_INTEGER, box: null });
    } else if (m.kind === EXCLUDED_REGION_MARK_KIND) {
      out.push({
        startMs: m.tMs,
        endMs: m.endMs ?? Number.MAX_SAFE_INTEGER,
        box: excludedRegionBox(m.data.bounds),
      });
    }
  }
  return out;
}

/** The box of an `excluded-region` mark's bounds (screen px, which are the video's on X11); null
 * when they cannot be read (the mark then blanks the whole frame rather than nothing). */
export function excludedRegionBox(bounds: unknown): PixelRedaction['box'] {
  const b = bounds as Partial<Record<'x' | 'y' | 'width' | 'height', unknown>> | null | undefined;
  if (!b) {
    return null;
  }
  const [x, y, width, height] = [b.x, b.y, b.width, b.height];
  return typeof x === 'number' &&
    typeof y === 'number' &&
    typeof width === 'number' &&
    typeof height === 'number' &&
    [x, y, width, height].every(Number.isFinite) &&
    width > 0 &&
    height > 0
    ? { x, y, width, height }
    : null;
}

/** A short hash of a recording's redactions (null: none), for freshness keys and file names. */
export function redactionHash(redactions: readonly PixelRedaction[]): string | null {
  const key = redactionsKey(redactions);
  return key === null ? null : createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** The frame timing of a library video (its frame count must be known). */
export function timingOf(video: Pick<VideoInfo, 'startMs' | 'fps' | 'frameCount'>): FrameTiming {
  return { startMs: video.startMs, fps: video.fps, frameCount: video.frameCount ?? 0 };
}

/** Blacks out, in place, the boxes of source frame `frame` in a packed RGB24 frame. */
export function redactRgbFrame(
  rgb: Uint8Array,
  frame: number,
  redactions: readonly PixelRedaction[],
  video: Pick<VideoInfo, 'startMs' | 'fps' | 'frameCount' | 'width' | 'height'>,
): Uint8Array {
  if (!redactions.length) {
    return rgb;
  }
  const boxes = boxesAtFrame(redactions, frame, timingOf(video), video.width, video.height);
  return fillRgbBoxes(rgb, video.width, video.height, boxes);
}

/** The ffmpeg arguments of a redacting re-encode (optionally cut to `kept`'s frames): same
 * frame rate, same frame count, H.264 yuv420p like a cut (pipeline/media/cut-video.ts). */
export function redactVideoArgs(
  inputPath: string,
  outputPath: string,
  filter: string,
  kept: Pick<KeptRange, 'startFrame' | 'endFrame'> | null,
): string[] {
  const trim = kept
    ? `trim=start_frame=${kept.startFrame}:end_frame=${kept.endFrame},setpts=PTS-STARTPTS,`
    : '';
  return [
    '-hide_banner',
    '-nostdin',
    ...['-loglevel', 'error'],
    ...['-i', inputPath],
    ...['-map', '0:v:0'],
    ...['-vf', `${trim}${filter}`],
    // every source frame at its own timestamp: the frame count and rate stay the source's
    ...['-fps_mode', 'passthrough'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p'],
    '-an',
    ...['-movflags', '+faststart'],
    '-y',
    outputPath,
  ];
}

/**
 * Writes the recording's video (cut to `kept` when trimmed) with every redaction drawn; false
 * (nothing written) when no redaction touches the exported frames: the caller copies or cuts as
 * before, so an export without redactions stays byte-identical.
 */
export async function writeRedactedVideo(options: {
  inputPath: string;
  outputPath: string;
  video: Pick<VideoInfo, 'startMs' | 'fps' | 'frameCount' | 'width' | 'height'>;
  redactions: readonly PixelRedaction[];
  kept: Pick<KeptRange, 'startFrame' | 'endFrame'> | null;
  ffmpegPath?: string | undefined;
}): Promise<boolean> {
  const { video, kept } = options;
  if (options.redactions.length && !video.frameCount) {
    throw new AppError(
      'EXPORT_INVALID',
      `${options.inputPath}: the video's frame count is unknown, so its redactions cannot be drawn.`,
      undefined,
      'Re-import the recording with ffprobe installed.',
    );
  }
  const timing = timingOf(video);
  const filter = drawboxFilter(
    options.redactions,
    timing,
    video.width,
    video.height,
    kept ?? { startFrame: 0, endFrame: timing.frameCount },
  );
  if (filter === null) {
    return false;
  }
  const ffmpeg = options.ffmpegPath || (await resolveFfmpeg()).path;
  const result = await runCommand(
    ffmpeg,
    redactVideoArgs(options.inputPath, options.outputPath, filter, kept),
    { timeoutMs: REDACT_TIMEOUT_MS },
  );
  if (result.code !== 0) {
    throw new AppError(
      'FFMPEG_FAILED',
      `ffmpeg could not write the redacted video of ${options.inputPath}: ` +
        (result.isTimedOut
          ? `timed out after ${REDACT_TIMEOUT_MS} ms`
          : `exit code ${String(result.code)}: ${result.stderr.trim().slice(-500)}`),
      { redactions: options.redactions.length },
      'Check that the video plays (`cua-annotator doctor`) and that the output disk has space, then export again.',
    );
  }
  return true;
}

/** True when some redaction touches the frames a video export writes (all, or `kept`'s). */
export function redactsVideo(
  redactions: readonly PixelRedaction[],
  video: Pick<VideoInfo, 'startMs' | 'fps' | 'frameCount' | 'width' | 'height'>,
  kept: Pick<KeptRange, 'startFrame' | 'endFrame'> | null,
): boolean {
  if (!redactions.length) {
    return false;
  }
  if (!video.frameCount) {
    return true; // unknown length: writeRedactedVideo refuses rather than copy unredacted
  }
  const timing = timingOf(video);
  return (
    drawboxFilter(
      redactions,
      timing,
      video.width,
      video.height,
      kept ?? { startFrame: 0, endFrame: timing.frameCount },
    ) !== null
  );
}
