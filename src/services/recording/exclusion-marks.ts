// Ends the `excluded` marks a recorder that died left open (docs/privacy.md §2): the session
// stores the mark when an excluded window comes to the front and sets its end when focus leaves
// or the recording stops; after a crash the end is the next window-timeline entry that is not
// excluded, else the end of what was recorded (the video's last frame, the last event).
import { EXCLUDED_MARK_KIND, EXCLUDED_WINDOW_TITLE } from '../../shared/domain/privacy';
import { endOpenMarks, listMarks, listVideos, listWindows, readEvents } from '../../store';
import type { Library } from '../library/library';

/** Sets an end on every open `excluded` mark of the recording; returns how many it ended. */
export function endOpenExclusionMarks(lib: Library, seq: number): number {
  const open = listMarks(lib.db, seq).filter(
    (m) => m.kind === EXCLUDED_MARK_KIND && m.endMs === null,
  );
  if (open.length === 0) {
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
  })();
  return ended;
}
