// Grayscale conversion and frame similarity exactly as the OpenCUA reference computes them with
// OpenCV 4.6 (docs/keyframes.md §4): 8-bit gray from RGB24, pixel-exact equality counts.

/** A probe differs from its reference iff their similarity is below this (docs/keyframes.md §1.1). */
export const SIMILARITY_THRESHOLD = 0.99;

/** OpenCV's fixed-point BT.601 luma weights (sum 2^15) and rounding term (docs/keyframes.md §4). */
const WEIGHT_R = 9798;
const WEIGHT_G = 19235;
const WEIGHT_B = 3735;
const ROUNDING = 16384;

// One pixel's 8-bit gray value: (9798·R + 19235·G + 3735·B + 16384) >> 15 (OpenCV BGR2GRAY).
export function grayValue(r: number, g: number, b: number): number {
  return (WEIGHT_R * r + WEIGHT_G * g + WEIGHT_B * b + ROUNDING) >> 15;
}

// Converts a packed RGB24 frame (3 bytes per pixel, R first) to 8-bit gray (1 byte per pixel).
export function rgbToGray(rgb: Uint8Array, out?: Uint8Array): Uint8Array {
  if (rgb.length % 3 !== 0) {
    throw new RangeError(`rgbToGray: RGB24 data must hold 3 bytes per pixel, got ${rgb.length}`);
  }
  const pixelCount = rgb.length / 3;
  const gray = out ?? new Uint8Array(pixelCount);
  if (gray.length !== pixelCount) {
    throw new RangeError(`rgbToGray: output holds ${gray.length} pixels, expected ${pixelCount}`);
  }
  for (let pixel = 0, byte = 0; pixel < pixelCount; pixel += 1, byte += 3) {
    // the maximum sum is 255 · 2^15 + 16384 < 2^31, so the int32 shift is exact
    gray[pixel] =
      (WEIGHT_R * (rgb[byte] as number) +
        WEIGHT_G * (rgb[byte + 1] as number) +
        WEIGHT_B * (rgb[byte + 2] as number) +
        ROUNDING) >>
      15;
  }
  return gray;
}

// Counts the pixels whose gray values differ; once the count exceeds `stopAbove` it returns at
// once with a count that is > stopAbove but possibly below the full count.
export function countDifferentPixels(
  grayA: Uint8Array,
  grayB: Uint8Array,
  stopAbove = Number.POSITIVE_INFINITY,
): number {
  assertSameSize(grayA, grayB);
  let diff = 0;
  let start = 0;
  if (grayA.byteOffset % 4 === 0 && grayB.byteOffset % 4 === 0) {
    // screen frames are mostly equal: compare 4 pixels per step, look closer only on a mismatch
    const wordCount = grayA.length >>> 2;
    const wordsA = new Uint32Array(grayA.buffer, grayA.byteOffset, wordCount);
    const wordsB = new Uint32Array(grayB.buffer, grayB.byteOffset, wordCount);
    for (let word = 0; word < wordCount; word += 1) {
      if (wordsA[word] !== wordsB[word]) {
        const i = word << 2;
        diff +=
          Number(grayA[i] !== grayB[i]) +
          Number(grayA[i + 1] !== grayB[i + 1]) +
          Number(grayA[i + 2] !== grayB[i + 2]) +
          Number(grayA[i + 3] !== grayB[i + 3]);
        if (diff > stopAbove) {
          return diff;
        }
      }
    }
    start = wordCount << 2;
  }
  for (let i = start; i < grayA.length; i += 1) {
    if (grayA[i] !== grayB[i]) {
      diff += 1;
      if (diff > stopAbove) {
        return diff;
      }
    }
  }
  return diff;
}

// Similarity of two gray frames: 1 − (pixels that differ) / (W·H), in float64 (docs/keyframes.md §1.1).
export function similarity(grayA: Uint8Array, grayB: Uint8Array): number {
  const diff = countDifferentPixels(grayA, grayB);
  return 1 - diff / grayA.length;
}

