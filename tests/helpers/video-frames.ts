// Frames of an encoded video for the redaction tests: the frame count and rate ffprobe reads,
// one decoded frame as RGB24, and how a box of a redacted frame compares with the original.
import { execFileSync } from 'node:child_process';

/** A rectangle in video pixels. */
export type Box = { x: number; y: number; width: number; height: number };

/** Frame count and rates: `packets` counts H.264 packets (one per frame, no decode of the whole
 * video), `frames` decodes every frame. */
export function probe(
  file: string,
  count: 'packets' | 'frames' = 'packets',
): { frames: number; rate: string } {
  const field = count === 'packets' ? 'nb_read_packets' : 'nb_read_frames';
  const out = execFileSync('ffprobe', [
    ...['-v', 'error', `-count_${count}`, '-select_streams', 'v:0'],
    ...['-show_entries', `stream=${field},r_frame_rate,avg_frame_rate`, '-of', 'json', file],
  ]).toString();
  const s = (JSON.parse(out) as { streams: Record<string, string>[] }).streams[0]!;
  return { frames: Number(s[field]), rate: `${s.r_frame_rate} ${s.avg_frame_rate}` };
}

/** Frame `n` (0-based, in decode order) as packed RGB24; throws when it is not `width`×`height`. */
export function rawFrame(file: string, n: number, width: number, height: number): Buffer {
  const buf = execFileSync(
    'ffmpeg',
    [
      ...['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${n})`, '-frames:v', '1'],
      ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  if (buf.length !== width * height * 3) {
    throw new Error(`${file} frame ${n}: ${buf.length} bytes, not ${width}×${height} RGB`);
  }
  return buf;
}

/** Inside the box: the brightest channel value 3 px or more from its edges (H.264 rings at
 * the edge, carrying the outside in: up to ~70 at crf 18), and pixels equal to the original. */
export function compareVideo(
  redacted: Buffer,
  original: Buffer,
  width: number,
  box: Box,
): { maxInside: number; equalInside: number } {
  let maxInside = 0;
  let equalInside = 0;
  const M = 3;
  for (let y = box.y; y < box.y + box.height; y += 1) {
    for (let x = box.x; x < box.x + box.width; x += 1) {
      const o = (y * width + x) * 3;
      const interior =
        x >= box.x + M && x < box.x + box.width - M && y >= box.y + M && y < box.y + box.height - M;
      if (interior) {
        maxInside = Math.max(maxInside, redacted[o]!, redacted[o + 1]!, redacted[o + 2]!);
      }
      if (
        redacted[o] === original[o] &&
        redacted[o + 1] === original[o + 1] &&
        redacted[o + 2] === original[o + 2]
      ) {
        equalInside += 1;
      }
    }
  }
  return { maxInside, equalInside };
}
