// extractKeyframes end to end on the fixture episode with the real ffmpeg: chosen times and
// frames equal the golden table (docs/keyframes.md §5) and the chosen pixels equal the single-frame
// reference decode of §3 (written to PNG by ffmpeg, read back with our decoder).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAgentNetFolder } from '../../../src/pipeline/io/agentnet-read';
import type { KeyframeStepInput } from '../../../src/pipeline/keyframes';
import { extractKeyframes } from '../../../src/pipeline/media/keyframes-extract';
import type {
  ExtractKeyframesOptions,
  KeyframeExtraction,
} from '../../../src/pipeline/media/keyframes-extract';
import { decodePng } from '../../../src/pipeline/media/png';
import { probeVideo } from '../../../src/infra/ffmpeg/probe';
import { runCommand } from '../../../src/infra/run-command';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { notAVideo } from '../../helpers/not-a-video';
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

/** Frames compared against the §3 single-frame command (incl. the three verified upstream). */
const REFERENCE_FRAMES = [187, 449, 811, 1232, 3216, 3479];

let ffmpegPath = '';
let ffprobePath: string | null = null;
let tempDir = '';
let videoPath = '';
let steps: KeyframeStepInput[] = [];
let extraction: KeyframeExtraction;

/** Step inputs from the complete rows (action, pre_move) and the vis rows (press, end). */
function stepInputs(complete: Record<string, unknown>[], vis: Record<string, unknown>[]) {
  return complete.map((row, index): KeyframeStepInput => {
    const visRow = vis[index]!;
    const preMove = row.pre_move as { start_time: number } | undefined;
    return {
      action: row.action as string,
      preMoveStartS: 'pre_move' in row ? preMove!.start_time : null,
      pressStartS: visRow.start_time as number,
      endS: visRow.end_time as number,
    };
  });
}

/** Options for the golden episode's steps on `video` (the fixture or a damaged copy). */
function goldenOptions(
  video: string,
  extra: Partial<ExtractKeyframesOptions> = {},
): ExtractKeyframesOptions {
  return {
    videoPath: video,
    ffmpegPath,
    videoStartS: GOLDEN_VST,
    fps: GOLDEN_FPS,
    frameCount: GOLDEN_FRAME_COUNT,
    width: GOLDEN_WIDTH,
    height: GOLDEN_HEIGHT,
    steps: GOLDEN_STEP_INPUTS,
    ...extra,
  };
}

/** The spec §3 command for one frame, to a PNG, decoded with our PNG decoder. */
async function referenceFrame(frame: number): Promise<Buffer> {
  const png = path.join(tempDir, `reference-${frame}.png`);
  const result = await runCommand(
    ffmpegPath,
    [
      ...['-v', 'error', '-i', videoPath],
      ...['-vf', `select=eq(n\\,${frame}),scale=in_color_matrix=bt601:flags=bicubic`],
      ...['-vsync', '0', '-frames:v', '1', '-pix_fmt', 'rgb24', '-y', png],
    ],
    { timeoutMs: 120_000 },
  );
  expect(result.code).toBe(0);
  const decoded = decodePng(await readFile(png));
  expect([decoded.width, decoded.height]).toEqual([GOLDEN_WIDTH, GOLDEN_HEIGHT]);
  return decoded.rgb;
}

beforeAll(async () => {
  const binary = await resolveFfmpeg();
  ffmpegPath = binary.path;
  ffprobePath = binary.ffprobePath;
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-keyframes-'));
  const bundle = await readAgentNetFolder(FIXTURE_DIR);
  videoPath = bundle.videoPath;
  steps = stepInputs(bundle.reduced.complete, bundle.reduced.vis);
  const probe = await probeVideo(videoPath, binary);
  expect([probe.fps, probe.frameCount, probe.width, probe.height]).toEqual([
    GOLDEN_FPS,
    GOLDEN_FRAME_COUNT,
    GOLDEN_WIDTH,
    GOLDEN_HEIGHT,
  ]);
  expect(bundle.metadata.videoStartS).toBe(GOLDEN_VST);
  extraction = await extractKeyframes({
    videoPath,
    ffmpegPath,
    ffprobePath: binary.ffprobePath,
    videoStartS: bundle.metadata.videoStartS,
    fps: probe.fps!,
    frameCount: probe.frameCount!,
    width: probe.width,
    height: probe.height,
    steps,
  });
}, 120_000);

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

