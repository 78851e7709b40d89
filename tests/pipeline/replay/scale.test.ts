import { describe, expect, it } from 'vitest';
import { scalePoint } from '../../../src/pipeline/replay/scale';

const FULL_HD = { width: 1920, height: 1080 };
const HD = { width: 1280, height: 720 };

describe('scalePoint', () => {
  it('is the identity between equal screens', () => {
    expect(scalePoint({ x: 123, y: 456 }, FULL_HD, FULL_HD)).toEqual({ x: 123, y: 456 });
  });

  it('scales by the size ratio and rounds to integers', () => {
    expect(scalePoint({ x: 960, y: 540 }, FULL_HD, HD)).toEqual({ x: 640, y: 360 });
    expect(scalePoint({ x: 100, y: 101 }, FULL_HD, HD)).toEqual({ x: 67, y: 67 });
    expect(scalePoint({ x: 640.4, y: 359.6 }, HD, HD)).toEqual({ x: 640, y: 360 });
    expect(scalePoint({ x: 1919, y: 1079 }, FULL_HD, HD)).toEqual({ x: 1279, y: 719 });
  });

  it('moves between origins, negative ones included', () => {
    const left = { ...FULL_HD, origin: { x: -1920, y: 0 } };
    expect(scalePoint({ x: -960, y: 540 }, left, HD)).toEqual({ x: 640, y: 360 });
    const above = { ...HD, origin: { x: -1280, y: -720 } };
    expect(scalePoint({ x: 0, y: 0 }, FULL_HD, above)).toEqual({ x: -1280, y: -720 });
    expect(scalePoint({ x: -1920, y: 1079 }, left, above)).toEqual({ x: -1280, y: -1 });
    const right = { ...HD, origin: { x: 1920, y: 100 } };
    expect(scalePoint({ x: 960, y: 540 }, FULL_HD, right)).toEqual({ x: 2560, y: 460 });
  });

  it('clamps inside the target screen', () => {
    expect(scalePoint({ x: 1920, y: 1080 }, FULL_HD, FULL_HD)).toEqual({ x: 1919, y: 1079 });
    expect(scalePoint({ x: 2500, y: -5 }, FULL_HD, HD)).toEqual({ x: 1279, y: 0 });
    const left = { ...HD, origin: { x: -1280, y: 0 } };
    expect(scalePoint({ x: -10, y: 5000 }, FULL_HD, left)).toEqual({ x: -1280, y: 719 });
    // Rounding -0.4 gives -0; the result is a plain 0.
    expect(Object.is(scalePoint({ x: -0.4, y: 0 }, HD, HD).x, 0)).toBe(true);
  });
});
