// PNG codec: round trips, PNGs written by the real ffmpeg (RGB and RGBA, every filter type),
// our PNG of a fixture frame read back by ffprobe/ffmpeg, and corrupt input.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrames } from '../../../src/pipeline/media/frame-decoder';
import { decodePng, encodePngRgb } from '../../../src/pipeline/media/png';
import { runCommand } from '../../../src/infra/run-command';
import { resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { AppError } from '../../../src/shared/errors';
import { FIXTURE_DIR } from '../../helpers/paths';

const FIXTURE_VIDEO = path.join(FIXTURE_DIR, '2024-11-05 18-56-31.mp4');

/** RGBA with the test pattern's colours and an alpha ramp. */
const ALPHA_PATTERN = "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='mod(X*7+Y*3,256)'";

let ffmpegPath = '';
let ffprobePath = '';
let tempDir = '';

async function ffmpeg(args: string[]): Promise<void> {
  const result = await runCommand(ffmpegPath, ['-v', 'error', ...args], { timeoutMs: 60_000 });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
}

function pngError(data: Uint8Array): AppError {
  try {
    decodePng(data);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('decodePng accepted invalid data');
}

beforeAll(async () => {
  const binary = await resolveFfmpeg();
  ffmpegPath = binary.path;
  expect(binary.ffprobePath).not.toBeNull();
  ffprobePath = binary.ffprobePath!;
  tempDir = await mkdtemp(path.join(os.tmpdir(), 'cua-png-'));
});

afterAll(async () => {
  await rm(tempDir, { recursive: true, force: true });
});

describe('encodePngRgb / decodePng', () => {
  it.each([
    [1, 1],
    [37, 23],
    [256, 3],
  ])('round-trips random %i×%i RGB pixels', (width, height) => {
    const rgb = randomBytes(width * height * 3);
    const png = encodePngRgb(rgb, width, height);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]));
    const decoded = decodePng(png);
    expect(decoded.width).toBe(width);
    expect(decoded.height).toBe(height);
    expect(decoded.alpha).toBeNull();
    expect(decoded.rgb.equals(rgb)).toBe(true);
  });

  it('writes the same bytes with a reused scratch buffer, which may be larger than needed', () => {
    const scratch = Buffer.alloc((256 * 3 + 1) * 3);
    for (const [width, height] of [
      [256, 3],
      [37, 23],
    ] as const) {
      const rgb = randomBytes(width * height * 3);
      expect(
        encodePngRgb(rgb, width, height, { scratch }).equals(encodePngRgb(rgb, width, height)),
      ).toBe(true);
    }
    // too small: a buffer of its own
    const rgb = randomBytes(40 * 40 * 3);
    expect(
      encodePngRgb(rgb, 40, 40, { scratch: Buffer.alloc(10) }).equals(encodePngRgb(rgb, 40, 40)),
    ).toBe(true);
  });

  it('rejects pixel buffers of the wrong size', () => {
    expect(() => encodePngRgb(new Uint8Array(11), 2, 2)).toThrow(RangeError);
    expect(() => encodePngRgb(new Uint8Array(0), 0, 0)).toThrow(RangeError);
  });

  it.each(['rgb24', 'rgba'])(
    'decodes %s PNGs written by ffmpeg with every prediction filter',
    async (pixFmt) => {
      const png = path.join(tempDir, `testsrc-${pixFmt}.png`);
      const raw = path.join(tempDir, `testsrc-${pixFmt}.raw`);
      const source = [
        ...['-f', 'lavfi', '-i', 'testsrc2=size=98x62:rate=1'],
        // RGB(A) first, then an odd size; RGBA gets a varying alpha channel
        ...['-vf', `${pixFmt === 'rgba' ? ALPHA_PATTERN : 'format=rgb24'},crop=97:61:0:0`],
        ...['-frames:v', '1'],
      ];
      // -pred mixed picks the best of None/Sub/Up/Average/Paeth per row
      await ffmpeg([...source, '-pix_fmt', pixFmt, '-pred', 'mixed', '-y', png]);
      await ffmpeg([...source, '-f', 'rawvideo', '-pix_fmt', pixFmt, '-y', raw]);
      const expected = await readFile(raw);
      const decoded = decodePng(await readFile(png));
      expect([decoded.width, decoded.height]).toEqual([97, 61]);
      if (pixFmt === 'rgb24') {
        expect(decoded.alpha).toBeNull();
        expect(decoded.rgb.equals(expected)).toBe(true);
      } else {
        const rgb = Buffer.alloc(97 * 61 * 3);
        const alpha = Buffer.alloc(97 * 61);
        for (let i = 0; i < 97 * 61; i += 1) {
          expected.copy(rgb, i * 3, i * 4, i * 4 + 3);
          alpha[i] = expected[i * 4 + 3]!;
        }
        expect(decoded.rgb.equals(rgb)).toBe(true);
        expect(decoded.alpha?.equals(alpha)).toBe(true);
      }
    },
  );

  it.each([0, 1, 2, 3, 4])('decodes rows filtered with filter type %i', (filterType) => {
    const rgb = randomBytes(13 * 7 * 3);
    const decoded = decodePng(filteredPng(rgb, 13, 7, filterType));
    expect(decoded.rgb.equals(rgb)).toBe(true);
  });

  it('our PNG of a fixture frame opens in ffprobe with the right size and same pixels', async () => {
    let frameRgb: Buffer | null = null;
    await decodeFrames({
      ffmpeg: { path: ffmpegPath },
      videoPath: FIXTURE_VIDEO,
      frames: [187],
      width: 1276,
      height: 718,
      onFrame: (frame) => {
        frameRgb = frame.rgb;
      },
    });
    expect(frameRgb).not.toBeNull();
    const pngPath = path.join(tempDir, 'frame-187.png');
    await writeFile(pngPath, encodePngRgb(frameRgb!, 1276, 718));

    const probe = await runCommand(
      ffprobePath,
      [
        ...['-v', 'error', '-show_entries', 'stream=codec_name,width,height,pix_fmt'],
        ...['-of', 'json', pngPath],
      ],
      { timeoutMs: 30_000 },
    );
    expect(probe.code).toBe(0);
    expect(JSON.parse(probe.stdout).streams).toEqual([
      { codec_name: 'png', width: 1276, height: 718, pix_fmt: 'rgb24' },
    ]);
    // ffmpeg's own PNG decoder reads the same pixels back
    const raw = path.join(tempDir, 'frame-187.rgb');
    await ffmpeg(['-i', pngPath, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-y', raw]);
    expect((await readFile(raw)).equals(frameRgb!)).toBe(true);
  });

  it('rejects corrupt and unsupported PNGs with IMAGE_INVALID', () => {
    const png = encodePngRgb(randomBytes(4 * 4 * 3), 4, 4);
    expect(pngError(Buffer.from('not a png at all')).message).toMatch(/signature/);

    const badCrc = Buffer.from(png);
    badCrc[20] = badCrc[20]! ^ 0xff; // inside IHDR
    expect(pngError(badCrc).message).toMatch(/CRC mismatch in chunk IHDR/);

    expect(pngError(png.subarray(0, png.length - 12)).message).toMatch(/missing IEND/);

    // same image declared interlaced (IHDR byte 12), with a recomputed CRC
    const interlaced = withHeaderByte(png, 12, 1);
    expect(pngError(interlaced).message).toMatch(/interlaced/);
    const sixteenBit = withHeaderByte(png, 8, 16);
    expect(pngError(sixteenBit).code).toBe('IMAGE_INVALID');
  });
});

/** An RGB PNG whose every row uses `filterType` (W3C PNG §9.2, written out independently). */
function filteredPng(rgb: Buffer, width: number, height: number, filterType: number): Buffer {
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  const at = (x: number, y: number): number => (x < 0 || y < 0 ? 0 : rgb[y * stride + x]!);
  for (let y = 0; y < height; y += 1) {
    raw[y * (stride + 1)] = filterType;
    for (let x = 0; x < stride; x += 1) {
      const a = at(x - 3, y);
      const b = at(x, y - 1);
      const c = at(x - 3, y - 1);
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, Math.floor((a + b) / 2), paeth][filterType]!;
      raw[y * (stride + 1) + 1 + x] = (at(x, y) - predictor) & 0xff;
    }
  }
  const chunk = (type: string, body: Buffer): Buffer => {
    const out = Buffer.alloc(body.length + 12);
    out.writeUInt32BE(body.length, 0);
    out.write(type, 4, 'latin1');
    body.copy(out, 8);
    out.writeUInt32BE(crc(out.subarray(4, 8 + body.length)), 8 + body.length);
    return out;
  };
  const header = Buffer.from([0, 0, 0, width, 0, 0, 0, height, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Copy of `png` with IHDR data byte `offset` set to `value` and the CRC fixed. */
function withHeaderByte(png: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(png);
  copy[16 + offset] = value;
  copy.writeUInt32BE(crc(copy.subarray(12, 29)), 29);
  return copy;
}

/** Bitwise CRC-32 (PNG / zlib polynomial), independent of the codec under test. */
function crc(data: Uint8Array): number {
  let value = 0xffffffff;
  for (const byte of data) {
    value ^= byte;
    for (let bit = 0; bit < 8; bit += 1) {
      value = value & 1 ? (value >>> 1) ^ 0xedb88320 : value >>> 1;
    }
  }
  return (value ^ 0xffffffff) >>> 0;
}
