// The screen difference of replay (docs/replay.md §1): gray thumbnails compared block by block,
// with the cursor and chosen rectangles masked. Pure: frames come in as pixel buffers.
import { AppError } from '../../shared/errors';

/** Default thumbnail width (px): 1280 px screens shrink 8×, 1920 px screens 12×. */
export const THUMBNAIL_WIDTH = 160;
/** Side of a comparison block, in thumbnail pixels (4 → 40×25 blocks on a 16:10 screen). */
export const BLOCK_SIZE = 4;
/** A block changed when its mean absolute gray difference exceeds this (fraction of full scale). */
export const BLOCK_THRESHOLD = 10 / 255;
/** Screens match when at most this share of their (unmasked) blocks changed. */
export const SCREEN_MATCH_MAX_CHANGED = 0.02;
/**
 * The box masked around each pointer position, in screen pixels from the hotspot: an arrow's
 * hotspot is its top-left tip, so the box reaches further right and down (a 2× arrow is 24×38).
 */
export const CURSOR_MASK = { left: 8, top: 8, right: 40, bottom: 48 } as const;

/** A gray image: `data[y * width + x]` in [0, 255], and the size of the frame it came from. */
export type Thumbnail = {
  width: number;
  height: number;
  data: Float32Array;
  sourceWidth: number;
  sourceHeight: number;
};

/** A rectangle in screen pixels (top-left corner and size). */
export type MaskRect = { x: number; y: number; width: number; height: number };

/** How two thumbnails differ. */
export type ScreenDiff = {
  /** changedBlocks / totalBlocks (0 when every block is masked). */
  changedFraction: number;
  /** Mean absolute gray difference over the unmasked pixels, as a fraction of full scale. */
  meanAbsDiff: number;
  changedBlocks: number;
  /** Blocks with at least one unmasked pixel. */
  totalBlocks: number;
};

export type ScreenDiffOptions = {
  /** Pointer positions (screen pixels of the first thumbnail's frame) to mask with CURSOR_MASK. */
  pointers?: readonly { x: number; y: number }[];
  /** More rectangles to mask (screen pixels of the first thumbnail's frame). */
  rects?: readonly MaskRect[];
  /** Default {@link BLOCK_SIZE}. */
  blockSize?: number;
  /** Default {@link BLOCK_THRESHOLD}. */
  blockThreshold?: number;
  /** Default {@link CURSOR_MASK}. */
  cursorMask?: { left: number; top: number; right: number; bottom: number };
};

/** For each target cell along one axis, the source cells it covers with their overlap weights. */
function areaWeights(source: number, target: number): { index: number; weight: number }[][] {
  const ratio = source / target;
  const cells: { index: number; weight: number }[][] = [];
  for (let t = 0; t < target; t++) {
    const start = t * ratio;
    const end = (t + 1) * ratio;
    const cell: { index: number; weight: number }[] = [];
    for (let s = Math.floor(start); s < Math.min(source, Math.ceil(end)); s++) {
      const overlap = Math.min(end, s + 1) - Math.max(start, s);
      if (overlap > 0) {
        cell.push({ index: s, weight: overlap / ratio });
      }
    }
    cells.push(cell);
  }
  return cells;
}

/**
 * Downscales a packed RGB24 (or RGBA with `channels: 4`) frame to a gray thumbnail of
 * `targetWidth` px (never wider than the frame), height keeping the aspect ratio, each thumbnail
 * pixel the area average of BT.601 luma (0.299 R + 0.587 G + 0.114 B) over the pixels it covers.
 */
export function grayThumbnail(
  rgb: Uint8Array,
  width: number,
  height: number,
  targetWidth = THUMBNAIL_WIDTH,
  options: { channels?: 3 | 4 } = {},
): Thumbnail {
  const channels = options.channels ?? 3;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `Frame size must be positive integers, got ${width}×${height}`,
    );
  }
  if (rgb.length < width * height * channels) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `Frame buffer holds ${rgb.length} bytes, a ${width}×${height} frame of ${channels} channels needs ${width * height * channels}`,
    );
  }
  const tw = Math.max(1, Math.min(width, Math.round(targetWidth)));
  const th = Math.max(1, Math.min(height, Math.round((height * tw) / width)));
  const luma = new Float32Array(width * height);
  for (let i = 0, p = 0; i < luma.length; i++, p += channels) {
    luma[i] = 0.299 * rgb[p]! + 0.587 * rgb[p + 1]! + 0.114 * rgb[p + 2]!;
  }
  // Separable box filter: columns first (width → tw for every row), then rows (height → th).
  const cols = areaWeights(width, tw);
  const rows = areaWeights(height, th);
  const narrow = new Float32Array(tw * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < tw; x++) {
      let sum = 0;
      for (const { index, weight } of cols[x]!) {
        sum += luma[row + index]! * weight;
      }
      narrow[y * tw + x] = sum;
    }
  }
  const data = new Float32Array(tw * th);
  for (let y = 0; y < th; y++) {
    for (const { index, weight } of rows[y]!) {
      const row = index * tw;
      for (let x = 0; x < tw; x++) {
        data[y * tw + x]! += narrow[row + x]! * weight;
      }
    }
  }
  return { width: tw, height: th, data, sourceWidth: width, sourceHeight: height };
}

