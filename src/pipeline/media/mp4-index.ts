// The sample index of a progressive MP4's H.264 video track, read from its moov box (no
// ffprobe, no decoding): where every frame's bytes are, in decode order, which frame index n
// (presentation order, docs/keyframes.md §2) each one is, and which are keyframes. It lets the
// keyframe extractor hand ffmpeg exactly the packets it needs (see mkv-stream.ts).
//
// Progressive files (sample tables in moov) and fragmented ones (our recorder's crash-safe
// output: an empty moov, then moof boxes with track runs) are both read. Only what ffmpeg would
// decode the same way is accepted; anything else gives null (callers then use the ffprobe timeline
// and input seeks): several video tracks or sample descriptions, codecs other than avc1,
// full-range colour tags, edit lists that cut frames, truncated fragments, and open GOPs (a frame
// decoded after a keyframe but shown before it).
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/** Largest moov or moof box we read (bytes); the index of a multi-hour recording is a few MB. */
const MAX_MOOV_BYTES = 256 * 1024 * 1024;

/** A moof box's payload and the file offset of the box itself (the base of its data offsets). */
type Mp4Fragment = { offset: number; payload: Buffer };

/** The video track's samples and the data a decoder needs besides them. */
export type Mp4VideoIndex = {
  /** The avcC box payload (AVCDecoderConfigurationRecord): the decoder's extradata. */
  avcConfig: Buffer;
  /** Bytes of each NAL unit length prefix in the samples (1, 2 or 4). */
  nalLengthSize: number;
  /** Coded width and height from the sample description, px. */
  width: number;
  height: number;
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
    const top = await readTopLevel(file);
    if (typeof top === 'string') {
      return { index: null, reason: top };
    }
    const parsed = parseMoov(top.moov, top.fragments, top.fileSize);
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

/** Bytes read at once while walking the top-level boxes (a recorder fragment is ~30–50 KB). */
const WALK_READ_BYTES = 512 * 1024;

/** Positional reads through a read-ahead window (box headers and moofs lie close together). */
class WindowReader {
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly file: FileHandle,
    private readonly fileSize: number,
  ) {}

  /** `length` bytes at `offset` (fewer at the end of the file); a view, valid until the next call. */
  async read(offset: number, length: number): Promise<Buffer> {
    const end = Math.min(offset + length, this.fileSize);
    if (offset < this.windowStart || end > this.windowStart + this.window.length) {
      const size = Math.max(end - offset, Math.min(WALK_READ_BYTES, this.fileSize - offset));
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await this.file.read(buffer, 0, size, offset);
      this.window = buffer.subarray(0, bytesRead);
      this.windowStart = offset;
    }
    const from = offset - this.windowStart;
    return this.window.subarray(from, Math.min(from + (end - offset), this.window.length));
  }
}

