// The standardized format: `<episode>.json` (OpenCUA's standardized trajectory) with its images
// under `images/`, or embedded as data URIs.
import { buildStandardizedJson, standardizedImageName } from '../../pipeline/export/standardized';
import { buildTrajectory } from '../../pipeline/export/trajectory';
import { requireImage, type ExportImages } from './export-keyframes';
import type { Loaded } from './export-load';
import type { ExportWriter } from './export-writer';

/** Writes `<episode>.json` of `l` and, unless `embedImages`, its images. */
export async function writeStandardized(
  l: Loaded,
  images: ExportImages,
  out: ExportWriter,
  embedImages: boolean,
): Promise<void> {
  const traj = buildTrajectory(l.steps);
  const pngs = new Map<number, Buffer>();
  for (const s of traj) {
    pngs.set(s.imageIndex, requireImage(images, l, s.imageIndex));
  }
  const json = buildStandardizedJson({
    episodeId: l.episodeId,
    taskName: l.rec.task,
    steps: traj,
    imageContent: (idx) =>
      embedImages
        ? `data:image/png;base64,${pngs.get(idx)!.toString('base64')}`
        : `images/${standardizedImageName(l.episodeId, idx)}`,
  });
  await out.file(`${l.episodeId}.json`, json);
  if (!embedImages) {
    for (const [idx, png] of pngs) {
      await out.file(`images/${standardizedImageName(l.episodeId, idx)}`, png);
    }
  }
}
