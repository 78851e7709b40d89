import { describe, expect, it } from 'vitest';
import {
  pagesForRange,
  rowOffsets,
  scrollToReveal,
  variableRange,
  visibleRange,
} from '../../../src/renderer/lib/virtual';

describe('visibleRange', () => {
  it.each([
    // scrollTop, viewport, count, overscan → start, end, offset
    [0, 440, 10_000, 8, 0, 19, 0],
    [4400, 440, 10_000, 8, 92, 119, 92 * 44],
    [4410, 440, 10_000, 0, 100, 111, 100 * 44],
    // scrolled past the end (stale scrollTop after the list shrank): clamped
    [1_000_000, 440, 20, 8, 2, 20, 2 * 44],
    [0, 440, 5, 8, 0, 5, 0],
  ])(
    'scrollTop %i, viewport %i, %i rows, overscan %i',
    (top, vp, count, overscan, start, end, offset) => {
      const r = visibleRange({ scrollTopPx: top, viewportPx: vp, rowPx: 44, count, overscan });
      expect([r.start, r.end, r.offsetPx, r.totalPx]).toEqual([start, end, offset, count * 44]);
    },
  );

  it('renders a bounded number of rows for 10,000 recordings wherever it is scrolled', () => {
    for (const top of [0, 12_345, 200_000, 439_560]) {
      const r = visibleRange({
        scrollTopPx: top,
        viewportPx: 600,
        rowPx: 44,
        count: 10_000,
        overscan: 10,
      });
      expect(r.end - r.start).toBeLessThanOrEqual(Math.ceil(600 / 44) + 1 + 20);
      expect(r.start).toBeGreaterThanOrEqual(0);
      expect(r.end).toBeLessThanOrEqual(10_000);
    }
  });

  it('is empty without rows or before the viewport is measured', () => {
    expect(visibleRange({ scrollTopPx: 0, viewportPx: 0, rowPx: 44, count: 0 })).toEqual({
      start: 0,
      end: 0,
      offsetPx: 0,
      totalPx: 0,
    });
    const unmeasured = visibleRange({
      scrollTopPx: 0,
      viewportPx: 0,
      rowPx: 44,
      count: 100,
      overscan: 2,
    });
    expect(unmeasured.end - unmeasured.start).toBe(3);
  });
});

describe('pagesForRange', () => {
  it.each([
    [0, 30, 500, [0]],
    [490, 520, 500, [0, 1]],
    [500, 1000, 500, [1]],
    [9990, 10_000, 500, [19]],
    [10, 10, 500, []],
  ])('[%i, %i) with pages of %i → %o', (start, end, size, pages) => {
    expect(pagesForRange(start, end, size)).toEqual(pages);
  });
});

describe('scrollToReveal', () => {
  it.each([
    [5, 0, 440, 0], // visible: unchanged
    [20, 0, 440, 21 * 44 - 440], // below: bottom-aligned
    [2, 400, 440, 88], // above: top-aligned
  ])('row %i from scrollTop %i', (index, top, vp, expected) => {
    expect(scrollToReveal(index, top, vp, 44)).toBe(expected);
  });
});

describe('rowOffsets / variableRange (variable-height rows: the step list)', () => {
  it('puts the gap between rows, not after the last', () => {
    expect(rowOffsets([10, 20, 30], 5)).toEqual([0, 15, 40, 70]);
    expect(rowOffsets([], 5)).toEqual([0]);
  });

  it.each([
    // scrollTop, viewport, overscan → start, end (rows 0..9 of 100 px, no gap)
    [0, 250, 0, 0, 3],
    [150, 100, 0, 1, 3],
    [150, 100, 100, 0, 4],
    [950, 100, 0, 9, 10],
    // scrolled past the end (a stale scrollTop): the last row, never an empty window
    [5000, 100, 0, 9, 10],
    // the list starts below the viewport's top
    [-500, 100, 0, 0, 1],
  ])('scrollTop %i, viewport %i, overscan %i', (top, vp, overscan, start, end) => {
    const offsets = rowOffsets(new Array<number>(10).fill(100), 0);
    expect(
      variableRange({ offsets, scrollTopPx: top, viewportPx: vp, overscanPx: overscan }),
    ).toEqual({ start, end });
  });

  it('keeps the window small for 2,000 rows of mixed heights wherever it is scrolled', () => {
    const heights = Array.from({ length: 2000 }, (_, i) => 80 + (i % 3) * 20);
    const offsets = rowOffsets(heights, 6);
    const total = offsets.at(-1) ?? 0;
    for (const top of [0, 12_345, total / 2, total - 700]) {
      const r = variableRange({ offsets, scrollTopPx: top, viewportPx: 700, overscanPx: 900 });
      expect(r.end - r.start).toBeLessThanOrEqual(Math.ceil((700 + 1800) / 86) + 2);
      // the rows cover the viewport
      expect(offsets[r.start]).toBeLessThanOrEqual(top);
      expect(offsets[r.end] ?? total).toBeGreaterThanOrEqual(Math.min(total, top + 700));
    }
    expect(variableRange({ offsets: [0], scrollTopPx: 0, viewportPx: 700, overscanPx: 0 })).toEqual(
      { start: 0, end: 0 },
    );
  });
});
