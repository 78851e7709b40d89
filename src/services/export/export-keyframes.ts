// The keyframe images of an export (docs/keyframes.md §5, §7): the stored keyframes when every
// one of them is fresh (keyframes/keyframes.ts), else one extraction from the video, from the cut
// video when the recording is trimmed (its frames are those of the agentnet-raw export).
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { encodePngRgb } from '../../pipeline/media/png';
import type { Library } from '../library/library';
import { extractStepKeyframes, type LazyDecodeBinaries } from '../keyframes/keyframe-extraction';
import { storedExportKeyframes } from '../keyframes/keyframes';
import type { Loaded } from './export-load';
import { cutKeptVideo, keptRangeOf } from './kept-video';
import { pixelRedactions, redactRgbFrame } from '../privacy/redact-media';

/** The images of one recording's export, by trajectory image index (steps, then terminate). */
export type ExportImages = {
  /** The PNG of image `index`; null when no frame could be read for it. */
  imageAt: (index: number) => Buffer | null;
  /** Problems met (`step <id>: CODE: …`, `terminate: CODE: …`, VIDEO_SHORTER_THAN_STEPS). */
  warnings: string[];
  /** True when the stored keyframes were used (the video was not decoded). */
  isStored: boolean;
};

/** The keyframe images of `l`; `workDir` holds a trimmed recording's cut video meanwhile. */
export async function exportKeyframeImages(
  lib: Library,
  l: Loaded,
  binaries: LazyDecodeBinaries,
  workDir: string,
): Promise<ExportImages> {
  const source = l.rec.videos[0]!;
  if (!source.frameCount) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${l.rec.id}: the video's frame count is unknown; re-import it with ffprobe installed.`,
    );
  }
  // a trimmed recording's frames come from its cut video, exactly as agentnet-raw writes it
  const kept = keptRangeOf(l);
  const video = kept
    ? { ...source, startMs: kept.videoStartMs, frameCount: kept.endFrame - kept.startFrame }
    : { ...source, frameCount: source.frameCount };
  const lastEndMs = Math.max(...l.steps.map((s) => s.endMs));
  const videoEndMs = video.startMs + (video.frameCount / video.fps) * 1000;
  const warnings: string[] = [];
  if (lastEndMs > videoEndMs) {
    warnings.push(
      `VIDEO_SHORTER_THAN_STEPS: the last step ends ${((lastEndMs - videoEndMs) / 1000).toFixed(3)} s after the video`,
    );
  }
  const stored = kept ? null : await storedExportKeyframes(lib, l.rec.seq, l.steps);
  if (stored) {
    return {
      imageAt: (index) => stored.images[index] ?? null,
      warnings: [...warnings, ...stored.warnings],
      isStored: true,
    };
  }
  const videoPath = kept ? path.join(workDir, `.cut-${l.rec.id}.mp4`) : l.videoPath;
  const decoders = await binaries();
  if (kept) {
    await cutKeptVideo(l, kept, videoPath, decoders.ffmpegPath);
  }
  const extraction = await extractStepKeyframes(videoPath, video, l.steps, decoders).finally(() =>
    kept ? fs.rm(videoPath, { force: true }) : undefined,
  );
  extraction.steps.forEach((k, i) => {
    for (const d of k.diagnostics) {
      warnings.push(`step ${l.steps[i]?.id}: ${d.code}: ${d.message}`);
    }
  });
  for (const d of extraction.terminate?.diagnostics ?? []) {
    warnings.push(`terminate: ${d.code}: ${d.message}`);
  }
  const pngs = new Map<number, Buffer | null>();
  // chosen on the original video, then redacted (issue 14): frame indices of a cut video count
  // from its first kept source frame
  const redactions = pixelRedactions(lib, l.rec.seq);
  const firstFrame = kept?.startFrame ?? 0;
  return {
    imageAt: (index) => {
      if (!pngs.has(index)) {
        const k = index < extraction.steps.length ? extraction.steps[index] : extraction.terminate;
        const rgb = !k?.rgb
          ? null
          : !redactions.length
            ? k.rgb
            : k.frame === null
              ? null
              : redactRgbFrame(Uint8Array.from(k.rgb), firstFrame + k.frame, redactions, source);
        pngs.set(index, rgb ? encodePngRgb(rgb, video.width, video.height) : null);
      }
      return pngs.get(index)!;
    },
    warnings,
    isStored: false,
  };
}

/** The image `imageIndex` of `l`, or EXPORT_INVALID when no frame could be read for it. */
export function requireImage(images: ExportImages, l: Loaded, imageIndex: number): Buffer {
  const png = images.imageAt(imageIndex);
  if (!png) {
    throw new AppError(
      'EXPORT_INVALID',
      `Recording ${l.rec.id}: no frame could be read for image ${imageIndex} (outside the video?); the export was not written.`,
    );
  }
  return png;
}
