// Computed keyframes per step: replaced as a whole by each computation.
import type { Db } from '../db';

/** One computed keyframe. */
export type KeyframeRecord = {
  stepId: string;
  /** Chosen time on the recording clock (ms); null when the video could not be read. */
  timeMs: number | null;
  /** Chosen video frame index; null when the video could not be read. */
  frame: number | null;
  /** PNG path relative to the library; null when the frame could not be decoded. */
  path: string | null;
  /** The step's keyframe search input when computed (JSON); a different input = stale. */
  inputJson: string;
  /** How the time was chosen (`differing-probe`, `lo`, `pre-press`, `none`). */
  source: string;
  /** Problems met (`CODE: message`). */
  diagnostics: string[];
  /** Epoch ms of the computation. */
  computedAtMs: number;
};

/** Replaces every keyframe row of a recording (call inside the caller's transaction). */
export function replaceKeyframes(
  db: Db,
  recordingSeq: number,
  records: readonly KeyframeRecord[],
): void {
  db.prepare(`DELETE FROM keyframes WHERE recording_seq = ?`).run(recordingSeq);
  const stmt = db.prepare(
    `INSERT INTO keyframes (recording_seq, step_id, time_ms, frame, path, input_json, source,
      diagnostics_json, computed_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const k of records) {
    stmt.run(
      recordingSeq,
      k.stepId,
      k.timeMs,
      k.frame,
      k.path,
      k.inputJson,
      k.source,
      JSON.stringify(k.diagnostics),
      k.computedAtMs,
    );
  }
}

/** A recording's keyframe rows by step id. */
export function listKeyframes(db: Db, recordingSeq: number): Map<string, KeyframeRecord> {
  const rows = db
    .prepare(
      `SELECT step_id, time_ms, frame, path, input_json, source, diagnostics_json, computed_at_ms
       FROM keyframes WHERE recording_seq = ?`,
    )
    .all(recordingSeq) as {
    step_id: string;
    time_ms: number | null;
    frame: number | null;
    path: string | null;
    input_json: string;
    source: string;
    diagnostics_json: string;
    computed_at_ms: number;
  }[];
  return new Map(
    rows.map((r) => [
      r.step_id,
      {
        stepId: r.step_id,
        timeMs: r.time_ms,
        frame: r.frame,
        path: r.path,
        inputJson: r.input_json,
        source: r.source,
        diagnostics: JSON.parse(r.diagnostics_json) as string[],
        computedAtMs: r.computed_at_ms,
      },
    ]),
  );
}