/** The moov payload and the moof boxes, or why there is nothing to use. */
async function readTopLevel(
  file: FileHandle,
): Promise<{ moov: Buffer; fragments: Mp4Fragment[]; fileSize: number } | string> {
  const { size: fileSize } = await file.stat();
  const reader = new WindowReader(file, fileSize);
  let offset = 0;
  let moov: { start: number; end: number } | null = null;
  const fragments: Mp4Fragment[] = [];
  while (offset + 8 <= fileSize) {
    const header = await reader.read(offset, 16);
    if (header.length < 8) {
      break;
    }
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let headerSize = 8;
    if (size === 1) {
      if (header.length < 16) {
        break;
      }
      size = Number(header.readBigUInt64BE(8));
      headerSize = 16;
    } else if (size === 0) {
      size = fileSize - offset;
    }
    if (size < headerSize) {
      return `not an MP4 (box size ${size} at ${offset})`;
    }
    if (type === 'moof') {
      const length = Math.min(size, fileSize - offset) - headerSize;
      if (length > MAX_MOOV_BYTES) {
        return `moof box too large (${length} bytes)`;
      }
      const payload = Buffer.from(await reader.read(offset + headerSize, Math.max(0, length)));
      if (payload.length < length || offset + size > fileSize) {
        return 'truncated fragment';
      }
      fragments.push({ offset, payload });
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
  return bytesRead === length ? { moov: buffer, fragments, fileSize } : 'truncated moov box';
}

function fullBoxVersion(buffer: Buffer, box: Box): number {
  return buffer.readUInt8(box.start);
}

// Parses the moov payload (and, for a fragmented file, its moof boxes) into the video track's
// index, or says why it cannot be used.
function parseMoov(
  buffer: Buffer,
  fragments: readonly Mp4Fragment[] = [],
  fileSize = Number.POSITIVE_INFINITY,
): Mp4VideoIndex | string {
  const root: Box = { type: 'moov', start: 0, end: buffer.length };
  const mvex = child(buffer, root, 'mvex');
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

  const samples = mvex
    ? fragmentSamples(buffer, trak, mvex, fragments, fileSize)
    : stblSamples(buffer, stbl);
  if (typeof samples === 'string') {
    return samples;
  }
  const { dts, cts, sizes, offsets, isSync } = samples;
  const sampleCount = dts.length;
  if (sampleCount === 0) {
    return 'no video samples';
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

/** Per-sample times, places and sync flags, decode order. */
type Samples = {
  dts: number[];
  cts: number[];
  sizes: number[];
  offsets: number[];
  isSync: boolean[];
};

// The samples of a progressive file's sample table (stts, ctts, stsz, stsc, stco/co64, stss).
function stblSamples(buffer: Buffer, stbl: Box): Samples | string {
  // decode times
  const stts = child(buffer, stbl, 'stts');
  const stsz = child(buffer, stbl, 'stsz');
  const stsc = child(buffer, stbl, 'stsc');
  const stco = child(buffer, stbl, 'stco') ?? child(buffer, stbl, 'co64');
  if (!stts || !stsz || !stsc || !stco) {
    return 'incomplete sample table';
  }
  const sampleCount = buffer.readUInt32BE(stsz.start + 8);
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

  return { dts, cts, sizes, offsets, isSync };
}

// The samples of a fragmented file: every track run of the video track's fragments (tfhd, tfdt,
// trun), with the trex defaults; offsets relative to the moof (default-base-is-moof, as our
// recorder writes) or to an explicit base offset.
function fragmentSamples(
  buffer: Buffer,
  trak: Box,
  mvex: Box,
  fragments: readonly Mp4Fragment[],
  fileSize: number,
): Samples | string {
  const tkhd = child(buffer, trak, 'tkhd');
  if (!tkhd) {
    return 'no tkhd box';
  }
  const trackId = buffer.readUInt32BE(tkhd.start + (fullBoxVersion(buffer, tkhd) === 1 ? 20 : 12));
  const trex = children(buffer, mvex, 'trex').find(
    (box) => buffer.readUInt32BE(box.start + 4) === trackId,
  );
  const trexDuration = trex ? buffer.readUInt32BE(trex.start + 12) : 0;
  const trexSize = trex ? buffer.readUInt32BE(trex.start + 16) : 0;
  const trexFlags = trex ? buffer.readUInt32BE(trex.start + 20) : 0;
  const samples: Samples = { dts: [], cts: [], sizes: [], offsets: [], isSync: [] };
  let time = 0;
  for (const fragment of fragments) {
    const moof: Box = { type: 'moof', start: 0, end: fragment.payload.length };
    const data = fragment.payload;
    for (const traf of children(data, moof, 'traf')) {
      const tfhd = child(data, traf, 'tfhd');
      if (!tfhd || data.readUInt32BE(tfhd.start + 4) !== trackId) {
        continue;
      }
      const tfhdFlags = data.readUInt32BE(tfhd.start) & 0xffffff;
      let at = tfhd.start + 8;
      let base = fragment.offset;
      if (tfhdFlags & 0x1) {
        base = Number(data.readBigUInt64BE(at));
        at += 8;
      }
      if (tfhdFlags & 0x2) {
        if (data.readUInt32BE(at) !== 1) {
          return `sample description ${data.readUInt32BE(at)} in a fragment`;
        }
        at += 4;
      }
      let defaultDuration = trexDuration;
      let defaultSize = trexSize;
      let defaultFlags = trexFlags;
      if (tfhdFlags & 0x8) {
        defaultDuration = data.readUInt32BE(at);
        at += 4;
      }
      if (tfhdFlags & 0x10) {
        defaultSize = data.readUInt32BE(at);
        at += 4;
      }
      if (tfhdFlags & 0x20) {
        defaultFlags = data.readUInt32BE(at);
      }
      const tfdt = child(data, traf, 'tfdt');
      if (tfdt) {
        time =
          fullBoxVersion(data, tfdt) === 1
            ? Number(data.readBigUInt64BE(tfdt.start + 4))
            : data.readUInt32BE(tfdt.start + 4);
      }
      let position = base;
      for (const trun of children(data, traf, 'trun')) {
        const flags = data.readUInt32BE(trun.start) & 0xffffff;
        const isSignedCto = fullBoxVersion(data, trun) === 1;
        const count = data.readUInt32BE(trun.start + 4);
        let field = trun.start + 8;
        if (flags & 0x1) {
          position = base + data.readInt32BE(field);
          field += 4;
        }
        let firstFlags: number | null = null;
        if (flags & 0x4) {
          firstFlags = data.readUInt32BE(field);
          field += 4;
        }
        for (let i = 0; i < count; i += 1) {
          let duration = defaultDuration;
          let size = defaultSize;
          let sampleFlags = i === 0 && firstFlags !== null ? firstFlags : defaultFlags;
          let cto = 0;
          if (flags & 0x100) {
            duration = data.readUInt32BE(field);
            field += 4;
          }
          if (flags & 0x200) {
            size = data.readUInt32BE(field);
            field += 4;
          }
          if (flags & 0x400) {
            const perSample = data.readUInt32BE(field);
            sampleFlags = i === 0 && firstFlags !== null ? firstFlags : perSample;
            field += 4;
          }
          if (flags & 0x800) {
            cto = isSignedCto ? data.readInt32BE(field) : data.readUInt32BE(field);
            field += 4;
          }
          if (position + size > fileSize) {
            return 'truncated fragment';
          }
          samples.dts.push(time);
          samples.cts.push(time + cto);
          samples.sizes.push(size);
          samples.offsets.push(position);
          // sample_is_non_sync_sample
          samples.isSync.push((sampleFlags & 0x10000) === 0);
          position += size;
          time += duration;
        }
      }
    }
  }
  return samples;
}
