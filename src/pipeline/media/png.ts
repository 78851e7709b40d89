// Minimal PNG codec: encodes RGB24 frames (keyframe images) and decodes 8-bit RGB/RGBA
// non-interlaced PNGs such as those ffmpeg writes (W3C PNG spec, 2nd edition). Images are
// compared by decoded pixels, never by PNG bytes (docs/keyframes.md §3).
import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { AppError } from '../../shared/errors';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** IHDR colour types this codec understands. */
const COLOR_TYPE_RGB = 2;
const COLOR_TYPE_RGBA = 6;

/** Options of {@link encodePngRgb}. */
export type EncodePngOptions = {
  /** zlib level 0–9; default 6 (zlib's default balance). */
  compressionLevel?: number;
  /** Scratch space for the filtered rows ((width · 3 + 1) · height bytes), reused across calls
   * instead of a new buffer per image (a 720p frame's 2.7 MB is garbage otherwise); default: a
   * new buffer. Its contents are overwritten. */
  scratch?: Buffer;
};

/** A decoded PNG. */
export type DecodedPng = {
  /** Width in px. */
  width: number;
  /** Height in px. */
  height: number;
  /** Packed RGB24 pixels (alpha, if any, dropped), width · height · 3 bytes. */
  rgb: Buffer;
  /** Alpha channel, width · height bytes; null for RGB images. */
  alpha: Buffer | null;
};

// Encodes packed RGB24 pixels as an 8-bit RGB PNG (filter type Up on every row).
export function encodePngRgb(
  rgb: Uint8Array,
  width: number,
  height: number,
  options: EncodePngOptions = {},
): Buffer {
  if (!(Number.isSafeInteger(width) && width > 0 && Number.isSafeInteger(height) && height > 0)) {
    throw new RangeError(`encodePngRgb: width and height must be positive, got ${width}×${height}`);
  }
  const stride = width * 3;
  if (rgb.length !== stride * height) {
    throw new RangeError(
      `encodePngRgb: expected ${stride * height} bytes for ${width}×${height} RGB24, got ${rgb.length}`,
    );
  }
  // filter Up (2) compresses screen content well and costs one subtraction per byte
  const rawBytes = (stride + 1) * height;
  const raw =
    options.scratch && options.scratch.length >= rawBytes
      ? options.scratch.subarray(0, rawBytes)
      : Buffer.allocUnsafe(rawBytes);
  for (let y = 0; y < height; y += 1) {
    const out = y * (stride + 1);
    const row = y * stride;
    if (y === 0) {
      raw[out] = 0;
      raw.set(rgb.subarray(row, row + stride), out + 1);
      continue;
    }
    raw[out] = 2;
    for (let x = 0; x < stride; x += 1) {
      raw[out + 1 + x] = ((rgb[row + x] as number) - (rgb[row - stride + x] as number)) & 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = COLOR_TYPE_RGB;
  // bytes 10–12: compression 0 (deflate), filter method 0, interlace 0 (none)
  const level = options.compressionLevel ?? 6;
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Decodes an 8-bit RGB or RGBA non-interlaced PNG; throws IMAGE_INVALID for anything else.
export function decodePng(png: Uint8Array): DecodedPng {
  const data = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (data.length < SIGNATURE.length || !data.subarray(0, SIGNATURE.length).equals(SIGNATURE)) {
    throw invalid('not a PNG file (bad signature)');
  }
  let header: { width: number; height: number; channels: 3 | 4 } | null = null;
  const idat: Buffer[] = [];
  let isEnded = false;
  let offset = SIGNATURE.length;
  while (offset < data.length && !isEnded) {
    if (offset + 12 > data.length) {
      throw invalid(`truncated chunk header at byte ${offset}`);
    }
    const length = data.readUInt32BE(offset);
    const type = data.toString('latin1', offset + 4, offset + 8);
    const bodyStart = offset + 8;
    const bodyEnd = bodyStart + length;
    if (bodyEnd + 4 > data.length) {
      throw invalid(`chunk ${type} at byte ${offset} runs past the end of the file`);
    }
    const expectedCrc = data.readUInt32BE(bodyEnd);
    if (crc32(data.subarray(offset + 4, bodyEnd)) !== expectedCrc) {
      throw invalid(`CRC mismatch in chunk ${type} at byte ${offset}`);
    }
    const body = data.subarray(bodyStart, bodyEnd);
    if (type === 'IHDR') {
      header = parseHeader(body);
    } else if (type === 'IDAT') {
      idat.push(body);
    } else if (type === 'IEND') {
      isEnded = true;
    } else if (type === 'PLTE') {
      // a palette is optional (a suggestion) for truecolour images; nothing to do
    } else if ((type.charCodeAt(0) & 0x20) === 0) {
      // an unknown critical chunk (upper-case first letter) must not be skipped
      throw invalid(`unsupported critical chunk ${type}`);
    }
    offset = bodyEnd + 4;
  }
  if (header === null) {
    throw invalid('missing IHDR chunk');
  }
  if (!isEnded) {
    throw invalid('missing IEND chunk');
  }
  if (idat.length === 0) {
    throw invalid('missing IDAT chunk');
  }
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat));
  } catch (error) {
    throw invalid(`corrupt image data: ${(error as Error).message}`);
  }
  const pixels = unfilter(raw, header.width, header.height, header.channels);
  if (header.channels === 3) {
    return { width: header.width, height: header.height, rgb: pixels, alpha: null };
  }
  const pixelCount = header.width * header.height;
  const rgb = Buffer.allocUnsafe(pixelCount * 3);
  const alpha = Buffer.allocUnsafe(pixelCount);
  for (let i = 0; i < pixelCount; i += 1) {
    rgb[i * 3] = pixels[i * 4] as number;
    rgb[i * 3 + 1] = pixels[i * 4 + 1] as number;
    rgb[i * 3 + 2] = pixels[i * 4 + 2] as number;
    alpha[i] = pixels[i * 4 + 3] as number;
  }
  return { width: header.width, height: header.height, rgb, alpha };
}

