// What the PII scan reads beyond steps and events: the recording's own texts, the free-form
// label data and the accessibility trees, streamed row by row (a long recording holds thousands
// of snapshots; none is kept after it has been read).
import type { Db } from '../db';

/** The task text and the task description of a recording. */
export function readRecordingTexts(db: Db, seq: number): { task: string; description: string } {
  const row = db.prepare('SELECT task, description FROM recordings WHERE seq = ?').get(seq) as
    { task: string; description: string } | undefined;
  return row ?? { task: '', description: '' };
}

/** The free-form data of a recording's labels row (`{}` when it has none). */
export function readLabelData(db: Db, seq: number): unknown {
  const row = db.prepare('SELECT data_json FROM labels WHERE recording_seq = ?').get(seq) as
    { data_json: string } | undefined;
  return row ? (JSON.parse(row.data_json) as unknown) : {};
}

/** One accessibility record as the scan reads it. */
export type AxTextRow = { tMs: number; rootName: string | null; treeJson: string };

/** Every accessibility record (window snapshots and element paths) in time order, one at a time. */
export function* iterateAxTexts(db: Db, seq: number): Generator<AxTextRow> {
  const rows = db
    .prepare(
      `SELECT t_ms, root_name, tree_json FROM ax_records WHERE recording_seq = ?
       ORDER BY t_ms, id`,
    )
    .iterate(seq) as IterableIterator<{
    t_ms: number;
    root_name: string | null;
    tree_json: string;
  }>;
  for (const r of rows) {
    yield { tMs: r.t_ms, rootName: r.root_name, treeJson: r.tree_json };
  }
}
