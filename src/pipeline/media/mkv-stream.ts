// A minimal Matroska writer for piping chosen H.264 samples of an MP4 into one ffmpeg: a header
// (one AVC track whose CodecPrivate is the MP4's avcC) and clusters of SimpleBlocks. The samples
// keep their AVCC bytes unchanged, so ffmpeg's decoder sees exactly what it sees reading the MP4,
// and every block is stamped with its frame index n (timestamp unit 1 ms), so the frames come
// out of the decoder carrying their own index as pts, whatever parts of the video were sent.
// Spec: Matroska (RFC 9559) EBML elements; the segment and its clusters are written as a live
// stream (segment of unknown size, no cues, no seek head).

/** Element IDs used (with their length marker bits, as written). */
const ID = {
  ebml: [0x1a, 0x45, 0xdf, 0xa3],
  ebmlVersion: [0x42, 0x86],
  ebmlReadVersion: [0x42, 0xf7],
  ebmlMaxIdLength: [0x42, 0xf2],
  ebmlMaxSizeLength: [0x42, 0xf3],
  docType: [0x42, 0x82],
  docTypeVersion: [0x42, 0x87],
  docTypeReadVersion: [0x42, 0x85],
  segment: [0x18, 0x53, 0x80, 0x67],
  info: [0x15, 0x49, 0xa9, 0x66],
  timestampScale: [0x2a, 0xd7, 0xb1],
  muxingApp: [0x4d, 0x80],
  writingApp: [0x57, 0x41],
  tracks: [0x16, 0x54, 0xae, 0x6b],
  trackEntry: [0xae],
  trackNumber: [0xd7],
  trackUid: [0x73, 0xc5],
  trackType: [0x83],
  flagLacing: [0x9c],
  codecId: [0x86],
  codecPrivate: [0x63, 0xa2],
  video: [0xe0],
  pixelWidth: [0xb0],
  pixelHeight: [0xba],
  cluster: [0x1f, 0x43, 0xb6, 0x75],
  timestamp: [0xe7],
  simpleBlock: [0xa3],
} as const;

/** Block timestamps are relative to their cluster's, as signed 16-bit values. */
const MAX_RELATIVE_TIMESTAMP = 32_767;

function sizeField(size: number): Buffer {
  // always 8 bytes: 0x01 marker, 7 bytes of size (up to 2^56 - 2)
  const field = Buffer.alloc(8);
  field.writeUInt8(0x01, 0);
  field.writeUIntBE(Math.floor(size / 2 ** 24), 1, 3);
  field.writeUIntBE(size % 2 ** 24, 4, 4);
  return field;
}

function element(id: readonly number[], ...payload: Buffer[]): Buffer {
  const size = payload.reduce((sum, part) => sum + part.length, 0);
  return Buffer.concat([Buffer.from(id), sizeField(size), ...payload]);
}

function uint(id: readonly number[], value: number): Buffer {
  if (!(Number.isSafeInteger(value) && value >= 0)) {
    throw new RangeError(`mkv: unsigned element value must be a safe integer ≥ 0, got ${value}`);
  }
  let bytes = 1;
  while (bytes < 7 && value >= 2 ** (8 * bytes)) {
    bytes += 1;
  }
  const payload = Buffer.alloc(bytes);
  payload.writeUIntBE(value, 0, bytes);
  return element(id, payload);
}

function text(id: readonly number[], value: string): Buffer {
  return element(id, Buffer.from(value, 'latin1'));
}

/** The stream header: EBML header, segment start, info and the AVC track. */
export function mkvHeader(track: { avcConfig: Buffer; width: number; height: number }): Buffer {
  const ebml = element(
    ID.ebml,
    uint(ID.ebmlVersion, 1),
    uint(ID.ebmlReadVersion, 1),
    uint(ID.ebmlMaxIdLength, 4),
    uint(ID.ebmlMaxSizeLength, 8),
    text(ID.docType, 'matroska'),
    uint(ID.docTypeVersion, 4),
    uint(ID.docTypeReadVersion, 2),
  );
  // a live segment: size "unknown" (all ones)
  const segmentStart = Buffer.from([...ID.segment, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  const info = element(
    ID.info,
    uint(ID.timestampScale, 1_000_000),
    text(ID.muxingApp, 'cua-annotator'),
    text(ID.writingApp, 'cua-annotator'),
  );
  const tracks = element(
    ID.tracks,
    element(
      ID.trackEntry,
      uint(ID.trackNumber, 1),
      uint(ID.trackUid, 1),
      uint(ID.trackType, 1),
      uint(ID.flagLacing, 0),
      text(ID.codecId, 'V_MPEG4/ISO/AVC'),
      element(ID.codecPrivate, track.avcConfig),
      element(ID.video, uint(ID.pixelWidth, track.width), uint(ID.pixelHeight, track.height)),
    ),
  );
  return Buffer.concat([ebml, segmentStart, info, tracks]);
}

/** One coded frame to send. */
export type MkvBlock = {
  /** Frame index n: the block's timestamp (ms units), hence the decoded frame's pts. */
  timestamp: number;
  /** Sync sample. */
  isKey: boolean;
  /** The sample's bytes (AVCC NAL units, as stored in the MP4). */
  data: Buffer;
};

/** Clusters holding `blocks` in the given (decode) order; split where timestamps drift apart. */
export function mkvClusters(blocks: readonly MkvBlock[]): Buffer[] {
  const clusters: Buffer[] = [];
  let index = 0;
  while (index < blocks.length) {
    const base = (blocks[index] as MkvBlock).timestamp;
    const parts: Buffer[] = [uint(ID.timestamp, base)];
    while (index < blocks.length) {
      const block = blocks[index] as MkvBlock;
      const relative = block.timestamp - base;
      if (Math.abs(relative) > MAX_RELATIVE_TIMESTAMP) {
        break;
      }
      const head = Buffer.alloc(4);
      head.writeUInt8(0x81, 0); // track number 1 as a 1-byte vint
      head.writeInt16BE(relative, 1);
      head.writeUInt8(block.isKey ? 0x80 : 0x00, 3);
      parts.push(element(ID.simpleBlock, head, block.data));
      index += 1;
    }
    clusters.push(element(ID.cluster, ...parts));
  }
  return clusters;
}