function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(body.length + 12);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

function parseHeader(body: Buffer): { width: number; height: number; channels: 3 | 4 } {
  if (body.length !== 13) {
    throw invalid(`IHDR has ${body.length} bytes, expected 13`);
  }
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const [bitDepth, colorType, compression, filter, interlace] = body.subarray(8);
  if (width === 0 || height === 0) {
    throw invalid(`empty image ${width}×${height}`);
  }
  if (bitDepth !== 8 || (colorType !== COLOR_TYPE_RGB && colorType !== COLOR_TYPE_RGBA)) {
    throw invalid(
      `unsupported pixel format (bit depth ${bitDepth}, colour type ${colorType}); ` +
        'only 8-bit RGB and RGBA are supported',
    );
  }
  if (compression !== 0 || filter !== 0) {
    throw invalid(`unknown compression ${compression} or filter method ${filter}`);
  }
  if (interlace !== 0) {
    throw invalid('interlaced PNGs are not supported');
  }
  return { width, height, channels: colorType === COLOR_TYPE_RGB ? 3 : 4 };
}

// Reverses the per-row filters (None, Sub, Up, Average, Paeth) into packed pixels.
function unfilter(raw: Buffer, width: number, height: number, channels: number): Buffer {
  const stride = width * channels;
  if (raw.length !== (stride + 1) * height) {
    throw invalid(`image data holds ${raw.length} bytes, expected ${(stride + 1) * height}`);
  }
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y += 1) {
    const filterType = raw[y * (stride + 1)];
    const input = y * (stride + 1) + 1;
    const row = y * stride;
    const previous = row - stride;
    for (let x = 0; x < stride; x += 1) {
      const value = raw[input + x] as number;
      const left = x >= channels ? (out[row + x - channels] as number) : 0;
      const up = y > 0 ? (out[previous + x] as number) : 0;
      const upLeft = y > 0 && x >= channels ? (out[previous + x - channels] as number) : 0;
      let predicted: number;
      switch (filterType) {
        case 0:
          predicted = 0;
          break;
        case 1:
          predicted = left;
          break;
        case 2:
          predicted = up;
          break;
        case 3:
          predicted = (left + up) >> 1;
          break;
        case 4:
          predicted = paeth(left, up, upLeft);
          break;
        default:
          throw invalid(`unknown filter type ${filterType} on row ${y}`);
      }
      out[row + x] = (value + predicted) & 0xff;
    }
  }
  return out;
}

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft;
  const distanceLeft = Math.abs(estimate - left);
  const distanceUp = Math.abs(estimate - up);
  const distanceUpLeft = Math.abs(estimate - upLeft);
  if (distanceLeft <= distanceUp && distanceLeft <= distanceUpLeft) {
    return left;
  }
  return distanceUp <= distanceUpLeft ? up : upLeft;
}

function invalid(reason: string): AppError {
  return new AppError('IMAGE_INVALID', `Invalid PNG: ${reason}.`, { reason });
}
