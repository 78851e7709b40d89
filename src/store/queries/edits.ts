// The edit log of a recording: append-only rows; undo/redo flip a state flag, nothing is deleted.
//
// `edits.undone` holds the state: 0 = active, 1 = undone (redo applies it again), 2 = discarded
// (undone, then superseded by a new edit: the dropped redo tail). Invariant: the undone rows are
// always the newest non-discarded ones, so "the latest active edit" is the log position.
import type { EditState, StepEdit, StoredEdit } from '../../shared/contract';
import type { Db } from '../db';

const STATE_CODE: Record<EditState, number> = { active: 0, undone: 1, discarded: 2 };
const STATE_OF: Record<number, EditState> = { 0: 'active', 1: 'undone', 2: 'discarded' };

type EditRow = {
  id: number;
  at_ms: number;
  author: string | null;
  payload_json: string;
  undone: number;
};

function toStoredEdit(r: EditRow): StoredEdit {
  return {
    id: r.id,
    atMs: r.at_ms,
    author: r.author,
    edit: JSON.parse(r.payload_json) as StepEdit,
    state: STATE_OF[r.undone] ?? 'discarded',
  };
}

function primaryStepId(edit: StepEdit): string | null {
  switch (edit.op) {
    case 'merge':
      return edit.stepIds[0];
    case 'insert':
      return edit.afterStepId;
    case 'trim':
    case 'pii-accept':
    case 'redact-text':
      return null;
    default:
      return edit.stepId;
  }
}

/** Appends an edit, discarding the redo tail first (one transaction); returns the new edit. */
export function appendEdit(
  db: Db,
  recordingSeq: number,
  edit: StepEdit,
  options: { nowMs: number; author?: string | null },
): StoredEdit {
  return db.transaction(() => {
    db.prepare(`UPDATE edits SET undone = ? WHERE recording_seq = ? AND undone = ?`).run(
      STATE_CODE.discarded,
      recordingSeq,
      STATE_CODE.undone,
    );
    const info = db
      .prepare(
        `INSERT INTO edits (recording_seq, at_ms, author, op, step_id, payload_json, undone)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        recordingSeq,
        options.nowMs,
        options.author ?? null,
        edit.op,
        primaryStepId(edit),
        JSON.stringify(edit),
        STATE_CODE.active,
      );
    return {
      id: Number(info.lastInsertRowid),
      atMs: options.nowMs,
      author: options.author ?? null,
      edit,
      state: 'active' as const,
    };
  })();
}

/** The whole log of a recording in order (every state), or only the given states. */
export function listEdits(
  db: Db,
  recordingSeq: number,
  states?: readonly EditState[],
): StoredEdit[] {
  const rows = db
    .prepare(
      `SELECT id, at_ms, author, payload_json, undone FROM edits WHERE recording_seq = ?
       ORDER BY id`,
    )
    .all(recordingSeq) as EditRow[];
  const edits = rows.map(toStoredEdit);
  return states ? edits.filter((e) => states.includes(e.state)) : edits;
}

/** Undoes the latest active edit; returns it, or null when there is nothing to undo. */
export function undoEdit(db: Db, recordingSeq: number): StoredEdit | null {
  return db.transaction(() => {
    const row = db
      .prepare(
        `SELECT id, at_ms, author, payload_json, undone FROM edits
         WHERE recording_seq = ? AND undone = ? ORDER BY id DESC LIMIT 1`,
      )
      .get(recordingSeq, STATE_CODE.active) as EditRow | undefined;
    if (!row) {
      return null;
    }
    db.prepare(`UPDATE edits SET undone = ? WHERE id = ?`).run(STATE_CODE.undone, row.id);
    return { ...toStoredEdit(row), state: 'undone' as const };
  })();
}

/** Re-applies the earliest undone edit; returns it, or null when there is nothing to redo. */
export function redoEdit(db: Db, recordingSeq: number): StoredEdit | null {
  return db.transaction(() => {
    const row = db
      .prepare(
        `SELECT id, at_ms, author, payload_json, undone FROM edits
         WHERE recording_seq = ? AND undone = ? AND id > ? ORDER BY id LIMIT 1`,
      )
      .get(recordingSeq, STATE_CODE.undone, editPosition(db, recordingSeq)) as EditRow | undefined;
    if (!row) {
      return null;
    }
    db.prepare(`UPDATE edits SET undone = ? WHERE id = ?`).run(STATE_CODE.active, row.id);
    return { ...toStoredEdit(row), state: 'active' as const };
  })();
}

/** Where the log stands: id of the latest active edit (0 = none), and whether undo/redo exist. */
export type EditPosition = { version: number; canUndo: boolean; canRedo: boolean };

function editPosition(db: Db, recordingSeq: number): number {
  const row = db
    .prepare(`SELECT MAX(id) AS id FROM edits WHERE recording_seq = ? AND undone = ?`)
    .get(recordingSeq, STATE_CODE.active) as { id: number | null };
  return row.id ?? 0;
}

/** The log position of a recording and whether undo/redo are possible. */
export function getEditPosition(db: Db, recordingSeq: number): EditPosition {
  const version = editPosition(db, recordingSeq);
  const redo = db
    .prepare(`SELECT 1 AS x FROM edits WHERE recording_seq = ? AND undone = ? AND id > ? LIMIT 1`)
    .get(recordingSeq, STATE_CODE.undone, version);
  return { version, canUndo: version > 0, canRedo: redo !== undefined };
}
