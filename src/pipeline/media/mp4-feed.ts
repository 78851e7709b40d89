// Piping chosen parts of an MP4's video track into one ffmpeg (docs/keyframes.md §6): each part
// ("run") starts at an IDR keyframe and covers the frames up to a last one; its samples go out in
// decode order as a Matroska stream stamped with frame indices (mkv-stream.ts). One ffmpeg can so
// decode many separate parts of the video without a seek, a restart or a second process. Frames
// nothing refers to (non-reference pictures, e.g. most B-frames) are sent only when wanted:
// decoding the others never needs them, so their pixels stay exactly the same.
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { AppError } from '../../shared/errors';
import type { FrameStream } from './frame-decoder';
import { mkvClusters, mkvHeader } from './mkv-stream';
import type { MkvBlock } from './mkv-stream';
import { keyframeAtOrBefore } from './frame-timeline';
import { firstSliceType, isReferencePicture } from './mp4-index';
import type { Mp4VideoIndex } from './mp4-index';

/** Bytes read from the file at once at most (samples and the audio between them). */
const MAX_READ_BYTES = 8 * 1024 * 1024;
/** Samples per Matroska cluster (one write each). */
const CLUSTER_SAMPLES = 32;

/** A contiguous part of the video to decode: frames firstFrame…lastFrame (frame indices). */
export type SampleRun = {
  /** A keyframe (frame index). */
  firstFrame: number;
  /** Last frame wanted. */
  lastFrame: number;
  /** First sample (decode position): the keyframe's. */
  firstSample: number;
  /** Last sample needed to output every frame up to lastFrame. */
  lastSample: number;
};

// The run decoding frames `first`…`last` (from the keyframe at or before `first`).
export function sampleRunFor(index: Mp4VideoIndex, first: number, last: number): SampleRun {
  const firstFrame = keyframeAtOrBefore(index, first);
  let lastSample = index.sampleOfFrame[firstFrame] as number;
  for (let frame = firstFrame; frame <= last; frame += 1) {
    lastSample = Math.max(lastSample, index.sampleOfFrame[frame] as number);
  }
  return {
    firstFrame,
    lastFrame: last,
    firstSample: index.sampleOfFrame[firstFrame] as number,
    lastSample,
  };
}

/** Reads sample bytes in batches (one read per stretch of nearby samples). */
async function readSamples(
  file: FileHandle,
  index: Mp4VideoIndex,
  first: number,
  last: number,
): Promise<Buffer[]> {
  const samples: Buffer[] = [];
  let sample = first;
  while (sample <= last) {
    const start = index.offsets[sample] as number;
    let end = start + (index.sizes[sample] as number);
    let batchEnd = sample;
    while (batchEnd + 1 <= last) {
      const nextStart = index.offsets[batchEnd + 1] as number;
      const nextEnd = nextStart + (index.sizes[batchEnd + 1] as number);
      if (nextStart < start || nextEnd - start > MAX_READ_BYTES) {
        break;
      }
      end = Math.max(end, nextEnd);
      batchEnd += 1;
    }
    const buffer = Buffer.allocUnsafe(end - start);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
    if (bytesRead < buffer.length) {
      throw new AppError(
        'FFMPEG_FAILED',
        `the video ended inside frame data (sample ${sample}: ${bytesRead} of ${buffer.length} ` +
          'bytes); the file is truncated, probe it again',
        { sample },
      );
    }
    for (let s = sample; s <= batchEnd; s += 1) {
      const offset = (index.offsets[s] as number) - start;
      samples.push(buffer.subarray(offset, offset + (index.sizes[s] as number)));
    }
    sample = batchEnd + 1;
  }
  return samples;
}

// True when every run starts with an IDR picture (a sync sample that is a non-IDR I picture
// would depend on decoder state ffmpeg's own seek handles differently).
export async function runsStartWithIdr(
  videoPath: string,
  index: Mp4VideoIndex,
  keyframes: Iterable<number>,
): Promise<boolean> {
  const file = await open(videoPath, 'r');
  try {
    for (const keyframe of keyframes) {
      const sample = index.sampleOfFrame[keyframe] as number;
      const [data] = await readSamples(file, index, sample, sample);
      if (data === undefined || firstSliceType(data, index.nalLengthSize) !== 5) {
        return false;
      }
    }
    return true;
  } finally {
    await file.close();
  }
}

async function write(stdin: Writable, chunk: Buffer, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) {
    return false;
  }
  if (!stdin.write(chunk)) {
    try {
      await once(stdin, 'drain', { signal });
    } catch {
      return false; // the decode ended
    }
  }
  return !signal.aborted;
}

/** A stream of runs that counts the samples it left out. */
export type RunStream = FrameStream & {
  /** Non-reference samples not sent because their frame is not wanted. */
  readonly skippedSamples: number;
};

// The stream of `runs` (in the given order) for a FrameDecoder; `isWanted` tells the frames that
// will be selected (the others are sent only when later frames need them as references).
export function streamOfRuns(
  videoPath: string,
  index: Mp4VideoIndex,
  runs: readonly SampleRun[],
  isWanted: (frame: number) => boolean,
): RunStream {
  let skippedSamples = 0;
  return {
    get skippedSamples() {
      return skippedSamples;
    },
    feed: async (stdin, signal) => {
      const file = await open(videoPath, 'r');
      try {
        if (!(await write(stdin, mkvHeader(index), signal))) {
          return;
        }
        for (const run of runs) {
          for (let first = run.firstSample; first <= run.lastSample; first += CLUSTER_SAMPLES) {
            const last = Math.min(run.lastSample, first + CLUSTER_SAMPLES - 1);
            const data = await readSamples(file, index, first, last);
            const blocks: MkvBlock[] = [];
            for (const [i, bytes] of data.entries()) {
              const frame = index.frameOfSample[first + i] as number;
              if (!isWanted(frame) && !isReferencePicture(bytes, index.nalLengthSize)) {
                skippedSamples += 1;
                continue;
              }
              blocks.push({
                timestamp: frame,
                isKey: index.isSync[first + i] as boolean,
                data: bytes,
              });
            }
            for (const cluster of mkvClusters(blocks)) {
              if (!(await write(stdin, cluster, signal))) {
                return;
              }
            }
          }
        }
        stdin.end();
      } finally {
        await file.close();
      }
    },
  };
}