describe('extractKeyframes on win10-display-settings', () => {
  it('reads the step inputs of the golden table from the fixture files', () => {
    expect(steps).toEqual(GOLDEN_STEP_INPUTS);
  });

  it('chooses the golden times and frames bit-exactly, without diagnostics', () => {
    expect(
      extraction.steps.map((step) => ({
        t: step.timeS,
        frame: step.frame,
        diagnostics: step.diagnostics,
      })),
    ).toEqual(GOLDEN_ROWS.map((row) => ({ t: row.chosenT, frame: row.frame, diagnostics: [] })));
    expect(extraction.steps.map((step) => step.differingProbe)).toEqual(
      GOLDEN_ROWS.map((row) => (row.rule === 'A' ? (row.differing?.k ?? null) : null)),
    );
    expect(extraction.terminate).toMatchObject({
      timeS: GOLDEN_TERMINATE.chosenT,
      frame: GOLDEN_TERMINATE.frame,
      differingProbe: GOLDEN_TERMINATE.differing.k,
      diagnostics: [],
    });
  });

  it('returns RGB24 pixels for every chosen frame', () => {
    for (const keyframe of [...extraction.steps, extraction.terminate!]) {
      expect(keyframe.rgb?.length).toBe(GOLDEN_WIDTH * GOLDEN_HEIGHT * 3);
    }
    // steps choosing the same frame got the same pixels (steps 1 and 2 differ, 0 and 1 differ)
    expect(extraction.steps[0]!.rgb!.equals(extraction.steps[1]!.rgb!)).toBe(false);
  });

  it('pipes the needed parts of the video to two decodes and stops each after its last needed frame', () => {
    const { stats } = extraction;
    expect(stats.isSeeking).toBe(true);
    expect(stats.frameSource).toBe('mp4-index');
    // one ffmpeg per decode slot (min(2, cores)), each fed several parts
    expect(stats.segments).toBeLessThanOrEqual(2);
    expect(stats.referenceFrames).toBe(0);
    // far less than the whole video is decoded (the fixture's steps cover under half of it)
    expect(stats.spannedFrames).toBeLessThan(GOLDEN_FRAME_COUNT * 0.6);
    // terminate's probes after its differing probe (frames 3482…3677) were never decoded
    expect(stats.decodedFrames).toBeLessThan(stats.requestedFrames);
    expect(stats.comparisons).toBeGreaterThan(0);
  });

  it.each([
    ['piped, over budget: references decoded first', { bufferBytes: 1 }, 'mp4-index'],
    ['piped, one decode at a time', { concurrency: 1 }, 'mp4-index'],
    [
      'seeking with the ffprobe timeline: reversed decodes',
      { directRead: false },
      'ffprobe-timeline',
    ],
    [
      'seeking, over budget: forward decodes with references first',
      { directRead: false, bufferBytes: 1 },
      'ffprobe-timeline',
    ],
    ['seeking, one decode at a time', { directRead: false, concurrency: 1 }, 'ffprobe-timeline'],
    [
      'without ffprobe: one decode from frame 0, probes buffered',
      { directRead: false, ffprobePath: null },
      'sequential',
    ],
    [
      'without ffprobe, over budget: references decoded first',
      { directRead: false, ffprobePath: null, bufferBytes: 1 },
      'sequential',
    ],
  ] as const)(
    '%s: the same choices and pixels',
    async (_, variant, frameSource) => {
      const result = await extractKeyframes(goldenOptions(videoPath, { ffprobePath, ...variant }));
      expect(result.stats.frameSource).toBe(frameSource);
      expect(result.stats.isSeeking).toBe(frameSource !== 'sequential');
      if ('bufferBytes' in variant) {
        // every backward search with probes to buffer had its reference decoded beforehand (13
        // searches; step 2 has hi = lo, its only probe is the reference itself)
        expect(result.stats.referenceFrames).toBe(12);
      }
      const all = [...result.steps, result.terminate!];
      const expected = [...extraction.steps, extraction.terminate!];
      expect(all.map((k) => [k.timeS, k.frame, k.differingProbe, k.diagnostics])).toEqual(
        expected.map((k) => [k.timeS, k.frame, k.differingProbe, k.diagnostics]),
      );
      all.forEach((keyframe, i) => {
        expect(keyframe.rgb!.equals(expected[i]!.rgb!)).toBe(true);
      });
    },
    180_000,
  );

  it.each(REFERENCE_FRAMES)(
    'frame %i equals the single-frame reference decode pixel for pixel',
    async (frame) => {
      const chosen = [...extraction.steps, extraction.terminate!].find((k) => k.frame === frame);
      expect(chosen?.rgb).toBeTruthy();
      const reference = await referenceFrame(frame);
      expect(chosen!.rgb!.equals(reference)).toBe(true);
    },
    120_000,
  );

  it('an unreadable video becomes KEYFRAME_VIDEO_UNREADABLE on every step', async () => {
    const corrupt = path.join(tempDir, 'corrupt.mp4');
    await writeFile(corrupt, notAVideo(32 * 1024));
    const result = await extractKeyframes(goldenOptions(corrupt));
    const all = [...result.steps, result.terminate!];
    expect(all).toHaveLength(15);
    for (const keyframe of all) {
      expect(keyframe).toMatchObject({ timeS: null, frame: null, rgb: null });
      expect(keyframe.diagnostics.map((d) => d.code)).toEqual(['KEYFRAME_VIDEO_UNREADABLE']);
    }
  });

  it('a video shorter than claimed: missing frames become diagnostics, nothing is dropped', async () => {
    // the first 1300 packets of the fixture (stream copy, same pixels), but claim the full
    // frame count so that late references, probes and chosen frames cannot be read
    const short = path.join(tempDir, 'short.mp4');
    const cut = await runCommand(
      ffmpegPath,
      [
        ...['-v', 'error', '-i', videoPath, '-map', '0:v:0', '-frames:v', '1300'],
        ...['-c:v', 'copy', '-y', short],
      ],
      { timeoutMs: 120_000 },
    );
    expect(cut.code).toBe(0);
    const result = await extractKeyframes(goldenOptions(short));
    // steps 0–9 lie inside the first 1300 frames and keep their golden choice
    expect(result.steps.slice(0, 10).map((s) => s.frame)).toEqual(
      GOLDEN_ROWS.slice(0, 10).map((row) => row.frame),
    );
    expect(result.steps.slice(0, 10).every((s) => s.diagnostics.length === 0)).toBe(true);
    // step 10 (reference 1384) and later: reference not decoded → lo, frame missing
    for (const keyframe of [...result.steps.slice(10), result.terminate!]) {
      expect(keyframe.diagnostics.map((d) => d.code)).toEqual([
        'KEYFRAME_REF_OUT_OF_RANGE',
        'KEYFRAME_FRAME_MISSING',
      ]);
      expect(keyframe.rgb).toBeNull();
    }
    expect(result.steps[10]!.timeS).toBe((GOLDEN_ROWS[10] as { lo: number }).lo);
  }, 180_000);
});
