// Cheap MP4 sanity check: the file is non-empty and an `ftyp` box opens it. Deeper probing
// (streams, duration, decodability) belongs to pipeline/media.
import { open } from 'node:fs/promises';

/** Bytes read from the start of a video for the header check. */
export const MP4_HEADER_PROBE_BYTES = 4096;

// Boxes some muxers put before `ftyp`; anything else first means "not an MP4".
const SKIPPABLE_LEADING_BOXES = new Set(['free', 'skip', 'wide']);

/** Reads the first {@link MP4_HEADER_PROBE_BYTES} bytes of a file. */
export async function readFileHead(filePath: string): Promise<Uint8Array> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = new Uint8Array(MP4_HEADER_PROBE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Returns null when `head` starts like an MP4 (ISO BMFF) file, else the problem in words. */
export function mp4HeaderProblem(head: Uint8Array): string | null {
  if (head.length === 0) {
    return 'video file is empty (0 bytes)';
  }
  let offset = 0;
  while (offset + 8 <= head.length) {
    const type = String.fromCharCode(...head.subarray(offset + 4, offset + 8));
    if (type === 'ftyp') {
      return null;
    }
    // Big-endian u32 box size; multiplication keeps values >= 2^31 positive.
    const size =
      (head[offset] ?? 0) * 0x1000000 +
      (head[offset + 1] ?? 0) * 0x10000 +
      (head[offset + 2] ?? 0) * 0x100 +
      (head[offset + 3] ?? 0);
    if (!SKIPPABLE_LEADING_BOXES.has(type) || size < 8) {
      break;
    }
    offset += size;
  }
  return 'not an MP4 file (no "ftyp" box at the start)';
}
