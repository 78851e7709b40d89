// Raw input events: batched inserts and time-range reads.
import type { EventCounts, MouseButton, RawEvent, RawEventKind } from '../../shared/domain';
import { MOUSE_BUTTONS, RAW_EVENT_KINDS } from '../../shared/domain';
import type { Db, Statement } from '../db';

const KIND_CODE = new Map<RawEventKind, number>(RAW_EVENT_KINDS.map((k, i) => [k, i]));
const BUTTON_CODE = new Map<MouseButton, number>(MOUSE_BUTTONS.map((b, i) => [b, i]));

type EventRow = {
  idx: number;
  t_ms: number;
  kind: number;
  x: number | null;
  y: number | null;
  button: number | null;
  keycode: number | null;
  key: string | null;
  char: string | null;
  key_raw: string | null;
  modifiers: number;
  dx: number | null;
  dy: number | null;
  flags: number;
};

const INSERT_SQL = `INSERT INTO events (recording_seq, idx, t_ms, kind, x, y, button, keycode, key,
  char, key_raw, modifiers, dx, dy, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

const insertStatements = new WeakMap<Db, Statement>();

/** Inserts events; call inside a transaction for throughput (the caller owns batching). */
export function insertEvents(db: Db, recordingSeq: number, events: readonly RawEvent[]): void {
  let stmt = insertStatements.get(db);
  if (!stmt) {
    stmt = db.prepare<unknown[]>(INSERT_SQL);
    insertStatements.set(db, stmt);
  }
  for (const e of events) {
    stmt.run(
      recordingSeq,
      e.idx,
      e.tMs,
      KIND_CODE.get(e.kind) ?? KIND_CODE.get('other'),
      e.x,
      e.y,
      e.button === null ? null : (BUTTON_CODE.get(e.button) ?? null),
      e.keycode,
      e.key,
      e.char,
      e.keyRaw,
      e.modifiers,
      e.dx,
      e.dy,
      e.flags,
    );
  }
}

function rowToEvent(r: EventRow): RawEvent {
  return {
    idx: r.idx,
    tMs: r.t_ms,
    kind: RAW_EVENT_KINDS[r.kind] ?? 'other',
    x: r.x,
    y: r.y,
    button: r.button === null ? null : (MOUSE_BUTTONS[r.button] ?? null),
    keycode: r.keycode,
    key: r.key,
    char: r.char,
    keyRaw: r.key_raw,
    modifiers: r.modifiers,
    dx: r.dx,
    dy: r.dy,
    flags: r.flags,
  };
}

/** Reads events in idx order, optionally limited to `[fromMs, toMs)` on the recording clock. */
export function readEvents(
  db: Db,
  recordingSeq: number,
  range?: { fromMs: number; toMs: number },
): RawEvent[] {
  const rows = range
    ? (db
        .prepare(
          `SELECT * FROM events WHERE recording_seq = ? AND t_ms >= ? AND t_ms < ? ORDER BY idx`,
        )
        .all(recordingSeq, range.fromMs, range.toMs) as EventRow[])
    : (db
        .prepare(`SELECT * FROM events WHERE recording_seq = ? ORDER BY idx`)
        .all(recordingSeq) as EventRow[]);
  return rows.map(rowToEvent);
}

/** Counts events by kind. */
export function countEvents(db: Db, recordingSeq: number): EventCounts {
  const rows = db
    .prepare(`SELECT kind, COUNT(*) AS n FROM events WHERE recording_seq = ? GROUP BY kind`)
    .all(recordingSeq) as { kind: number; n: number }[];
  const byKind = Object.fromEntries(RAW_EVENT_KINDS.map((k) => [k, 0])) as Record<
    RawEventKind,
    number
  >;
  for (const r of rows) {
    const kind = RAW_EVENT_KINDS[r.kind] ?? 'other';
    byKind[kind] += r.n;
  }
  return {
    total: Object.values(byKind).reduce((a, b) => a + b, 0),
    move: byKind.move,
    button: byKind.down + byKind.up,
    scroll: byKind.wheel,
    key: byKind.keydown + byKind.keyup,
    other: byKind.other,
    byKind,
  };
}

/** Highest idx stored for a recording, or -1 when none. */
export function lastEventIdx(db: Db, recordingSeq: number): number {
  const row = db
    .prepare(`SELECT MAX(idx) AS m FROM events WHERE recording_seq = ?`)
    .get(recordingSeq) as { m: number | null };
  return row.m ?? -1;
}