/** Marks the thumbnail pixels a screen rectangle touches (any overlap masks the whole pixel). */
function maskRect(mask: Uint8Array, thumb: Thumbnail, rect: MaskRect): void {
  const sx = thumb.width / thumb.sourceWidth;
  const sy = thumb.height / thumb.sourceHeight;
  const x0 = Math.max(0, Math.floor(rect.x * sx));
  const y0 = Math.max(0, Math.floor(rect.y * sy));
  const x1 = Math.min(thumb.width, Math.ceil((rect.x + rect.width) * sx));
  const y1 = Math.min(thumb.height, Math.ceil((rect.y + rect.height) * sy));
  for (let y = y0; y < y1; y++) {
    mask.fill(1, y * thumb.width + x0, y * thumb.width + Math.max(x0, x1));
  }
}

/**
 * Compares two thumbnails of the same size: blocks of `blockSize` thumbnail pixels, a block
 * changed when the mean absolute difference of its unmasked pixels exceeds `blockThreshold`.
 * Masked: a {@link CURSOR_MASK} box at each pointer and every rect (mapped from the first
 * thumbnail's source pixels); a fully masked block does not count.
 */
export function screenDiff(
  a: Thumbnail,
  b: Thumbnail,
  options: ScreenDiffOptions = {},
): ScreenDiff {
  if (a.width !== b.width || a.height !== b.height) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `Thumbnails differ in size: ${a.width}×${a.height} and ${b.width}×${b.height}`,
    );
  }
  const blockSize = Math.max(1, Math.round(options.blockSize ?? BLOCK_SIZE));
  const threshold = (options.blockThreshold ?? BLOCK_THRESHOLD) * 255;
  const cursor = options.cursorMask ?? CURSOR_MASK;
  const mask = new Uint8Array(a.width * a.height);
  for (const p of options.pointers ?? []) {
    maskRect(mask, a, {
      x: p.x - cursor.left,
      y: p.y - cursor.top,
      width: cursor.left + cursor.right,
      height: cursor.top + cursor.bottom,
    });
  }
  for (const rect of options.rects ?? []) {
    maskRect(mask, a, rect);
  }
  let changedBlocks = 0;
  let totalBlocks = 0;
  let diffSum = 0;
  let pixels = 0;
  for (let by = 0; by < a.height; by += blockSize) {
    for (let bx = 0; bx < a.width; bx += blockSize) {
      let blockSum = 0;
      let blockPixels = 0;
      for (let y = by; y < Math.min(a.height, by + blockSize); y++) {
        for (let x = bx; x < Math.min(a.width, bx + blockSize); x++) {
          const i = y * a.width + x;
          if (mask[i] === 0) {
            blockSum += Math.abs(a.data[i]! - b.data[i]!);
            blockPixels++;
          }
        }
      }
      if (blockPixels === 0) {
        continue;
      }
      totalBlocks++;
      diffSum += blockSum;
      pixels += blockPixels;
      if (blockSum / blockPixels > threshold) {
        changedBlocks++;
      }
    }
  }
  return {
    changedFraction: totalBlocks === 0 ? 0 : changedBlocks / totalBlocks,
    meanAbsDiff: pixels === 0 ? 0 : diffSum / pixels / 255,
    changedBlocks,
    totalBlocks,
  };
}

/** True when the screens match: at most `maxChanged` of the blocks changed. */
export function isScreenMatch(diff: ScreenDiff, maxChanged = SCREEN_MATCH_MAX_CHANGED): boolean {
  return diff.changedFraction <= maxChanged;
}
