// Grayscale (OpenCV BGR2GRAY fixed point) and similarity threshold (docs/keyframes.md §4).
import { describe, expect, it } from 'vitest';
import {
  countDifferentPixels,
  grayFramesDiffer,
  grayValue,
  rgbDiffersFromGray,
  rgbFramesDiffer,
  rgbToGray,
  similarity,
} from '../../../src/pipeline/keyframes';

// (R, G, B) → Y worked out by hand: (9798·R + 19235·G + 3735·B + 16384) >> 15
const GRAY_TABLE: [number, number, number, number][] = [
  [0, 0, 0, 0], // 16384 / 32768 = 0.5 → 0
  [255, 255, 255, 255], // 8372224 / 32768 = 255.5 → 255
  [255, 0, 0, 76], // 2514874 / 32768 = 76.75 → 76
  [0, 255, 0, 150], // 4921309 / 32768 = 150.18 → 150
  [0, 0, 255, 29], // 968809 / 32768 = 29.57 → 29
  [128, 128, 128, 128], // 4210688 / 32768 = 128.5 → 128
  [12, 200, 77, 130], // 4268555 / 32768 = 130.27 → 130
  // triples where the often-quoted formulas are wrong (spec §4)
  [195, 110, 216, 147], // (4899R + 9617G + 1868B + 8192) >> 14 gives 148
  [119, 248, 3, 182], // … gives 181
  [118, 148, 3, 123], // round(0.299R + 0.587G + 0.114B) gives 122
  [121, 225, 239, 195], // … gives 196
];

/** A gray frame of `pixelCount` pixels with the first `changed` pixels altered. */
function grayPair(pixelCount: number, changed: number): [Uint8Array, Uint8Array] {
  const a = new Uint8Array(pixelCount).fill(90);
  const b = new Uint8Array(a);
  for (let i = 0; i < changed; i += 1) {
    b[i * Math.floor(pixelCount / changed)] = 91;
  }
  return [a, b];
}

describe('grayValue / rgbToGray', () => {
  it.each(GRAY_TABLE)('(%i, %i, %i) → %i', (r, g, b, y) => {
    expect(grayValue(r, g, b)).toBe(y);
  });

  it('converts a packed RGB24 buffer pixel by pixel (R first)', () => {
    const rgb = new Uint8Array(GRAY_TABLE.flatMap(([r, g, b]) => [r, g, b]));
    expect([...rgbToGray(rgb)]).toEqual(GRAY_TABLE.map(([, , , y]) => y));
  });

  it('writes into a given buffer and rejects sizes that are not RGB24', () => {
    const out = new Uint8Array(2);
    expect(rgbToGray(new Uint8Array([255, 0, 0, 0, 0, 255]), out)).toBe(out);
    expect([...out]).toEqual([76, 29]);
    expect(() => rgbToGray(new Uint8Array(4))).toThrow(RangeError);
    expect(() => rgbToGray(new Uint8Array(6), new Uint8Array(3))).toThrow(RangeError);
  });
});

describe('similarity', () => {
  it.each([
    [100 * 100, 100],
    [1280 * 720, 9216],
  ])('%i pixels: exactly 1 %% changed (%i) is similarity 0.99 and does not differ', (n, c) => {
    const [a, b] = grayPair(n, c);
    expect(countDifferentPixels(a, b)).toBe(c);
    expect(similarity(a, b)).toBe(0.99);
    expect(grayFramesDiffer(a, b)).toBe(false);
  });

  it.each([
    [100 * 100, 101],
    [1280 * 720, 9217],
  ])('%i pixels: 1 %% + 1 pixel (%i) differs', (n, c) => {
    const [a, b] = grayPair(n, c);
    expect(countDifferentPixels(a, b)).toBe(c);
    expect(similarity(a, b)).toBeLessThan(0.99);
    expect(grayFramesDiffer(a, b)).toBe(true);
  });

  it('counts exact inequality only and is 1 for identical frames', () => {
    const [a, b] = grayPair(1000, 0);
    expect(similarity(a, b)).toBe(1);
    expect(grayFramesDiffer(a, b)).toBe(false);
    // completely different frames: the early exit still answers "differs"
    expect(grayFramesDiffer(a, new Uint8Array(1000))).toBe(true);
    expect(countDifferentPixels(a, new Uint8Array(1000))).toBe(1000);
    const stopped = countDifferentPixels(a, new Uint8Array(1000), 10);
    expect(stopped).toBeGreaterThan(10);
    expect(stopped).toBeLessThan(1000);
  });

  it('counts the same on unaligned views and lengths that are not a multiple of 4', () => {
    const backingA = new Uint8Array(1003).map((_, i) => i % 7);
    const backingB = backingA.map((v, i) => (i % 5 === 0 ? v + 1 : v));
    const expected = (from: number): number => {
      let count = 0;
      for (let i = from; i < 1003; i += 1) {
        count += backingA[i] === backingB[i] ? 0 : 1;
      }
      return count;
    };
    expect(countDifferentPixels(backingA, backingB)).toBe(expected(0));
    expect(countDifferentPixels(backingA.subarray(1), backingB.subarray(1))).toBe(expected(1));
    expect(countDifferentPixels(backingA.subarray(4), backingB.subarray(4))).toBe(expected(4));
  });

  it('rejects frames of different sizes', () => {
    expect(() => similarity(new Uint8Array(4), new Uint8Array(5))).toThrow(RangeError);
  });
});