// True iff similarity(grayA, grayB) < 0.99, with the early exit docs/keyframes.md §4 allows.
export function grayFramesDiffer(grayA: Uint8Array, grayB: Uint8Array): boolean {
  const pixelCount = grayA.length;
  // beyond 1.1 % differing pixels the similarity is < 0.989 whatever the rounding (docs/keyframes.md §4)
  const diff = countDifferentPixels(grayA, grayB, 0.011 * pixelCount);
  return 1 - diff / pixelCount < SIMILARITY_THRESHOLD;
}

// grayFramesDiffer(rgbToGray(rgbA), rgbToGray(rgbB)) without converting the frames: pixels whose
// RGB bytes are equal have equal gray values, so only the groups of 4 pixels (12 bytes, 3 words)
// that differ somewhere are converted and compared.
export function rgbFramesDiffer(rgbA: Uint8Array, rgbB: Uint8Array): boolean {
  if (rgbA.length !== rgbB.length || rgbA.length % 3 !== 0) {
    throw new RangeError(
      `rgbFramesDiffer: RGB24 frames of equal size expected, got ${rgbA.length} and ${rgbB.length} bytes`,
    );
  }
  const pixelCount = rgbA.length / 3;
  if (pixelCount === 0) {
    throw new RangeError('gray frames are empty');
  }
  const stopAbove = 0.011 * pixelCount;
  let diff = 0;
  const grayDiffers = (byte: number): number =>
    Number(
      grayValue(rgbA[byte] as number, rgbA[byte + 1] as number, rgbA[byte + 2] as number) !==
        grayValue(rgbB[byte] as number, rgbB[byte + 1] as number, rgbB[byte + 2] as number),
    );
  let start = 0;
  if (rgbA.byteOffset % 4 === 0 && rgbB.byteOffset % 4 === 0) {
    const groupCount = Math.floor(pixelCount / 4);
    const wordsA = new Uint32Array(rgbA.buffer, rgbA.byteOffset, groupCount * 3);
    const wordsB = new Uint32Array(rgbB.buffer, rgbB.byteOffset, groupCount * 3);
    for (let word = 0; word < groupCount * 3; word += 3) {
      if (
        wordsA[word] !== wordsB[word] ||
        wordsA[word + 1] !== wordsB[word + 1] ||
        wordsA[word + 2] !== wordsB[word + 2]
      ) {
        const byte = word << 2;
        diff +=
          grayDiffers(byte) + grayDiffers(byte + 3) + grayDiffers(byte + 6) + grayDiffers(byte + 9);
        if (diff > stopAbove) {
          break;
        }
      }
    }
    start = groupCount * 4;
  }
  for (let pixel = start; pixel < pixelCount && diff <= stopAbove; pixel += 1) {
    diff += grayDiffers(pixel * 3);
  }
  return 1 - diff / pixelCount < SIMILARITY_THRESHOLD;
}

// grayFramesDiffer(rgbToGray(rgb), gray) without converting the frame first: a reference kept as
// gray (a third of its RGB) is compared with an RGB probe pixel by pixel, with the same early
// exit.
export function rgbDiffersFromGray(rgb: Uint8Array, gray: Uint8Array): boolean {
  const pixelCount = gray.length;
  if (rgb.length !== pixelCount * 3) {
    throw new RangeError(
      `rgbDiffersFromGray: ${rgb.length} RGB24 bytes do not match ${pixelCount} gray pixels`,
    );
  }
  if (pixelCount === 0) {
    throw new RangeError('gray frames are empty');
  }
  const stopAbove = 0.011 * pixelCount;
  let diff = 0;
  for (let pixel = 0, byte = 0; pixel < pixelCount; pixel += 1, byte += 3) {
    const value =
      (WEIGHT_R * (rgb[byte] as number) +
        WEIGHT_G * (rgb[byte + 1] as number) +
        WEIGHT_B * (rgb[byte + 2] as number) +
        ROUNDING) >>
      15;
    if (value !== gray[pixel]) {
      diff += 1;
      if (diff > stopAbove) {
        break;
      }
    }
  }
  return 1 - diff / pixelCount < SIMILARITY_THRESHOLD;
}

function assertSameSize(grayA: Uint8Array, grayB: Uint8Array): void {
  if (grayA.length !== grayB.length) {
    throw new RangeError(
      `gray frames differ in size: ${grayA.length} vs ${grayB.length} pixels (same video?)`,
    );
  }
  if (grayA.length === 0) {
    throw new RangeError('gray frames are empty');
  }
}
