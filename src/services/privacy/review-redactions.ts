// The review UI's view of a recording's pixel redactions (issue 14, item 3; `privacy:redactions`):
// the active `redact-box` edits the player draws as black boxes, the excluded intervals (marks
// of kind `excluded`) it blanks whole and the rectangles of excluded windows on the screen (marks
// of kind `excluded-region`, issue 26 item 6) it blacks out, so the reviewer sees what will leave
// the machine. The library's video is never changed; exports apply the same list
// (redact-media.ts).
import { EXCLUDED_MARK_KIND, EXCLUDED_REGION_MARK_KIND } from '../../shared/domain/privacy';
import { excludedRegionBox } from './redact-media';
import { listEdits, listMarks, resolveRecordingSeq } from '../../store';
import type { Library } from '../library/library';

/** An active box redaction: its edit id, time range (recording clock, ms) and box (video px). */
export type ReviewBoxRedaction = {
  editId: number;
  startMs: number;
  endMs: number;
  box: { x: number; y: number; width: number; height: number };
};

/** An excluded interval (recording clock, ms; endMs null while still open). */
export type ReviewExcludedInterval = { startMs: number; endMs: number | null };

/** An excluded window's rectangle on the screen over a time range (endMs null: still open). */
export type ReviewExcludedRegion = ReviewExcludedInterval & {
  box: { x: number; y: number; width: number; height: number };
};

/** The active box redactions (log order), excluded intervals and excluded windows' rectangles
 * (time order) of a recording; a rectangle whose bounds cannot be read counts as an interval
 * (the exports blank the whole frame then). */
export function reviewRedactions(
  lib: Library,
  id: string,
): {
  boxes: ReviewBoxRedaction[];
  excluded: ReviewExcludedInterval[];
  regions: ReviewExcludedRegion[];
} {
  const { seq } = resolveRecordingSeq(lib.db, id);
  const boxes = listEdits(lib.db, seq, ['active']).flatMap((e) =>
    e.edit.op === 'redact-box'
      ? [{ editId: e.id, startMs: e.edit.startMs, endMs: e.edit.endMs, box: { ...e.edit.box } }]
      : [],
  );
  const excluded: ReviewExcludedInterval[] = [];
  const regions: ReviewExcludedRegion[] = [];
  for (const m of listMarks(lib.db, seq)) {
    const box = m.kind === EXCLUDED_REGION_MARK_KIND ? excludedRegionBox(m.data.bounds) : null;
    if (box) {
      regions.push({ startMs: m.tMs, endMs: m.endMs, box });
    } else if (m.kind === EXCLUDED_MARK_KIND || m.kind === EXCLUDED_REGION_MARK_KIND) {
      excluded.push({ startMs: m.tMs, endMs: m.endMs });
    }
  }
  return { boxes, excluded, regions };
}
