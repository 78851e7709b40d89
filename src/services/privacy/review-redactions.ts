// The review UI's view of a recording's pixel redactions (issue 14, item 3; `privacy:redactions`):
// the active `redact-box` edits the player draws as black boxes and the excluded intervals (marks
// of kind `excluded`) it blanks whole, so the reviewer sees what will leave the machine. The
// library's video is never changed; exports apply the same list (export/redact-media.ts).
import { EXCLUDED_MARK_KIND } from '../../shared/domain/privacy';
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

/** The active box redactions (log order) and excluded intervals (time order) of a recording. */
export function reviewRedactions(
  lib: Library,
  id: string,
): { boxes: ReviewBoxRedaction[]; excluded: ReviewExcludedInterval[] } {
  const { seq } = resolveRecordingSeq(lib.db, id);
  const boxes = listEdits(lib.db, seq, ['active']).flatMap((e) =>
    e.edit.op === 'redact-box'
      ? [{ editId: e.id, startMs: e.edit.startMs, endMs: e.edit.endMs, box: { ...e.edit.box } }]
      : [],
  );
  const excluded = listMarks(lib.db, seq)
    .filter((m) => m.kind === EXCLUDED_MARK_KIND)
    .map((m) => ({ startMs: m.tMs, endMs: m.endMs }));
  return { boxes, excluded };
}
