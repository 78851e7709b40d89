// A recording's warnings (`warnings_json`): what went wrong while it was captured or recovered,
// shown by `show` and the recording page. Appended to during capture, so a crash keeps them.
import type { Db } from '../db';

/** The warnings stored on a recording row (empty when none or no such row). */
export function readRecordingWarnings(db: Db, seq: number): string[] {
  const row = db.prepare(`SELECT warnings_json FROM recordings WHERE seq = ?`).get(seq) as
    { warnings_json: string | null } | undefined;
  if (!row?.warnings_json) {
    return [];
  }
  const parsed = JSON.parse(row.warnings_json) as unknown;
  return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : [];
}

/** Appends warnings to a recording row, skipping ones it already carries; returns the list. */
export function addRecordingWarnings(
  db: Db,
  seq: number,
  warnings: readonly string[],
  nowMs: number,
): string[] {
  return db.transaction(() => {
    const current = readRecordingWarnings(db, seq);
    const next = [...current];
    for (const w of warnings) {
      if (!next.includes(w)) {
        next.push(w);
      }
    }
    if (next.length !== current.length) {
      db.prepare(`UPDATE recordings SET warnings_json = ?, updated_at_ms = ? WHERE seq = ?`).run(
        JSON.stringify(next),
        nowMs,
        seq,
      );
    }
    return next;
  })();
}
