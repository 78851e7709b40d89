// A recording's stored CoT rows, read out whole and put back: how the hub carries the CoT its
// `cot` job made from one scratch library to another (docs/cot.md "In team mode"). The rows keep
// their input fingerprints, so a library whose steps differ treats them as stale.
import {
  getCotSummary,
  listCotSteps,
  resolveRecordingSeq,
  saveCotStep,
  saveCotSummary,
  type StoredCotStep,
  type StoredCotSummary,
} from '../../store';
import type { Library } from '../library/library';

export type { StoredCotStep, StoredCotSummary };

/** Every CoT row of a recording. */
export type CotRows = { steps: StoredCotStep[]; summary: StoredCotSummary | null };

/** Reads recording `id`'s CoT rows. */
export function readCotRows(lib: Library, id: string): CotRows {
  const { seq } = resolveRecordingSeq(lib.db, id);
  return { steps: listCotSteps(lib.db, seq), summary: getCotSummary(lib.db, seq) };
}

/** Stores `rows` as recording `id`'s CoT (rows of the same steps are replaced). */
export function writeCotRows(lib: Library, id: string, rows: CotRows): void {
  const { seq } = resolveRecordingSeq(lib.db, id);
  lib.db.transaction(() => {
    for (const s of rows.steps) {
      saveCotStep(lib.db, seq, s);
    }
    if (rows.summary) {
      saveCotSummary(lib.db, seq, rows.summary);
    }
  })();
}
