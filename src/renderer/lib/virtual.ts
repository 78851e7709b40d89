// Windowing math for fixed-row-height virtual lists (library table, AX tree).

/** Rows to render for a scroll position. */
export type VisibleRange = {
  /** First rendered row (inclusive). */
  start: number;
  /** Last rendered row + 1 (exclusive). */
  end: number;
  /** Pixel offset of `start` from the top of the list. */
  offsetPx: number;
  /** Height of the whole list, px. */
  totalPx: number;
};

/** Inputs of {@link visibleRange}. */
export type VisibleRangeInput = {
  /** Scroll offset of the viewport, px. */
  scrollTopPx: number;
  /** Viewport height, px. */
  viewportPx: number;
  /** Height of every row, px (> 0). */
  rowPx: number;
  /** Number of rows. */
  count: number;
  /** Extra rows rendered above and below the viewport; default 8. */
  overscan?: number;
};

// The rows a viewport shows (plus overscan), clamped to the list.
export function visibleRange(input: VisibleRangeInput): VisibleRange {
  const { rowPx, count } = input;
  const overscan = input.overscan ?? 8;
  const totalPx = Math.max(0, count * rowPx);
  if (count <= 0 || rowPx <= 0) {
    return { start: 0, end: 0, offsetPx: 0, totalPx };
  }
  const maxScroll = Math.max(0, totalPx - input.viewportPx);
  const top = Math.min(Math.max(0, input.scrollTopPx), maxScroll);
  const first = Math.floor(top / rowPx);
  const visibleCount = Math.ceil(Math.max(0, input.viewportPx) / rowPx) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + visibleCount + overscan);
  return { start, end, offsetPx: start * rowPx, totalPx };
}

// Scroll offset that brings row `index` into view (unchanged when it already is).
export function scrollToReveal(
  index: number,
  scrollTopPx: number,
  viewportPx: number,
  rowPx: number,
): number {
  const rowTop = index * rowPx;
  const rowBottom = rowTop + rowPx;
  if (rowTop < scrollTopPx) {
    return rowTop;
  }
  if (rowBottom > scrollTopPx + viewportPx) {
    return rowBottom - viewportPx;
  }
  return scrollTopPx;
}

// Indices of the pages of size `pageSize` that rows [start, end) touch.
export function pagesForRange(start: number, end: number, pageSize: number): number[] {
  if (end <= start || pageSize <= 0) {
    return [];
  }
  const pages: number[] = [];
  for (let p = Math.floor(start / pageSize); p <= Math.floor((end - 1) / pageSize); p++) {
    pages.push(p);
  }
  return pages;
}

/** Rows of a variable-height list to render, from their top offsets (see {@link rowOffsets}). */
export type VariableRangeInput = {
  /** Top of each row plus the list's end: `count + 1` ascending values, px from the list top. */
  offsets: readonly number[];
  /** Scroll offset of the viewport from the list top, px (may be negative: list below the top). */
  scrollTopPx: number;
  viewportPx: number;
  /** Extra pixels rendered above and below the viewport. */
  overscanPx: number;
};

// Top offsets of rows of the given heights with `gapPx` between them: `heights.length + 1` values,
// the last being the list's height (no gap after the last row).
export function rowOffsets(heights: readonly number[], gapPx: number): number[] {
  const offsets = new Array<number>(heights.length + 1);
  let y = 0;
  for (let i = 0; i < heights.length; i += 1) {
    offsets[i] = y;
    y += (heights[i] ?? 0) + (i < heights.length - 1 ? gapPx : 0);
  }
  offsets[heights.length] = y;
  return offsets;
}

/** Index of the last row whose top is at or before `y` (0 when none). */
function rowAt(offsets: readonly number[], y: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((offsets[mid] ?? 0) <= y) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return Math.max(0, lo);
}

// The rows of a variable-height list that meet the viewport widened by the overscan.
export function variableRange(input: VariableRangeInput): { start: number; end: number } {
  const count = input.offsets.length - 1;
  if (count <= 0) {
    return { start: 0, end: 0 };
  }
  const top = input.scrollTopPx - input.overscanPx;
  const bottom = input.scrollTopPx + Math.max(0, input.viewportPx) + input.overscanPx;
  const start = rowAt(input.offsets, top);
  const end = Math.min(count, rowAt(input.offsets, bottom) + 1);
  return { start, end: Math.max(end, start + 1) };
}
