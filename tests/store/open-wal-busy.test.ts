// Switching a library database to WAL while another process holds its write lock (README fault
// 71): SQLite answers SQLITE_BUSY at once there instead of calling the busy handler, so eight
// processes creating one new library together failed one within milliseconds (under load: 1 of
// 5 runs of tests/faults/database.test.ts item 9, the end-to-end test of this fault; 0 of 15
// rounds of eight openers after). openDatabase retries the switch up to its busy timeout; here
// the retry itself, over a handle whose pragma answers as SQLite did.
import { describe, expect, it } from 'vitest';
import { switchToWal } from '../../src/store/db';

function busyFor(n: number, code = 'SQLITE_BUSY') {
  const calls: string[] = [];
  const db = {
    pragma: (source: string) => {
      calls.push(source);
      if (calls.length <= n) {
        throw Object.assign(new Error('database is locked'), { code });
      }
      return [{ journal_mode: 'wal' }];
    },
  } as unknown as Parameters<typeof switchToWal>[0];
  return { db, calls };
}

describe('switchToWal', () => {
  it('retries while the lock is held, then switches', () => {
    const { db, calls } = busyFor(4);
    const started = Date.now();
    switchToWal(db, 5_000);
    expect(calls).toEqual(Array.from({ length: 5 }, () => 'journal_mode = WAL'));
    // it waited between tries (1 + 2 + 4 + 8 ms), not in a busy loop
    expect(Date.now() - started).toBeGreaterThanOrEqual(14);
  });

  it('gives up with the busy error once the busy timeout has passed', () => {
    const { db, calls } = busyFor(Number.POSITIVE_INFINITY);
    const started = Date.now();
    expect(() => switchToWal(db, 200)).toThrow(/locked/);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(200);
    expect(took).toBeLessThan(2_000);
    expect(calls.length).toBeGreaterThan(3);
  });

  it('does not retry another error', () => {
    const { db, calls } = busyFor(1, 'SQLITE_IOERR');
    expect(() => switchToWal(db, 5_000)).toThrow(/locked/);
    expect(calls).toHaveLength(1);
  });
});
