// The video segments of a recording with the display geometry each was captured on
// (docs/architecture.md §5 "Coordinates"): read from `capture_json.segments`, which the
// recorder's sink writes as each segment starts and finalising completes with its end.
import type { DisplayGeometry, VideoSegmentInfo } from '../../shared/domain';
import type { Db } from '../db';

type StoredSegmentJson = {
  path?: unknown;
  videoStartMs?: unknown;
  endMs?: unknown;
  display?: Partial<DisplayGeometry>;
};

/**
 * The segments of a recording in start order. A segment stored before displays were (older
 * recordings) gets the recording's own display; imports have none.
 */
export function listVideoSegments(db: Db, seq: number): VideoSegmentInfo[] {
  const row = db
    .prepare(
      `SELECT capture_json, screen_width, screen_height, scale_factor, display_x, display_y
       FROM recordings WHERE seq = ?`,
    )
    .get(seq) as
    | {
        capture_json: string | null;
        screen_width: number;
        screen_height: number;
        scale_factor: number;
        display_x: number;
        display_y: number;
      }
    | undefined;
  if (!row?.capture_json) {
    return [];
  }
  const capture = JSON.parse(row.capture_json) as { segments?: unknown };
  const stored = Array.isArray(capture.segments) ? (capture.segments as StoredSegmentJson[]) : [];
  const fallback: DisplayGeometry = {
    x: row.display_x,
    y: row.display_y,
    width: row.screen_width,
    height: row.screen_height,
    scale: row.scale_factor,
  };
  const num = (v: unknown, d: number): number => (typeof v === 'number' ? v : d);
  return stored
    .filter((s) => s && typeof s.path === 'string' && typeof s.videoStartMs === 'number')
    .map((s) => ({
      path: s.path as string,
      startMs: s.videoStartMs as number,
      endMs: typeof s.endMs === 'number' ? s.endMs : null,
      display: s.display
        ? {
            x: num(s.display.x, fallback.x),
            y: num(s.display.y, fallback.y),
            width: num(s.display.width, fallback.width),
            height: num(s.display.height, fallback.height),
            scale: num(s.display.scale, fallback.scale),
          }
        : fallback,
    }))
    .sort((a, b) => a.startMs - b.startMs);
}
