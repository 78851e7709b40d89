import { describe, expect, it } from 'vitest';
import { countEvents, insertEvents, lastEventIdx, readEvents } from '../../src/store';
import type { RawEvent } from '../../src/shared/domain';
import { createTestDb, makeRecording, syntheticEvents } from '../helpers/store';

describe('raw events', () => {
  it('round-trip every field exactly', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    const events: RawEvent[] = [
      {
        idx: 0,
        tMs: 30679828.0302,
        kind: 'move',
        x: -64,
        y: 1592,
        button: null,
        keycode: null,
        key: null,
        char: null,
        keyRaw: null,
        modifiers: 0,
        dx: null,
        dy: null,
        flags: 0,
      },
      {
        idx: 1,
        tMs: 30679830.5,
        kind: 'down',
        x: 10.5,
        y: 20.25,
        button: 'right',
        keycode: null,
        key: null,
        char: null,
        keyRaw: null,
        modifiers: 3,
        dx: null,
        dy: null,
        flags: 0,
      },
      {
        idx: 2,
        tMs: 30679831,
        kind: 'wheel',
        x: 1,
        y: 2,
        button: null,
        keycode: null,
        key: null,
        char: null,
        keyRaw: null,
        modifiers: 0,
        dx: -1,
        dy: 2,
        flags: 0,
      },
      {
        idx: 3,
        tMs: 30679832,
        kind: 'keydown',
        x: null,
        y: null,
        button: null,
        keycode: 84,
        key: 'T',
        char: 'T',
        keyRaw: '<84>',
        modifiers: 6,
        dx: null,
        dy: null,
        flags: 5,
      },
      {
        idx: 4,
        tMs: 30679833,
        kind: 'other',
        x: null,
        y: null,
        button: null,
        keycode: null,
        key: null,
        char: null,
        keyRaw: null,
        modifiers: 0,
        dx: null,
        dy: null,
        flags: 0,
      },
    ];
    db.transaction(() => insertEvents(db, seq, events))();
    expect(readEvents(db, seq)).toEqual(events);
    expect(lastEventIdx(db, seq)).toBe(4);
    expect(readEvents(db, seq, { fromMs: 30679830.5, toMs: 30679832 }).map((e) => e.idx)).toEqual([
      1, 2,
    ]);
  });

  it('count by kind', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    db.transaction(() => insertEvents(db, seq, syntheticEvents(1000)))();
    const c = countEvents(db, seq);
    expect(c.total).toBe(1000);
    expect(c.move).toBe(700);
    expect(c.button).toBe(200);
    expect(c.scroll + c.key).toBe(100);
    expect(c.byKind.keydown).toBe(50);
  });

  it('refuse a duplicate idx inside a recording and keep the batch out', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    const events = syntheticEvents(10);
    events.push({ ...events[3]! });
    expect(() => db.transaction(() => insertEvents(db, seq, events))()).toThrow(/UNIQUE|PRIMARY/);
    expect(countEvents(db, seq).total).toBe(0);
  });

  it('read time ranges through the (recording_seq, t_ms) index', () => {
    const db = createTestDb();
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT * FROM events WHERE recording_seq = ? AND t_ms >= ? AND t_ms < ? ORDER BY idx`,
      )
      .all(1, 0, 10) as { detail: string }[];
    expect(plan.map((p) => p.detail).join(' | ')).toMatch(/USING INDEX events_time/);
  });

  it('are deleted with their recording (foreign key cascade)', () => {
    const db = createTestDb();
    const { seq } = makeRecording(db);
    db.transaction(() => insertEvents(db, seq, syntheticEvents(20)))();
    db.prepare('DELETE FROM recordings WHERE seq = ?').run(seq);
    expect(countEvents(db, seq).total).toBe(0);
  });
});
