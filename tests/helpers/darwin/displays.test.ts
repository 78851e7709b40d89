import { describe, expect, it } from 'vitest';
import type { CgDisplay } from '../../../src/helpers/darwin/ax-backend';
import {
  layoutDisplays,
  pixelToPoint,
  pointToPixel,
  rectToPixels,
  toHelperDisplays,
} from '../../../src/helpers/darwin/displays';

// A 2× Retina primary (1440×900 pt) with a 1× display (1920×1080 pt) left of it, top-aligned.
const MIXED: CgDisplay[] = [
  { id: 1, bounds: { x: 0, y: 0, width: 1440, height: 900 }, scale: 2, primary: true },
  { id: 2, bounds: { x: -1920, y: 0, width: 1920, height: 1080 }, scale: 1, primary: false },
];

describe('darwin display layout (points → pixels)', () => {
  it('is point × scale from the primary origin when every display has one scale', () => {
    const layout = layoutDisplays([
      { id: 1, bounds: { x: 0, y: 0, width: 1440, height: 900 }, scale: 2, primary: true },
      { id: 2, bounds: { x: -1280, y: -200, width: 1280, height: 800 }, scale: 2, primary: false },
    ]);
    expect(layout.unit).toBe(2);
    expect(pointToPixel(layout, { x: 100, y: 50 })).toEqual({ x: 200, y: 100 });
    // left of and above the primary: negative pixels
    expect(pointToPixel(layout, { x: -1000, y: -100 })).toEqual({ x: -2000, y: -200 });
    expect(toHelperDisplays(layout)).toEqual([
      {
        id: '1',
        bounds: { x: 0, y: 0, width: 2880, height: 1800 },
        scale: 2,
        primary: true,
        listIndex: 0,
      },
      {
        id: '2',
        bounds: { x: -2560, y: -400, width: 2560, height: 1600 },
        scale: 2,
        primary: false,
        listIndex: 1,
      },
    ]);
  });

  it('keeps a 1× display left of a 2× primary negative and apart from it', () => {
    const layout = layoutDisplays(MIXED);
    const [primary, left] = toHelperDisplays(layout);
    expect([primary?.listIndex, left?.listIndex]).toEqual([0, 1]);
    expect(primary?.bounds).toEqual({ x: 0, y: 0, width: 2880, height: 1800 });
    // origin scaled by the largest scale (2), size by its own (1): no overlap with the primary
    expect(left?.bounds).toEqual({ x: -3840, y: 0, width: 1920, height: 1080 });
    expect(left!.bounds.x + left!.bounds.width).toBeLessThanOrEqual(primary!.bounds.x);
    // a point on the 1× display: one pixel per point from that display's pixel origin
    expect(pointToPixel(layout, { x: -1920 + 10, y: 20 })).toEqual({ x: -3830, y: 20 });
    // on the 2× primary: two pixels per point
    expect(pointToPixel(layout, { x: 10, y: 20 })).toEqual({ x: 20, y: 40 });
  });

  it('converts pixels back to points on the right display (elementAt queries)', () => {
    const layout = layoutDisplays(MIXED);
    expect(pixelToPoint(layout, { x: -3830, y: 20 })).toEqual({ x: -1910, y: 20 });
    expect(pixelToPoint(layout, { x: 20, y: 41 })).toEqual({ x: 10, y: 20.5 });
    for (const p of [
      { x: -1919, y: 5 },
      { x: -1, y: 1079 },
      { x: 0, y: 0 },
      { x: 1439, y: 899 },
    ]) {
      expect(pixelToPoint(layout, pointToPixel(layout, p))).toEqual(p);
    }
  });

  it('converts a rectangle in the frame of the display holding its centre', () => {
    const layout = layoutDisplays(MIXED);
    expect(rectToPixels(layout, { x: 100, y: 100, width: 300, height: 200 })).toEqual({
      x: 200,
      y: 200,
      width: 600,
      height: 400,
    });
    expect(rectToPixels(layout, { x: -1900, y: 10, width: 100, height: 50 })).toEqual({
      x: -3820,
      y: 10,
      width: 100,
      height: 50,
    });
    // a window straddling both, its centre on the primary: extrapolated in the primary's frame
    expect(rectToPixels(layout, { x: -100, y: 0, width: 400, height: 100 })).toEqual({
      x: -200,
      y: 0,
      width: 800,
      height: 200,
    });
  });

  it('falls back to the nearest display off screen and to scale 1 without displays', () => {
    const layout = layoutDisplays(MIXED);
    expect(pointToPixel(layout, { x: 2000, y: 0 })).toEqual({ x: 4000, y: 0 });
    const empty = layoutDisplays([]);
    expect(empty.unit).toBe(1);
    expect(pointToPixel(empty, { x: 3, y: 4 })).toEqual({ x: 3, y: 4 });
    expect(toHelperDisplays(empty)).toEqual([]);
  });
});
