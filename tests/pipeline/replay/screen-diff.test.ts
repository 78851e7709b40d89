import { describe, expect, it } from 'vitest';
import {
  BLOCK_THRESHOLD,
  CURSOR_MASK,
  grayThumbnail,
  isScreenMatch,
  SCREEN_MATCH_MAX_CHANGED,
  screenDiff,
  THUMBNAIL_WIDTH,
} from '../../../src/pipeline/replay/screen-diff';

const W = 1280;
const H = 800;
type Rgb = [number, number, number];

/** A packed RGB24 frame filled with one colour. */
function solid(color: Rgb, width = W, height = H): Uint8Array {
  const frame = new Uint8Array(width * height * 3);
  for (let i = 0; i < frame.length; i += 3) {
    frame.set(color, i);
  }
  return frame;
}

function rect(frame: Uint8Array, x: number, y: number, w: number, h: number, color: Rgb): void {
  for (let yy = Math.max(0, y); yy < Math.min(H, y + h); yy++) {
    for (let xx = Math.max(0, x); xx < Math.min(W, x + w); xx++) {
      frame.set(color, (yy * W + xx) * 3);
    }
  }
}

/** Seeded PRNG (mulberry32), so the textures are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A page of 'text': lines of dark words of random widths on white, shifted right by `dx`. */
function textPage(seed: number, dx = 0): Uint8Array {
  const frame = solid([255, 255, 255]);
  const next = random(seed);
  for (let y = 40; y < H - 40; y += 24) {
    let x = 40;
    while (x < W - 120) {
      const word = 20 + Math.floor(next() * 60);
      rect(frame, x + dx, y, word, 10, [40, 40, 40]);
      x += word + 8 + Math.floor(next() * 10);
    }
  }
  return frame;
}

/** A 12×19 arrow cursor (black, white edge) with its hotspot (tip) at (px, py). */
function drawCursor(frame: Uint8Array, px: number, py: number): void {
  for (let row = 0; row < 19; row++) {
    const span = Math.min(12, Math.floor((row * 12) / 16) + 1);
    rect(frame, px, py + row, span, 1, [255, 255, 255]);
    if (span > 2) {
      rect(frame, px + 1, py + row, span - 2, 1, [0, 0, 0]);
    }
  }
}

const thumb = (frame: Uint8Array) => grayThumbnail(frame, W, H);

describe('grayThumbnail', () => {
  it('keeps the aspect ratio at the default width', () => {
    const t = thumb(solid([0, 0, 0]));
    expect([t.width, t.height, t.sourceWidth, t.sourceHeight]).toEqual([160, 100, W, H]);
    expect(THUMBNAIL_WIDTH).toBe(160);
    expect(grayThumbnail(solid([0, 0, 0], 1366, 768), 1366, 768).height).toBe(90);
    // Never wider than the frame.
    expect(grayThumbnail(solid([0, 0, 0], 100, 50), 100, 50).width).toBe(100);
  });

  it('is BT.601 luma, the same from RGB and RGBA', () => {
    const red = thumb(solid([255, 0, 0]));
    expect(red.data[0]).toBeCloseTo(0.299 * 255, 3);
    const green = thumb(solid([0, 255, 0]));
    expect(green.data[1234]).toBeCloseTo(0.587 * 255, 3);
    const rgba = new Uint8Array(4 * 4 * 4).fill(255);
    for (let i = 0; i < rgba.length; i += 4) {
      rgba.set([0, 0, 255], i);
    }
    expect(grayThumbnail(rgba, 4, 4, 2, { channels: 4 }).data[3]).toBeCloseTo(0.114 * 255, 3);
  });

  it('averages by area, also over fractional pixel overlaps', () => {
    // 4×2 frame: two black columns, two white ones.
    const frame = solid([255, 255, 255], 4, 2);
    for (const i of [0, 1, 4, 5]) {
      frame.set([0, 0, 0], i * 3);
    }
    expect(Array.from(grayThumbnail(frame, 4, 2, 2).data)).toEqual([0, 255]);
    // Width 3: the middle thumbnail pixel covers 2/3 of a black and 2/3 of a white pixel.
    const third = grayThumbnail(frame, 4, 2, 3);
    expect([third.width, third.height]).toEqual([3, 2]);
    expect(third.data[0]).toBeCloseTo(0, 3);
    expect(third.data[1]).toBeCloseTo(127.5, 3);
    expect(third.data[2]).toBeCloseTo(255, 3);
  });

  it('refuses a buffer too small for its size', () => {
    expect(() => grayThumbnail(new Uint8Array(10), 4, 4)).toThrow(/needs 48/);
  });
});