describe('rgbFramesDiffer', () => {
  /** A deterministic pseudo-random RGB frame (xorshift). */
  const frame = (pixels: number, seed: number): Uint8Array => {
    const rgb = new Uint8Array(pixels * 3);
    let x = seed;
    for (let i = 0; i < rgb.length; i += 1) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      rgb[i] = x & 0xff;
    }
    return rgb;
  };

  it('agrees with grayFramesDiffer on both sides of the threshold, for any alignment and size', () => {
    for (const pixels of [1001, 1003, 4000, 10_007]) {
      const base = frame(pixels, pixels);
      // change k pixels' RGB; some changes keep the gray value (R+1, G−1 is often gray-neutral)
      for (const changed of [0, 5, 9, 10, 11, 12, 15, 40, pixels]) {
        const other = base.slice();
        for (let k = 0; k < changed; k += 1) {
          const pixel = Math.floor((k * pixels) / Math.max(1, changed));
          other[pixel * 3] = (other[pixel * 3]! + 1 + (k % 7)) & 0xff;
          if (k % 3 === 0) {
            other[pixel * 3 + 1] = (other[pixel * 3 + 1]! + 200) & 0xff;
          }
        }
        const expected = grayFramesDiffer(rgbToGray(base), rgbToGray(other));
        expect(rgbFramesDiffer(base, other), `${pixels} px, ${changed} changed`).toBe(expected);
        // unaligned views of the same pixels take the byte-wise path
        const shiftedA = new Uint8Array(base.length + 1);
        shiftedA.set(base, 1);
        const shiftedB = new Uint8Array(other.length + 1);
        shiftedB.set(other, 1);
        expect(rgbFramesDiffer(shiftedA.subarray(1), shiftedB.subarray(1))).toBe(expected);
      }
    }
  });

  it('rgbDiffersFromGray (a gray reference) agrees with grayFramesDiffer the same way', () => {
    for (const pixels of [1001, 4000, 10_007]) {
      const base = frame(pixels, pixels + 1);
      for (const changed of [0, 9, 10, 11, 12, 40, pixels]) {
        const other = base.slice();
        for (let k = 0; k < changed; k += 1) {
          const pixel = Math.floor((k * pixels) / Math.max(1, changed));
          other[pixel * 3 + 1] = (other[pixel * 3 + 1]! + 1 + (k % 5)) & 0xff;
        }
        const refGray = rgbToGray(base);
        expect(rgbDiffersFromGray(other, refGray), `${pixels} px, ${changed} changed`).toBe(
          grayFramesDiffer(rgbToGray(other), refGray),
        );
      }
    }
    expect(() => rgbDiffersFromGray(new Uint8Array(9), new Uint8Array(4))).toThrow(RangeError);
    expect(() => rgbDiffersFromGray(new Uint8Array(0), new Uint8Array(0))).toThrow(RangeError);
  });

  it('is false for equal frames and true for unrelated ones', () => {
    const a = frame(5000, 1);
    expect(rgbFramesDiffer(a, a.slice())).toBe(false);
    expect(rgbFramesDiffer(a, frame(5000, 2))).toBe(true);
  });

  it('rejects frames of different sizes or not RGB24', () => {
    expect(() => rgbFramesDiffer(new Uint8Array(6), new Uint8Array(9))).toThrow(RangeError);
    expect(() => rgbFramesDiffer(new Uint8Array(4), new Uint8Array(4))).toThrow(RangeError);
    expect(() => rgbFramesDiffer(new Uint8Array(0), new Uint8Array(0))).toThrow(RangeError);
  });
});
