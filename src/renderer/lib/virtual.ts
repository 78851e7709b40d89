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
