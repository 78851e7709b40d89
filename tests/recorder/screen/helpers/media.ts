// Independent checks of recorded files with the real ffprobe/ffmpeg (not the code under test).
import { run } from './xvfb';

/** ffprobe's view of a file's first video stream (frames counted by decoding). */
export type StreamFacts = {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  rFrameRate: string;
  avgFrameRate: string;
  /** Frames decoded by `-count_frames`. */
  decodedFrames: number;
  /** Stream duration in s. */
  durationSec: number;
};

// ffprobe -count_frames on the first video stream; throws with ffprobe's stderr when unreadable.
export async function probeStream(file: string): Promise<StreamFacts> {
  const result = await run('ffprobe', [
    '-v',
    'error',
    '-count_frames',
    '-select_streams',
    'v:0',
    '-show_entries',
    'stream=codec_name,pix_fmt,width,height,r_frame_rate,avg_frame_rate,nb_read_frames,duration',
    '-of',
    'json',
    file,
  ]);
  if (result.code !== 0) {
    throw new Error(`ffprobe failed on ${file}: ${result.stderr}`);
  }
  const stream = JSON.parse(result.stdout).streams[0];
  return {
    codec: stream.codec_name,
    pixFmt: stream.pix_fmt,
    width: stream.width,
    height: stream.height,
    rFrameRate: stream.r_frame_rate,
    avgFrameRate: stream.avg_frame_rate,
    decodedFrames: Number(stream.nb_read_frames),
    durationSec: Number(stream.duration),
  };
}

// Presentation times (s) of the first video stream's packets, in order.
export async function packetTimes(file: string): Promise<number[]> {
  const result = await run('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=pts_time',
    '-of',
    'csv=p=0',
    file,
  ]);
  if (result.code !== 0) {
    throw new Error(`ffprobe failed on ${file}: ${result.stderr}`);
  }
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number)
    .sort((a, b) => a - b);
}

// Mean gray level (0–255) of every decoded frame, one entry per frame in presentation order.
export async function frameBrightness(file: string): Promise<number[]> {
  const cells = 16 * 10;
  const result = await run('ffmpeg', [
    '-v',
    'error',
    '-i',
    file,
    // one output frame per decoded frame, no rate conversion
    '-fps_mode',
    'passthrough',
    '-vf',
    'scale=16:10',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'gray',
    '-',
  ]);
  if (result.code !== 0) {
    throw new Error(`decoding ${file} failed: ${result.stderr}`);
  }
  const bytes = result.stdoutBytes;
  const means: number[] = [];
  for (let offset = 0; offset + cells <= bytes.length; offset += cells) {
    let sum = 0;
    for (let i = 0; i < cells; i += 1) {
      sum += bytes[offset + i] ?? 0;
    }
    means.push(sum / cells);
  }
  return means;
}

// The top-level MP4 box types in file order (e.g. ftyp, moov, mdat).
export function topLevelBoxes(bytes: Buffer): string[] {
  const boxes: string[] = [];
  let offset = 0;
  while (offset + 8 <= bytes.length) {
    let size = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    if (size === 1 && offset + 16 <= bytes.length) {
      size = Number(bytes.readBigUInt64BE(offset + 8));
    } else if (size === 0) {
      size = bytes.length - offset;
    }
    boxes.push(type);
    if (size < 8) {
      break;
    }
    offset += size;
  }
  return boxes;
}