describe('screenDiff', () => {
  const page = textPage(1);
  const pageThumb = thumb(page);

  it('finds nothing between identical frames; 40×25 blocks of 4×4 on 1280×800', () => {
    const d = screenDiff(pageThumb, thumb(textPage(1)));
    expect(d).toEqual({ changedFraction: 0, meanAbsDiff: 0, changedBlocks: 0, totalBlocks: 1000 });
    expect(isScreenMatch(d)).toBe(true);
  });

  it('tolerates compression-like noise (±6 per channel)', () => {
    const noisy = textPage(1);
    const next = random(7);
    for (let i = 0; i < noisy.length; i++) {
      noisy[i] = Math.max(0, Math.min(255, noisy[i]! + Math.round((next() - 0.5) * 12)));
    }
    const d = screenDiff(pageThumb, thumb(noisy));
    expect(d.changedBlocks).toBe(0);
    expect(d.meanAbsDiff).toBeLessThan(2 / 255);
  });

  it('tolerates a blinking 2-px caret', () => {
    for (const [x, y] of [
      [600, 400],
      [603, 405],
      [636, 412],
    ] as const) {
      const caret = textPage(1);
      rect(caret, x, y, 2, 16, [0, 0, 0]);
      const d = screenDiff(pageThumb, thumb(caret));
      expect(d.changedBlocks).toBeLessThanOrEqual(1);
      expect(d.changedFraction).toBeLessThan(SCREEN_MATCH_MAX_CHANGED);
      expect(isScreenMatch(d)).toBe(true);
    }
  });

  it('sees a cursor unmasked and nothing once the pointer is masked', () => {
    const white = thumb(solid([255, 255, 255]));
    const withCursor = solid([255, 255, 255]);
    drawCursor(withCursor, 640, 392);
    const cursorThumb = thumb(withCursor);
    const seen = screenDiff(white, cursorThumb);
    expect(seen.changedBlocks).toBe(1);
    const masked = screenDiff(white, cursorThumb, { pointers: [{ x: 640, y: 392 }] });
    expect(masked.changedBlocks).toBe(0);
    expect(masked.meanAbsDiff).toBe(0);
    expect(masked.totalBlocks).toBeLessThan(1000);
    expect(masked.totalBlocks).toBeGreaterThan(990);
    // A mask elsewhere does not hide it.
    expect(screenDiff(white, cursorThumb, { pointers: [{ x: 100, y: 100 }] }).changedBlocks).toBe(
      1,
    );
    expect(CURSOR_MASK.right).toBeGreaterThanOrEqual(24);
  });

  it('masks a cursor on a text page at either pointer (recorded and live)', () => {
    const live = textPage(1);
    drawCursor(live, 300, 500);
    const recorded = textPage(1);
    drawCursor(recorded, 900, 200);
    const d = screenDiff(thumb(recorded), thumb(live), {
      pointers: [
        { x: 900, y: 200 },
        { x: 300, y: 500 },
      ],
    });
    expect(d.changedBlocks).toBe(0);
  });

  it('flags a dialog opening', () => {
    const dialog = textPage(1);
    rect(dialog, 440, 280, 400, 240, [90, 90, 90]);
    rect(dialog, 442, 282, 396, 236, [236, 236, 236]);
    rect(dialog, 460, 300, 200, 10, [40, 40, 40]);
    const d = screenDiff(pageThumb, thumb(dialog));
    expect(d.changedFraction).toBeGreaterThan(0.05);
    expect(isScreenMatch(d)).toBe(false);
    // The same dialog masked as a rect is ignored.
    const masked = screenDiff(pageThumb, thumb(dialog), {
      rects: [{ x: 440, y: 280, width: 400, height: 240 }],
    });
    expect(masked.changedBlocks).toBe(0);
  });

  it('flags a 200×150 drop-down menu, not a 120×100 one (the 2 % bound)', () => {
    const menu = (w: number, h: number) => {
      const frame = textPage(1);
      rect(frame, 300, 200, w, h, [120, 120, 120]);
      rect(frame, 301, 201, w - 2, h - 2, [250, 250, 250]);
      for (let y = 210; y < 200 + h - 10; y += 24) {
        rect(frame, 312, y, w / 2, 10, [40, 40, 40]);
      }
      return screenDiff(pageThumb, thumb(frame));
    };
    const large = menu(200, 150);
    expect(large.changedFraction).toBeGreaterThan(0.025);
    expect(isScreenMatch(large)).toBe(false);
    const small = menu(120, 100);
    expect(small.changedFraction).toBeGreaterThan(0.01);
    expect(isScreenMatch(small)).toBe(true);
  });

  it('flags a different page and a plain colour change', () => {
    const other = screenDiff(pageThumb, thumb(textPage(2)));
    expect(other.changedFraction).toBeGreaterThan(0.3);
    expect(isScreenMatch(other)).toBe(false);
    const dark = screenDiff(thumb(solid([255, 255, 255])), thumb(solid([30, 30, 30])));
    expect(dark.changedFraction).toBe(1);
    expect(dark.meanAbsDiff).toBeCloseTo(225 / 255, 3);
  });

  it('flags a layout shifted by 16 px', () => {
    const d = screenDiff(pageThumb, thumb(textPage(1, 16)));
    expect(d.changedFraction).toBeGreaterThan(0.1);
    expect(isScreenMatch(d)).toBe(false);
  });

  it('takes the block size and threshold as options; refuses thumbnails of other sizes', () => {
    const caret = textPage(1);
    rect(caret, 600, 400, 2, 16, [0, 0, 0]);
    const fine = screenDiff(pageThumb, thumb(caret), { blockSize: 1, blockThreshold: 1 / 255 });
    expect(fine.totalBlocks).toBe(16_000);
    expect(fine.changedBlocks).toBe(2);
    expect(BLOCK_THRESHOLD).toBeCloseTo(10 / 255, 10);
    const small = grayThumbnail(page, W, H, 80);
    expect(() => screenDiff(pageThumb, small)).toThrow(/differ in size/);
  });

  it('counts a fully masked screen as matching with no blocks', () => {
    const d = screenDiff(thumb(solid([0, 0, 0])), thumb(solid([255, 255, 255])), {
      rects: [{ x: -10, y: -10, width: 2000, height: 2000 }],
    });
    expect(d).toEqual({ changedFraction: 0, meanAbsDiff: 0, changedBlocks: 0, totalBlocks: 0 });
  });
});
