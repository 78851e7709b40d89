// Excluded windows on the screen (issue 26, item 6; docs/privacy.md §2): a window an exclusion
// rule matches shows its title and content in the video whenever it is mapped, focused or not.
// Each reading of the windows on the screen (recorder/windows/x11-window-stack.ts) gives the
// rectangles of the excluded ones; each rectangle becomes an `excluded-region` mark, opened when
// it first appears and ended when it is gone (or moved, or resized: the new rectangle is a mark
// of its own). The times err on the side of blanking: a rectangle may have appeared any time after
// the reading before the one that found it, so its mark starts at that earlier reading's start
// (the first reading's own start for what was there from the beginning), and it may have gone
// any time before the reading that no longer finds it ends, so its mark ends there.
import { EXCLUDED_REGION_MARK_KIND } from '../../shared/domain/privacy';
import type { WindowBounds } from '../windows/x11-props';
import type { ExclusionMarkSink } from './capture-exclusion';

/** An excluded window's rectangle in one reading. */
export type ExcludedRegion = {
  /** The X window id (client). */
  windowId: string;
  /** The rule that matched (`title:/…/`, `app:…`). */
  rule: string;
  /** The frame's rectangle, screen px. */
  bounds: WindowBounds;
};

type OpenRegion = { key: string; tMs: number };

/** The open marks of the excluded rectangles on the screen (one per session). */
export class ExcludedRegions {
  private readonly open = new Map<string, OpenRegion>();
  private previousStartMs: number | null = null;
  private isClosed = false;

  constructor(private readonly marks: ExclusionMarkSink) {}

  /** A complete reading taken between `startMs` and `endMs`. */
  reading(startMs: number, endMs: number, regions: readonly ExcludedRegion[]): void {
    if (this.isClosed) {
      return;
    }
    const since = Math.min(this.previousStartMs ?? startMs, startMs);
    this.previousStartMs = startMs;
    const seen = new Set<string>();
    for (const region of regions) {
      const b = region.bounds;
      const key = `${region.windowId} ${b.x},${b.y},${b.width}x${b.height}`;
      seen.add(key);
      if (this.open.has(key)) {
        continue;
      }
      const tMs = this.uniqueStart(since);
      this.open.set(key, { key, tMs });
      this.marks.open({
        tMs,
        kind: EXCLUDED_REGION_MARK_KIND,
        data: { rule: region.rule, bounds: { x: b.x, y: b.y, width: b.width, height: b.height } },
      });
    }
    for (const [key, region] of [...this.open]) {
      if (!seen.has(key)) {
        this.end(region, endMs);
      }
    }
  }

  /** Ends every open mark (the recording stops); later readings are ignored. */
  close(endMs: number): void {
    this.isClosed = true;
    for (const region of [...this.open.values()]) {
      this.end(region, endMs);
    }
  }

  private end(region: OpenRegion, endMs: number): void {
    this.open.delete(region.key);
    this.marks.end(EXCLUDED_REGION_MARK_KIND, region.tMs, Math.max(region.tMs, endMs));
  }

  // The sink ends a mark by its kind and start: two open at the same instant would end together,
  // so a later one starts a microsecond earlier (blanking a little more, never less).
  private uniqueStart(tMs: number): number {
    const taken = new Set([...this.open.values()].map((r) => r.tMs));
    let t = tMs;
    while (taken.has(t)) {
      t -= 0.001;
    }
    return t;
  }
}
