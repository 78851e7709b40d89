// Reduced steps: replaced as a whole on (re-)reduction; edits live in their own log.
import type { Step, StepKind } from '../../shared/domain';
import type { Db } from '../db';

type StepData = Pick<
  Step,
  'calls' | 'eventStartIdx' | 'coordinate' | 'preMove' | 'target' | 'extra' | 'diagnostics'
>;

type StepRow = {
  step_id: string;
  ord: number;
  kind: string;
  start_ms: number;
  end_ms: number;
  description: string;
  label: string;
  data_json: string;
};

/** Replaces every step of a recording with `steps` (ord = array position). */
export function replaceSteps(
  db: Db,
  recordingSeq: number,
  steps: readonly Step[],
  source: string,
): void {
  db.prepare(`DELETE FROM steps WHERE recording_seq = ?`).run(recordingSeq);
  const stmt = db.prepare(
    `INSERT INTO steps (recording_seq, step_id, ord, kind, start_ms, end_ms, description, label,
      data_json, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  steps.forEach((s, ord) => {
    const data: StepData = {
      calls: s.calls,
      eventStartIdx: s.eventStartIdx,
      coordinate: s.coordinate,
      preMove: s.preMove,
      target: s.target,
      extra: s.extra,
      diagnostics: s.diagnostics,
    };
    stmt.run(
      recordingSeq,
      s.id,
      ord,
      s.kind,
      s.startMs,
      s.endMs,
      s.description,
      s.label,
      JSON.stringify(data),
      source,
    );
  });
}

/** Lists a recording's steps in order. */
export function listSteps(db: Db, recordingSeq: number): Step[] {
  const rows = db
    .prepare(`SELECT * FROM steps WHERE recording_seq = ? ORDER BY ord`)
    .all(recordingSeq) as StepRow[];
  return rows.map((r) => {
    const data = JSON.parse(r.data_json) as StepData;
    return {
      id: r.step_id,
      index: r.ord,
      kind: r.kind as StepKind,
      description: r.description,
      label: r.label,
      startMs: r.start_ms,
      endMs: r.end_ms,
      ...data,
    };
  });
}
