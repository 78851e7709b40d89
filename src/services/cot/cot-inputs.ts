// What the CoT synthesis of one recording reads (docs/cot.md §5): the trajectory and keyframes the
// agentnet-jsonl export writes (the same steps, code and images upstream's cot-input gets), the
// reviewers' step marks, and each step's input fingerprint (a step is stale when it changes).
import { buildTrajectory, type TrajectoryStep } from '../../pipeline/export/trajectory';
import type { RgbImage } from '../../pipeline/cot/cue';
import type { CotStepInput } from '../../pipeline/cot/run';
import { decodePng } from '../../pipeline/media/png';
import type { Library } from '../library/library';
import { lazyDecodeBinaries } from '../keyframes/keyframe-extraction';
import { exportKeyframeImages, requireImage } from '../export/export-keyframes';
import { loadForExport, type Loaded } from '../export/export-load';
import { cotFingerprints, trajectoryMarks } from './cot-fingerprints';

/** A recording read for its CoT. */
export type CotInputs = {
  loaded: Loaded;
  goal: string;
  trajectory: TrajectoryStep[];
  steps: CotStepInput[];
  summaryInputSha256: string;
  /** The keyframe of trajectory image `index`, decoded to RGB. */
  image: (index: number) => Promise<RgbImage>;
};

/** Reads recording `id` for its CoT: steps, marks, images and fingerprints. */
export async function readCotInputs(
  lib: Library,
  id: string,
  options: {
    workDir: string;
    ffmpegPath?: string | undefined;
    /** Skip checking the video's SHA-256 (a view that sends nothing anywhere). */
    isVerified?: boolean;
  },
): Promise<CotInputs> {
  const loaded = await loadForExport(lib, id, 'agentnet-jsonl', {
    isVerified: options.isVerified ?? false,
  });
  const trajectory = buildTrajectory(loaded.steps);
  const images = await exportKeyframeImages(
    lib,
    loaded,
    lazyDecodeBinaries({ ffmpegPath: options.ffmpegPath }),
    options.workDir,
  );
  const pngs = trajectory.map((t) => requireImage(images, loaded, t.imageIndex));
  const marks = trajectoryMarks(loaded, trajectory);
  const goal = loaded.rec.task;
  const fingerprints = cotFingerprints(goal, trajectory, marks, pngs);
  return {
    loaded,
    goal,
    trajectory,
    steps: trajectory.map((t, index) => ({
      index,
      code: t.code,
      mark: marks[index] ?? null,
      inputSha256: fingerprints.steps[index]!,
    })),
    summaryInputSha256: fingerprints.summary,
    image: (index) => {
      const png = pngs[index];
      if (!png) {
        return Promise.reject(new RangeError(`no trajectory image ${index}`));
      }
      const d = decodePng(png);
      return Promise.resolve({ width: d.width, height: d.height, rgb: d.rgb });
    },
  };
}
