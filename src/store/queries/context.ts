// Accessibility records, window timeline and timeline marks.
import type { Db } from '../db';

/** One accessibility record to store. */
export type NewAxRecord = {
  tMs: number;
  kind: 'window' | 'element';
  /** Where it came from, e.g. `agentnet-a11y`, `agentnet-element`, `atspi`. */
  source: string;
  x: number | null;
  y: number | null;
  nodeCount: number | null;
  rootName: string | null;
  /** The tree, already serialised as JSON. */
  treeJson: string;
  note: string | null;
};

/** Inserts accessibility records. */
export function insertAxRecords(
  db: Db,
  recordingSeq: number,
  records: readonly NewAxRecord[],
): void {
  const stmt = db.prepare(
    `INSERT INTO ax_records (recording_seq, t_ms, kind, source, x, y, node_count, root_name,
      tree_json, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of records) {
    stmt.run(
      recordingSeq,
      r.tMs,
      r.kind,
      r.source,
      r.x,
      r.y,
      r.nodeCount,
      r.rootName,
      r.treeJson,
      r.note,
    );
  }
}

/** Reads accessibility records of one kind in time order. */
export function listAxRecords(
  db: Db,
  recordingSeq: number,
  kind: 'window' | 'element',
): (NewAxRecord & { id: number })[] {
  const rows = db
    .prepare(
      `SELECT id, t_ms, kind, source, x, y, node_count, root_name, tree_json, note FROM ax_records
       WHERE recording_seq = ? AND kind = ? ORDER BY t_ms, id`,
    )
    .all(recordingSeq, kind) as {
    id: number;
    t_ms: number;
    kind: 'window' | 'element';
    source: string;
    x: number | null;
    y: number | null;
    node_count: number | null;
    root_name: string | null;
    tree_json: string;
    note: string | null;
  }[];
  return rows.map((r) => ({
    id: r.id,
    tMs: r.t_ms,
    kind: r.kind,
    source: r.source,
    x: r.x,
    y: r.y,
    nodeCount: r.node_count,
    rootName: r.root_name,
    treeJson: r.tree_json,
    note: r.note,
  }));
}

/** One entry of the active-window timeline. */
export type WindowRecord = {
  tMs: number;
  title: string | null;
  app: string | null;
  pid: number | null;
  bounds: { x: number; y: number; width: number; height: number } | null;
  windowId: string | null;
};

/** Inserts window-timeline entries. */
export function insertWindows(
  db: Db,
  recordingSeq: number,
  records: readonly WindowRecord[],
): void {
  const stmt = db.prepare(
    `INSERT INTO windows (recording_seq, t_ms, title, app, pid, x, y, width, height, window_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const w of records) {
    stmt.run(
      recordingSeq,
      w.tMs,
      w.title,
      w.app,
      w.pid,
      w.bounds?.x ?? null,
      w.bounds?.y ?? null,
      w.bounds?.width ?? null,
      w.bounds?.height ?? null,
      w.windowId,
    );
  }
}

/** Reads the window timeline in time order. */
export function listWindows(db: Db, recordingSeq: number): WindowRecord[] {
  const rows = db
    .prepare(`SELECT * FROM windows WHERE recording_seq = ? ORDER BY t_ms, id`)
    .all(recordingSeq) as {
    t_ms: number;
    title: string | null;
    app: string | null;
    pid: number | null;
    x: number | null;
    y: number | null;
    width: number | null;
    height: number | null;
    window_id: string | null;
  }[];
  return rows.map((r) => ({
    tMs: r.t_ms,
    title: r.title,
    app: r.app,
    pid: r.pid,
    bounds:
      r.x === null || r.y === null || r.width === null || r.height === null
        ? null
        : { x: r.x, y: r.y, width: r.width, height: r.height },
    windowId: r.window_id,
  }));
}

/**
 * Moves the latest window-timeline entry stamped `tMs` to `newTMs` (the recorder learns after
 * storing an activation that a click made it, item 17 of issue 26); returns how many rows moved.
 */
export function retimeWindow(db: Db, recordingSeq: number, tMs: number, newTMs: number): number {
  return db
    .prepare(
      `UPDATE windows SET t_ms = ? WHERE id = (
         SELECT id FROM windows WHERE recording_seq = ? AND t_ms = ? ORDER BY id DESC LIMIT 1)`,
    )
    .run(newTMs, recordingSeq, tMs).changes;
}

/** A timeline mark (pause, input gap, hotkey, note). */
export type MarkRecord = {
  tMs: number;
  endMs: number | null;
  kind: string;
  data: Record<string, unknown>;
};

/** Inserts one timeline mark. */
export function insertMark(db: Db, recordingSeq: number, mark: MarkRecord): void {
  db.prepare(
    `INSERT INTO marks (recording_seq, t_ms, end_ms, kind, data_json) VALUES (?, ?, ?, ?, ?)`,
  ).run(recordingSeq, mark.tMs, mark.endMs, mark.kind, JSON.stringify(mark.data));
}

/** Sets the end of the open marks (end_ms null) of `kind` that started at `tMs`; returns how
 * many it changed. */
export function endOpenMarks(
  db: Db,
  recordingSeq: number,
  kind: string,
  tMs: number,
  endMs: number,
): number {
  return db
    .prepare(
      `UPDATE marks SET end_ms = ? WHERE recording_seq = ? AND kind = ? AND t_ms = ? AND end_ms IS NULL`,
    )
    .run(endMs, recordingSeq, kind, tMs).changes;
}

/** Reads a recording's marks in time order. */
export function listMarks(db: Db, recordingSeq: number): MarkRecord[] {
  const rows = db
    .prepare(
      `SELECT t_ms, end_ms, kind, data_json FROM marks WHERE recording_seq = ? ORDER BY t_ms, id`,
    )
    .all(recordingSeq) as {
    t_ms: number;
    end_ms: number | null;
    kind: string;
    data_json: string;
  }[];
  return rows.map((r) => ({
    tMs: r.t_ms,
    endMs: r.end_ms,
    kind: r.kind,
    data: JSON.parse(r.data_json) as Record<string, unknown>,
  }));
}
