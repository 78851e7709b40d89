// Ends the `excluded` marks a recorder that died left open (docs/privacy.md §2): the session
// stores the mark when an excluded window comes to the front and sets its end when focus leaves
// or the recording stops; after a crash the end is the next window-timeline entry that is not
// excluded, else the end of what was recorded (the video's last frame, the last event).
import {
  EXCLUDED_MARK_KIND,
  EXCLUDED_REGION_MARK_KIND,
  EXCLUDED_WINDOW_TITLE,
} from '../../shared/domain/privacy';
import type { RawEvent } from '../../shared/domain';
import {
  endOpenMarks,
  listMarks,
  listVideos,
  listWindows,
  readEvents,
  type MarkRecord,
} from '../../store';
import type { Library } from '../library/library';

/** Sets an end on every open `excluded` and `excluded-region` mark of the recording; returns how
 * many it ended. A region (an excluded window on the screen) lasts to the end of what was
 * recorded: nothing tells when the window went. */
export function endOpenExclusionMarks(lib: Library, seq: number): number {
  const marks = listMarks(lib.db, seq);
  const open = marks.filter((m) => m.kind === EXCLUDED_MARK_KIND && m.endMs === null);
  const regions = marks.filter((m) => m.kind === EXCLUDED_REGION_MARK_KIND && m.endMs === null);
  if (open.length === 0 && regions.length === 0) {
    return 0;
  }
  const windows = listWindows(lib.db, seq);
  const videoEnd = Math.max(
    Number.NEGATIVE_INFINITY,
    ...listVideos(lib.db, seq).map((v) => v.startMs + v.durationMs),
  );
  let ended = 0;
  lib.db.transaction(() => {
    for (const mark of open) {
      const next = windows.find((w) => w.tMs > mark.tMs && w.title !== EXCLUDED_WINDOW_TITLE);
      const lastEvent = readEvents(lib.db, seq, {
        fromMs: mark.tMs,
        toMs: Number.MAX_SAFE_INTEGER,
      }).at(-1);
      const endMs = next?.tMs ?? Math.max(mark.tMs, videoEnd, lastEvent?.tMs ?? mark.tMs);
      ended += endOpenMarks(lib.db, seq, EXCLUDED_MARK_KIND, mark.tMs, Math.round(endMs));
    }
    for (const mark of regions) {
      const lastEvent = readEvents(lib.db, seq, {
        fromMs: mark.tMs,
        toMs: Number.MAX_SAFE_INTEGER,
      }).at(-1);
      const endMs = Math.max(mark.tMs, videoEnd, lastEvent?.tMs ?? mark.tMs);
      // rounded up: the end is included, and must not fall short of the last frame
      ended += endOpenMarks(lib.db, seq, EXCLUDED_REGION_MARK_KIND, mark.tMs, Math.ceil(endMs));
    }
  })();
  return ended;
}

/** A rectangle in screen pixels, as an `excluded` mark stores its window's bounds. */
type Bounds = { x: number; y: number; width: number; height: number };

function boundsOf(data: Record<string, unknown>): Bounds | null {
  const b = data.bounds as Partial<Bounds> | null | undefined;
  return b &&
    [b.x, b.y, b.width, b.height].every((n) => typeof n === 'number' && Number.isFinite(n))
    ? (b as Bounds)
    : null;
}

/**
 * The events that may leave the machine as raw input (docs/privacy.md §2): pointer moves over an
 * excluded window while it had focus (inside an `excluded` interval and inside the window's
 * bounds, or anywhere in the interval when the bounds are unknown) are left out. Keys and buttons
 * aimed at it were never stored; moves stay in the library, where the reduction needs them.
 */
export function withoutExcludedMoves<E extends Pick<RawEvent, 'tMs' | 'kind' | 'x' | 'y'>>(
  events: readonly E[],
  marks: readonly MarkRecord[],
): E[] {
  const spans = marks
    .filter((m) => m.kind === EXCLUDED_MARK_KIND)
    .map((m) => ({
      start: m.tMs,
      end: m.endMs ?? Number.POSITIVE_INFINITY,
      bounds: boundsOf(m.data),
    }));
  if (!spans.length) {
    return [...events];
  }
  const over = (e: E) =>
    spans.some(
      (s) =>
        e.tMs >= s.start &&
        e.tMs < s.end &&
        (s.bounds === null ||
          e.x === null ||
          e.y === null ||
          (e.x >= s.bounds.x &&
            e.x < s.bounds.x + s.bounds.width &&
            e.y >= s.bounds.y &&
            e.y < s.bounds.y + s.bounds.height)),
    );
  return events.filter((e) => e.kind !== 'move' || !over(e));
}

/**
 * What the upload's dump of the recording's rows does about its excluded intervals (null: it has
 * none): the rows of pointer moves over an excluded window while it had focus are left out (as
 * {@link withoutExcludedMoves} leaves them out of exports), and each `excluded` and
 * `excluded-region` mark leaves without its rule, which would name the application or quote the title (its bounds and times
 * stay: they let the receiving library blank the frames).
 */
export function exclusionDumpFilter(
  lib: Library,
  seq: number,
): ((table: string, row: Record<string, unknown>) => Record<string, unknown> | null) | null {
  const marks = listMarks(lib.db, seq);
  if (!marks.some((m) => m.kind === EXCLUDED_MARK_KIND || m.kind === EXCLUDED_REGION_MARK_KIND)) {
    return null;
  }
  const events = readEvents(lib.db, seq);
  const kept = new Set(withoutExcludedMoves(events, marks).map((e) => e.idx));
  const dropped = new Set(events.filter((e) => !kept.has(e.idx)).map((e) => e.idx));
  return (table, row) => {
    if (table === 'events') {
      return typeof row.idx === 'number' && dropped.has(row.idx) ? null : row;
    }
    if (
      table === 'marks' &&
      (row.kind === EXCLUDED_MARK_KIND || row.kind === EXCLUDED_REGION_MARK_KIND) &&
      typeof row.data_json === 'string'
    ) {
      const { rule: _rule, ...data } = JSON.parse(row.data_json) as Record<string, unknown>;
      return { ...row, data_json: JSON.stringify(data) };
    }
    return row;
  };
}
