// Benchmark: keyframe extraction on the fixture episode, our extractKeyframes (the needed parts
// of the video piped to two ffmpegs from the MP4's own index) against a
// naive baseline that, like the OpenCUA reference, opens the video again for every frame it reads
// (Ref, each probe, the chosen frame). Two naive flavours: the §3 select recipe per frame (decodes
// from frame 0 every time) and an input seek (-ss, decodes from the previous keyframe, closest to
// the reference's OpenCV seeks). Prints measured times, ratios and whether the results agree.
//   node bin/run-ts.mjs bench/keyframes.ts            (both baselines)
//   BENCH_NAIVE=seek node bin/run-ts.mjs bench/keyframes.ts
import { spawn } from 'node:child_process';
import { readAgentNetFolder } from '../src/pipeline/io/agentnet-read';
import {
  END_MARGIN_S,
  MIN_KEYFRAME_TIME_S,
  PRE_PRESS_MARGIN_S,
  PROBE_STEP_S,
  frameIndexAt,
  grayFramesDiffer,
  rgbToGray,
  usesBackwardSearch,
} from '../src/pipeline/keyframes';
import type { KeyframeStepInput } from '../src/pipeline/keyframes';
import { OPENCV_SCALE_FILTER, decodeFrames } from '../src/pipeline/media/frame-decoder';
import { extractKeyframes } from '../src/pipeline/media/keyframes-extract';
import { probeVideo } from '../src/infra/ffmpeg/probe';
import { resolveFfmpeg } from '../src/infra/ffmpeg/binary';
import { fixturePath } from '../tests/helpers/fixture';

const FIXTURE = fixturePath('agentnet-raw/win10-display-settings');
const NAIVE_MODES = (process.env.BENCH_NAIVE ?? 'seek,select').split(',') as NaiveMode[];

type NaiveMode = 'seek' | 'select';
type Video = {
  path: string;
  ffmpegPath: string;
  vst: number;
  fps: number;
  frameCount: number;
  width: number;
  height: number;
};
type Choice = { timeS: number | null; frame: number | null; rgb: Buffer | null };

/** One ffmpeg process per frame read, as the reference does with a fresh seek per read. */
class NaiveReader {
  processes = 0;
  constructor(
    private readonly video: Video,
    private readonly mode: NaiveMode,
  ) {}

  async read(timeS: number): Promise<Buffer | null> {
    const frame = frameIndexAt(timeS, this.video.fps);
    if (frame < 0 || frame >= this.video.frameCount) {
      return null;
    }
    this.processes += 1;
    return this.mode === 'select' ? await this.readSelect(frame) : await this.readSeek(frame);
  }

  private async readSelect(frame: number): Promise<Buffer | null> {
    let rgb: Buffer | null = null;
    await decodeFrames({
      ffmpeg: { path: this.video.ffmpegPath },
      videoPath: this.video.path,
      frames: [frame],
      width: this.video.width,
      height: this.video.height,
      onFrame: (decoded) => {
        rgb = decoded.rgb;
      },
    });
    return rgb;
  }

