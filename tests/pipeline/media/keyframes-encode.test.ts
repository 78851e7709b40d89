// extractKeyframes as the services run it (SERVICE_DECODE_LIMITS: one decoder without frame
// threads, a 16 MiB buffer budget, so most backward searches prefetch their reference as gray)
// and with encodeFrame (each chosen frame encoded as soon as it is known, its RGB let go): the
// same choices as the golden table and, decoded, the same pixels as a default extraction that
// keeps RGB (docs/keyframes.md §5, §6).
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractKeyframes } from '../../../src/pipeline/media/keyframes-extract';
import type {
  ExtractKeyframesOptions,
  KeyframeExtraction,
} from '../../../src/pipeline/media/keyframes-extract';
import { decodePng, encodePngRgb } from '../../../src/pipeline/media/png';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { SERVICE_DECODE_LIMITS } from '../../../src/services/keyframes/keyframe-extraction';
import { FIXTURE_DIR } from '../../helpers/paths';
import {
  GOLDEN_FPS,
  GOLDEN_FRAME_COUNT,
  GOLDEN_HEIGHT,
  GOLDEN_ROWS,
  GOLDEN_STEP_INPUTS,
  GOLDEN_TERMINATE,
  GOLDEN_VST,
  GOLDEN_WIDTH,
} from '../keyframes/golden';

let base: ExtractKeyframesOptions;
let plain: KeyframeExtraction;
let lean: KeyframeExtraction;
const encodedFrames: number[] = [];

beforeAll(async () => {
  const binary = await resolveFfmpeg();
  base = {
    videoPath: path.join(FIXTURE_DIR, '2024-11-05 18-56-31.mp4'),
    ffmpegPath: binary.path,
    ffprobePath: binary.ffprobePath,
    videoStartS: GOLDEN_VST,
    fps: GOLDEN_FPS,
    frameCount: GOLDEN_FRAME_COUNT,
    width: GOLDEN_WIDTH,
    height: GOLDEN_HEIGHT,
    steps: GOLDEN_STEP_INPUTS,
  };
  plain = await extractKeyframes(base);
  lean = await extractKeyframes({
    ...base,
    ...SERVICE_DECODE_LIMITS,
    encodeFrame: (frame, rgb) => {
      encodedFrames.push(frame);
      return encodePngRgb(rgb, GOLDEN_WIDTH, GOLDEN_HEIGHT);
    },
  });
}, 240_000);

describe('extractKeyframes with the service limits and encodeFrame', () => {
  it('chooses the golden frames, prefetching references for the searches over the budget', () => {
    expect(lean.steps.map((k) => [k.timeS, k.frame, k.diagnostics])).toEqual(
      GOLDEN_ROWS.map((row) => [row.chosenT, row.frame, []]),
    );
    expect([lean.terminate?.timeS, lean.terminate?.frame]).toEqual([
      GOLDEN_TERMINATE.chosenT,
      GOLDEN_TERMINATE.frame,
    ]);
    expect(lean.stats.referenceFrames).toBeGreaterThan(0);
    expect(lean.stats.segments).toBe(1);
  });

  it('encodes each chosen frame once, keeps no RGB; the images decode to the same pixels', () => {
    const all = [...lean.steps, lean.terminate!];
    const expected = [...plain.steps, plain.terminate!];
    expect([...encodedFrames].sort((a, b) => a - b)).toEqual(
      [...new Set(all.map((k) => k.frame!))].sort((a, b) => a - b),
    );
    all.forEach((keyframe, i) => {
      expect(keyframe.rgb).toBeNull();
      expect(expected[i]!.encoded).toBeNull();
      const decoded = decodePng(keyframe.encoded!);
      expect(decoded.rgb.equals(expected[i]!.rgb!), `keyframe ${i}`).toBe(true);
    });
  });
});
