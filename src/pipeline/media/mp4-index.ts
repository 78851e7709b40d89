// The sample index of a progressive MP4's H.264 video track, read from its moov box (no
// ffprobe, no decoding): where every frame's bytes are, in decode order, which frame index n
// (presentation order, spec: keyframes.md §2) each one is, and which are keyframes. It lets the
// keyframe extractor hand ffmpeg exactly the packets it needs (see mkv-stream.ts).
//
// Only what ffmpeg would decode the same way is accepted; anything else gives null (callers then
// use the ffprobe timeline and input seeks): fragmented files, several video tracks or sample
// descriptions, codecs other than avc1, full-range colour tags, edit lists that cut frames, and
// open GOPs (a frame decoded after a keyframe but shown before it).
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** Largest moov box we read (bytes); the index of a multi-hour recording is a few MB. */
const MAX_MOOV_BYTES = 256 * 1024 * 1024;

/** The video track's samples and the data a decoder needs besides them. */
export type Mp4VideoIndex = {
  /** The avcC box payload (AVCDecoderConfigurationRecord): the decoder's extradata. */
  avcConfig: Buffer;
  /** Bytes of each NAL unit length prefix in the samples (1, 2 or 4). */
  nalLengthSize: number;
  /** Coded width and height from the sample description, px. */
  width: number;
  height: number;
  /** Media timescale (ticks per second). */
  timescale: number;
  /** File offset of each sample, decode order. */
  offsets: number[];
  /** Byte size of each sample, decode order. */
  sizes: number[];
  /** Frame index n (rank of its composition time) of each sample, decode order. */
  frameOfSample: number[];
  /** Sample (decode position) of each frame index n. */
  sampleOfFrame: number[];
  /** Whether each sample is a sync sample (keyframe), decode order. */
  isSync: boolean[];
  /** Frame indices n of the keyframes, ascending (starts with 0). */
  keyframes: number[];
};

/** A box found while walking: its type and where its payload lies in the buffer. */
type Box = { type: string; start: number; end: number };

