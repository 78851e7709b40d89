import { describe, expect, it } from 'vitest';
import { canvasOf, isSameGeometry, segmentAt } from '../../../src/shared/domain';

const geometry = { x: 0, y: 0, width: 1280, height: 800, scale: 1 };

describe('segmentAt', () => {
  const segments = [
    { path: 'a', startMs: 1000, endMs: 5000, display: geometry },
    { path: 'b', startMs: 6000, endMs: 9000, display: { ...geometry, width: 800, height: 600 } },
  ];

  it('picks the segment that started last at or before the time', () => {
    expect(segmentAt(segments, 1000)?.path).toBe('a');
    expect(segmentAt(segments, 4999)?.path).toBe('a');
    expect(segmentAt(segments, 6000)?.path).toBe('b');
    expect(segmentAt(segments, 20_000)?.path).toBe('b');
  });

  it('gives a time in the pause between two segments to the one before, and an early time to the first', () => {
    expect(segmentAt(segments, 5500)?.path).toBe('a');
    expect(segmentAt(segments, 0)?.path).toBe('a');
  });

  it('does not depend on input order and is null without segments', () => {
    expect(segmentAt([...segments].reverse(), 7000)?.path).toBe('b');
    expect(segmentAt([...segments].reverse(), 10)?.path).toBe('a');
    expect(segmentAt([], 10)).toBeNull();
  });
});

describe('geometry helpers', () => {
  it('compares every field and sizes the canvas that holds all segments', () => {
    expect(isSameGeometry(geometry, { ...geometry })).toBe(true);
    expect(isSameGeometry(geometry, { ...geometry, x: -1920 })).toBe(false);
    expect(isSameGeometry(geometry, { ...geometry, scale: 2 })).toBe(false);
    expect(
      canvasOf([
        { width: 1280, height: 800 },
        { width: 1024, height: 900 },
      ]),
    ).toEqual({ width: 1280, height: 900 });
  });
});
