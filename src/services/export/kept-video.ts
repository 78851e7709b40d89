// The kept part of a trimmed recording (docs/agentnet-raw-export.md §3): which frames an export
// keeps, and the cut video holding them. agentnet-raw writes the cut video; the keyframe images
// of the other formats are chosen on it (export-keyframes.ts).
import { AppError } from '../../shared/errors';
import { planKeptRange, type KeptRange } from '../../pipeline/export/kept-range';
import { cutVideoFrames } from '../../pipeline/media/cut-video';
import { resolveFfmpeg } from '../../infra/ffmpeg/binary';
import type { Loaded } from './export-load';

/** The part of a trimmed recording an export keeps (null: untrimmed, everything is exported). */
export function keptRangeOf(l: Loaded): KeptRange | null {
  if (l.trim.startMs === null && l.trim.endMs === null) {
    return null;
  }
  const video = l.rec.videos[0]!;
  if (!video.frameCount) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${l.rec.id} is trimmed but its video's frame count is unknown, so the video cannot be cut.`,
      { recordingId: l.rec.id },
      'Re-import the recording with ffprobe installed, or remove the trim.',
    );
  }
  return planKeptRange({ ...video, frameCount: video.frameCount }, l.steps, l.trim);
}

/** Writes the kept frames of a trimmed recording's video (docs/agentnet-raw-export.md §3). */
export async function cutKeptVideo(
  l: Loaded,
  kept: KeptRange,
  outputPath: string,
  ffmpegPath: string | undefined,
): Promise<void> {
  await cutVideoFrames({
    ffmpegPath: ffmpegPath || (await resolveFfmpeg()).path,
    inputPath: l.videoPath,
    outputPath,
    startFrame: kept.startFrame,
    endFrame: kept.endFrame,
  });
}