function* boxes(buffer: Buffer, start: number, end: number): Generator<Box> {
  let offset = start;
  while (offset + 8 <= end) {
    let size = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    let header = 8;
    if (size === 1) {
      if (offset + 16 > end) {
        return;
      }
      size = Number(buffer.readBigUInt64BE(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = end - offset;
    }
    if (size < header || offset + size > end) {
      throw new Mp4FormatError(`box '${type}' at ${offset} overruns its parent`);
    }
    yield { type, start: offset + header, end: offset + size };
    offset += size;
  }
}

function child(buffer: Buffer, parent: Box, type: string): Box | undefined {
  for (const box of boxes(buffer, parent.start, parent.end)) {
    if (box.type === type) {
      return box;
    }
  }
  return undefined;
}

function children(buffer: Buffer, parent: Box, type: string): Box[] {
  return [...boxes(buffer, parent.start, parent.end)].filter((box) => box.type === type);
}

/** A structural problem of the file (reported as a reason, never thrown to callers). */
class Mp4FormatError extends Error {}

/** Why {@link readMp4VideoIndex} gave no index (for debug logs). */
export type Mp4IndexResult =
  { index: Mp4VideoIndex; reason?: undefined } | { index: null; reason: string };

// Reads the index of `videoPath`'s video track; { index: null, reason } when the file is not a
// progressive MP4 with one plain H.264 track (see the header).
export async function readMp4VideoIndex(videoPath: string): Promise<Mp4IndexResult> {
  let file: FileHandle;
  try {
    file = await open(videoPath, 'r');
  } catch (error) {
    return { index: null, reason: `cannot open: ${(error as Error).message}` };
  }
  try {
    const moov = await readMoov(file);
    if (typeof moov === 'string') {
      return { index: null, reason: moov };
    }
    const parsed = parseMoov(moov);
    if (typeof parsed === 'string') {
      return { index: null, reason: parsed };
    }
    return { index: parsed };
  } catch (error) {
    return { index: null, reason: (error as Error).message };
  } finally {
    await file.close();
  }
}

/** The moov payload, or why there is none to use. */
async function readMoov(file: FileHandle): Promise<Buffer | string> {
  const { size: fileSize } = await file.stat();
  const header = Buffer.alloc(16);
  let offset = 0;
  let moov: { start: number; end: number } | null = null;
  while (offset + 8 <= fileSize) {
    const { bytesRead } = await file.read(header, 0, 16, offset);
    if (bytesRead < 8) {
      break;
    }
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (size === 1) {
      size = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) {
      size = fileSize - offset;
    }
    if (size < headerSize) {
      return `not an MP4 (box size ${size} at ${offset})`;
    }
    if (type === 'moof') {
      return 'fragmented MP4';
    }
    if (type === 'moov') {
      moov = { start: offset + headerSize, end: Math.min(offset + size, fileSize) };
    }
    offset += size;
  }
  if (moov === null) {
    return 'no moov box';
  }
  const length = moov.end - moov.start;
  if (length > MAX_MOOV_BYTES) {
    return `moov box too large (${length} bytes)`;
  }
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, moov.start);
  return bytesRead === length ? buffer : 'truncated moov box';
}

function fullBoxVersion(buffer: Buffer, box: Box): number {
  return buffer.readUInt8(box.start);
}

// Parses the moov payload into the video track's index, or says why it cannot be used.
export function parseMoov(buffer: Buffer): Mp4VideoIndex | string {
  const root: Box = { type: 'moov', start: 0, end: buffer.length };
  if (child(buffer, root, 'mvex')) {
    return 'fragmented MP4';
  }
  const mvhd = child(buffer, root, 'mvhd');
  if (!mvhd) {
    return 'no mvhd box';
  }
  const movieTimescale = buffer.readUInt32BE(
    mvhd.start + (fullBoxVersion(buffer, mvhd) === 1 ? 20 : 12),
  );
  const videoTracks = children(buffer, root, 'trak').filter((trak) => {
    const mdia = child(buffer, trak, 'mdia');
    const hdlr = mdia && child(buffer, mdia, 'hdlr');
    return (
      hdlr !== undefined && buffer.toString('latin1', hdlr.start + 8, hdlr.start + 12) === 'vide'
    );
  });
  if (videoTracks.length !== 1) {
    return `${videoTracks.length} video tracks`;
  }
  const trak = videoTracks[0] as Box;
  const mdia = child(buffer, trak, 'mdia') as Box;
  const mdhd = child(buffer, mdia, 'mdhd');
  const stbl = ((): Box | undefined => {
    const minf = child(buffer, mdia, 'minf');
    return minf && child(buffer, minf, 'stbl');
  })();
  if (!mdhd || !stbl) {
    return 'video track without mdhd/stbl';
  }
  const timescale = buffer.readUInt32BE(
    mdhd.start + (fullBoxVersion(buffer, mdhd) === 1 ? 20 : 12),
  );

  // sample description: exactly one avc1 entry with its avcC
  const stsd = child(buffer, stbl, 'stsd');
  if (!stsd) {
    return 'no stsd box';
  }
  const entryCount = buffer.readUInt32BE(stsd.start + 4);
  const entries = [...boxes(buffer, stsd.start + 8, stsd.end)];
  if (entryCount !== 1 || entries.length !== 1) {
    return `${entryCount} sample descriptions`;
  }
  const avc1 = entries[0] as Box;
  if (avc1.type !== 'avc1') {
    return `codec '${avc1.type}' (only avc1 is read directly)`;
  }
  const width = buffer.readUInt16BE(avc1.start + 24);
  const height = buffer.readUInt16BE(avc1.start + 26);
  const entryChildren: Box = { type: 'avc1', start: avc1.start + 78, end: avc1.end };
  const avcC = child(buffer, entryChildren, 'avcC');
  if (!avcC || avcC.end - avcC.start < 7) {
    return 'no avcC box';
  }
  const avcConfig = Buffer.from(buffer.subarray(avcC.start, avcC.end));
  const nalLengthSize = (avcConfig.readUInt8(4) & 0x03) + 1;
  if (nalLengthSize === 3) {
    return 'NAL length size 3';
  }
  const colr = child(buffer, entryChildren, 'colr');
  if (colr && buffer.toString('latin1', colr.start, colr.start + 4) === 'nclx') {
    if (colr.end - colr.start >= 11 && (buffer.readUInt8(colr.start + 10) & 0x80) !== 0) {
      return 'full-range colour tag';
    }
  }

  // decode times
  const stts = child(buffer, stbl, 'stts');
  const stsz = child(buffer, stbl, 'stsz');
  const stsc = child(buffer, stbl, 'stsc');
  const stco = child(buffer, stbl, 'stco') ?? child(buffer, stbl, 'co64');
  if (!stts || !stsz || !stsc || !stco) {
    return 'incomplete sample table';
  }
  const sampleCount = buffer.readUInt32BE(stsz.start + 8);
  if (sampleCount === 0) {
    return 'no video samples';
  }
  const dts = new Array<number>(sampleCount);
  {
    let sample = 0;
    let time = 0;
    const count = buffer.readUInt32BE(stts.start + 4);
    for (let entry = 0; entry < count; entry += 1) {
      const at = stts.start + 8 + entry * 8;
      const runLength = buffer.readUInt32BE(at);
      const delta = buffer.readUInt32BE(at + 4);
      for (let i = 0; i < runLength && sample < sampleCount; i += 1) {
        dts[sample] = time;
        sample += 1;
        time += delta;
      }
    }
    if (sample !== sampleCount) {
      return `stts covers ${sample} of ${sampleCount} samples`;
    }
  }
  // composition times
  const cts = dts.slice();
  const ctts = child(buffer, stbl, 'ctts');
  if (ctts) {
    const isSigned = fullBoxVersion(buffer, ctts) === 1;
    const count = buffer.readUInt32BE(ctts.start + 4);
    let sample = 0;
    for (let entry = 0; entry < count; entry += 1) {
      const at = ctts.start + 8 + entry * 8;
      const runLength = buffer.readUInt32BE(at);
      const offset = isSigned ? buffer.readInt32BE(at + 4) : buffer.readUInt32BE(at + 4);
      for (let i = 0; i < runLength && sample < sampleCount; i += 1) {
        cts[sample] = (cts[sample] as number) + offset;
        sample += 1;
      }
    }
  }
  // sizes
  const sizes = new Array<number>(sampleCount);
  const fixedSize = buffer.readUInt32BE(stsz.start + 4);
  for (let sample = 0; sample < sampleCount; sample += 1) {
    sizes[sample] = fixedSize !== 0 ? fixedSize : buffer.readUInt32BE(stsz.start + 12 + sample * 4);
  }
  // offsets: chunks (stco/co64) split into samples by stsc
  const chunkCount = buffer.readUInt32BE(stco.start + 4);
  const chunkOffset = (chunk: number): number =>
    stco.type === 'co64'
      ? Number(buffer.readBigUInt64BE(stco.start + 8 + chunk * 8))
      : buffer.readUInt32BE(stco.start + 8 + chunk * 4);
  const offsets = new Array<number>(sampleCount);
  {
    const stscCount = buffer.readUInt32BE(stsc.start + 4);
    let sample = 0;
    for (let entry = 0; entry < stscCount; entry += 1) {
      const at = stsc.start + 8 + entry * 12;
      const firstChunk = buffer.readUInt32BE(at) - 1;
      const perChunk = buffer.readUInt32BE(at + 4);
      const description = buffer.readUInt32BE(at + 8);
      if (description !== 1) {
        return `sample description ${description} in stsc`;
      }
      const nextFirst = entry + 1 < stscCount ? buffer.readUInt32BE(at + 12) - 1 : chunkCount;
      for (let chunk = firstChunk; chunk < nextFirst && sample < sampleCount; chunk += 1) {
        let position = chunkOffset(chunk);
        for (let i = 0; i < perChunk && sample < sampleCount; i += 1) {
          offsets[sample] = position;
          position += sizes[sample] as number;
          sample += 1;
        }
      }
    }
    if (sample !== sampleCount) {
      return `stsc/stco cover ${sample} of ${sampleCount} samples`;
    }
  }
  // keyframes
  const isSync = new Array<boolean>(sampleCount).fill(true);
  const stss = child(buffer, stbl, 'stss');
  if (stss) {
    isSync.fill(false);
    const count = buffer.readUInt32BE(stss.start + 4);
    for (let entry = 0; entry < count; entry += 1) {
      const sample = buffer.readUInt32BE(stss.start + 8 + entry * 4) - 1;
      if (sample >= 0 && sample < sampleCount) {
        isSync[sample] = true;
      }
    }
  }

  // presentation order: frame index n is the rank of the composition time
  const sampleOfFrame = Array.from({ length: sampleCount }, (_, sample) => sample).sort(
    (a, b) => (cts[a] as number) - (cts[b] as number),
  );
  const frameOfSample = new Array<number>(sampleCount);
  for (const [frame, sample] of sampleOfFrame.entries()) {
    frameOfSample[sample] = frame;
    if (frame > 0 && cts[sample] === cts[sampleOfFrame[frame - 1] as number]) {
      return `two samples share composition time ${cts[sample]}`;
    }
  }

  // an edit list must not cut frames (ffmpeg would then number the frames differently)
  const edts = child(buffer, trak, 'edts');
  const elst = edts && child(buffer, edts, 'elst');
  if (elst) {
    const version = fullBoxVersion(buffer, elst);
    const count = buffer.readUInt32BE(elst.start + 4);
    const entrySize = version === 1 ? 20 : 12;
    const edits: { duration: number; mediaTime: number }[] = [];
    for (let entry = 0; entry < count; entry += 1) {
      const at = elst.start + 8 + entry * entrySize;
      const duration = version === 1 ? Number(buffer.readBigUInt64BE(at)) : buffer.readUInt32BE(at);
      const mediaTime =
        version === 1 ? Number(buffer.readBigInt64BE(at + 8)) : buffer.readInt32BE(at + 4);
      edits.push({ duration, mediaTime });
    }
    const real = edits.filter((edit) => edit.mediaTime !== -1);
    if (real.length > 1) {
      return `edit list with ${real.length} edits`;
    }
    const edit = real[0];
    if (edit) {
      const firstCts = cts[sampleOfFrame[0] as number] as number;
      const lastCts = cts[sampleOfFrame[sampleCount - 1] as number] as number;
      if (edit.mediaTime > firstCts) {
        return 'edit list cuts the first frames';
      }
      // a zero duration means "the whole media" (fragmented writers use it)
      const editEnd = edit.mediaTime + (edit.duration * timescale) / movieTimescale;
      if (edit.duration !== 0 && editEnd <= lastCts) {
        return 'edit list cuts the last frames';
      }
    }
  }

  // closed GOPs: nothing decoded after a keyframe is shown before it
  const keyframes: number[] = [];
  let minFrameAfter = Number.POSITIVE_INFINITY;
  for (let sample = sampleCount - 1; sample >= 0; sample -= 1) {
    const frame = frameOfSample[sample] as number;
    if (isSync[sample]) {
      if (minFrameAfter < frame) {
        return `open GOP at frame ${frame}`;
      }
      keyframes.push(frame);
    }
    minFrameAfter = Math.min(minFrameAfter, frame);
  }
  keyframes.reverse();
  if (keyframes[0] !== 0 || !isSync[0]) {
    return 'the first frame is not a keyframe';
  }
  return {
    avcConfig,
    nalLengthSize,
    width,
    height,
    timescale,
    offsets,
    sizes,
    frameOfSample,
    sampleOfFrame,
    isSync,
    keyframes,
  };
}

/** Header byte of the first slice NAL unit in `sample` (AVCC layout), or null if none. */
function firstSliceHeader(sample: Buffer, nalLengthSize: number): number | null {
  let offset = 0;
  while (offset + nalLengthSize < sample.length) {
    const length = sample.readUIntBE(offset, nalLengthSize);
    const header = sample.readUInt8(offset + nalLengthSize);
    const type = header & 0x1f;
    if (type === 1 || type === 5) {
      return header;
    }
    offset += nalLengthSize + length;
  }
  return null;
}

/** NAL unit type of the first slice in `sample` (1 non-IDR, 5 IDR), or null if none. */
export function firstSliceType(sample: Buffer, nalLengthSize: number): number | null {
  const header = firstSliceHeader(sample, nalLengthSize);
  return header === null ? null : header & 0x1f;
}

/** False only for a picture no other picture may refer to (slice nal_ref_idc 0); true when
 * unsure (no slice found), so such a sample is always decoded. */
export function isReferencePicture(sample: Buffer, nalLengthSize: number): boolean {
  const header = firstSliceHeader(sample, nalLengthSize);
  return header === null || (header & 0x60) !== 0;
}