  private async readSeek(frame: number): Promise<Buffer | null> {
    // seek to half a frame before frame n: the first frame at or after it is frame n
    const seekS = ((frame - 0.5) / this.video.fps).toFixed(6);
    const args = [
      ...['-v', 'error', '-nostdin', '-ss', frame === 0 ? '0' : seekS, '-i', this.video.path],
      ...['-map', '0:v:0', '-vf', OPENCV_SCALE_FILTER, '-frames:v', '1'],
      ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    ];
    return await new Promise<Buffer | null>((resolve, reject) => {
      const child = spawn(this.video.ffmpegPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.once('error', reject);
      child.once('close', (code) => {
        const data = Buffer.concat(chunks);
        const size = this.video.width * this.video.height * 3;
        resolve(code === 0 && data.length === size ? data : null);
      });
    });
  }
}

/** The reference algorithm (spec §1), reading every frame with a fresh process. */
async function naiveExtract(
  video: Video,
  steps: KeyframeStepInput[],
  mode: NaiveMode,
): Promise<{ choices: Choice[]; processes: number }> {
  const reader = new NaiveReader(video, mode);
  const durationS = video.frameCount / video.fps;
  const clamp = (t: number): number => (t >= durationS ? Math.max(0, durationS - END_MARGIN_S) : t);
  const differs = (a: Buffer, b: Buffer): boolean => grayFramesDiffer(rgbToGray(a), rgbToGray(b));
  const choose = async (timeS: number): Promise<Choice> => ({
    timeS,
    frame: frameIndexAt(timeS, video.fps),
    rgb: await reader.read(timeS),
  });

  const choices: Choice[] = [];
  for (const step of steps) {
    const pressRel = step.pressStartS - video.vst;
    if (step.preMoveStartS === null || !usesBackwardSearch(step.action)) {
      choices.push(
        await choose(clamp(Math.max(MIN_KEYFRAME_TIME_S, pressRel - PRE_PRESS_MARGIN_S))),
      );
      continue;
    }
    const lo = step.preMoveStartS - video.vst;
    const hi = Math.max(lo, pressRel - PRE_PRESS_MARGIN_S);
    const ref = await reader.read(hi);
    let result = lo;
    if (ref === null) {
      choices.push({ timeS: null, frame: null, rgb: null });
      continue;
    }
    for (let t = hi; t >= lo; t -= PROBE_STEP_S) {
      const probe = await reader.read(t);
      if (probe === null) {
        break;
      }
      if (differs(probe, ref)) {
        result = t + PROBE_STEP_S;
        break;
      }
    }
    choices.push(await choose(clamp(result)));
  }

  const lastEnd = steps.at(-1)!.endS;
  let terminate = Math.max(0, durationS - END_MARGIN_S);
  if (durationS + video.vst > lastEnd) {
    const lo = lastEnd - video.vst;
    const hi = Math.max(lo, durationS + video.vst - video.vst);
    terminate = lo;
    const start = lo === hi ? null : await reader.read(lo);
    for (let t = lo; start !== null && t <= hi; t += PROBE_STEP_S) {
      const probe = await reader.read(t);
      if (probe === null) {
        break;
      }
      if (differs(probe, start)) {
        terminate = t + PROBE_STEP_S;
        break;
      }
    }
  }
  choices.push(await choose(terminate));
  return { choices, processes: reader.processes };
}

function sameChoices(a: Choice[], b: Choice[]): boolean {
  return (
    a.length === b.length &&
    a.every((choice, i) => {
      const other = b[i]!;
      const samePixels =
        choice.rgb === null
          ? other.rgb === null
          : other.rgb !== null && choice.rgb.equals(other.rgb);
      return choice.timeS === other.timeS && choice.frame === other.frame && samePixels;
    })
  );
}

const binary = await resolveFfmpeg();
const bundle = await readAgentNetFolder(FIXTURE);
const probe = await probeVideo(bundle.videoPath, binary);
const video: Video = {
  path: bundle.videoPath,
  ffmpegPath: binary.path,
  vst: bundle.metadata.videoStartS,
  fps: probe.fps!,
  frameCount: probe.frameCount!,
  width: probe.width,
  height: probe.height,
};
const steps: KeyframeStepInput[] = bundle.reduced.complete.map((row, i) => {
  const vis = bundle.reduced.vis[i]!;
  return {
    action: row.action as string,
    preMoveStartS: 'pre_move' in row ? (row.pre_move as { start_time: number }).start_time : null,
    pressStartS: vis.start_time as number,
    endS: vis.end_time as number,
  };
});

console.log(
  `keyframes, fixture ${bundle.folderName}: ${steps.length} steps + terminate, ` +
    `${video.frameCount} frames ${video.width}×${video.height} @ ${video.fps} fps, ` +
    `ffmpeg ${binary.version}`,
);

const runOurs = (directRead = true) =>
  extractKeyframes({
    directRead,
    videoPath: video.path,
    ffmpegPath: video.ffmpegPath,
    ffprobePath: binary.ffprobePath,
    videoStartS: video.vst,
    fps: video.fps,
    frameCount: video.frameCount,
    width: video.width,
    height: video.height,
    steps,
  });
// one warm-up run (module loading, JIT, page cache), then the median of RUNS timed runs
let fast = await runOurs();
const RUNS = 3;
const times: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  const start = performance.now();
  fast = await runOurs();
  times.push(performance.now() - start);
}
const fastMs = [...times].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
const fastChoices: Choice[] = [...fast.steps, fast.terminate!].map(({ timeS, frame, rgb }) => ({
  timeS,
  frame,
  rgb,
}));
const { stats } = fast;
console.log(
  `  extractKeyframes:                   ${(fastMs / 1000).toFixed(2)} s median of ${RUNS} ` +
    `(${times.map((ms) => (ms / 1000).toFixed(2)).join(', ')}) ` +
    `(${stats.frameSource}; index/timeline ${stats.timelineMs.toFixed(0)} ms; ` +
    `${stats.segments} segments spanning ${stats.spannedFrames}/${video.frameCount} frames, ` +
    `${stats.skippedFrames} unwanted non-reference frames not sent; ` +
    `${stats.decodedFrames}/${stats.requestedFrames} requested frames delivered; ` +
    `${stats.referenceFrames} references prefetched; ${stats.comparisons} comparisons)`,
);

// our previous design, kept as the fallback for videos the pipe cannot serve: ffprobe timeline,
// one seeking (mostly reversed) ffmpeg per part
const seekTimes: number[] = [];
for (let run = 0; run < RUNS; run += 1) {
  const start = performance.now();
  await runOurs(false);
  seekTimes.push(performance.now() - start);
}
const seekMs = [...seekTimes].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
console.log(
  `  extractKeyframes, seeking fallback:  ${(seekMs / 1000).toFixed(2)} s median of ${RUNS} ` +
    `(${seekTimes.map((ms) => (ms / 1000).toFixed(2)).join(', ')}); ` +
    `ratio seeking/piped ${(seekMs / fastMs).toFixed(2)}×`,
);

for (const mode of NAIVE_MODES) {
  const start = performance.now();
  const naive = await naiveExtract(video, steps, mode);
  const naiveMs = performance.now() - start;
  console.log(
    `  naive per-read ffmpeg (${mode.padEnd(6)}):   ${(naiveMs / 1000).toFixed(2)} s ` +
      `(${naive.processes} ffmpeg processes); ratio naive/ours ${(naiveMs / fastMs).toFixed(1)}×; ` +
      `same times, frames and pixels: ${sameChoices(naive.choices, fastChoices) ? 'yes' : 'NO'}`,
  );
}
