// Migration 5: the unique source fingerprint of imports (issue 26 item 13). A library that already
// holds the same import twice (made before the key, or with --allow-duplicate) migrates: the
// oldest keeps the key, the others none; afterwards the key refuses a second holder.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate, schemaVersion } from '../../src/store';
import { importFingerprint } from '../../src/services/import/agentnet-import';
import { makeRecording } from '../helpers/store';

function insertV4(db: Database.Database, id: string, source: string, sha: string | null): void {
  const { lastInsertRowid } = db
    .prepare(
      `INSERT INTO recordings (id, source, task, status, os, platform_json, screen_width,
        screen_height, app_version, dir, created_at_ms, updated_at_ms)
       VALUES (?, ?, 'task', 'complete', 'linux', '{}', 1280, 800, '0', ?, 0, 0)`,
    )
    .run(id, source, `recordings/${id}`);
  db.prepare(
    `INSERT INTO videos (recording_seq, ord, path, width, height, fps, duration_ms, start_ms,
      start_method, size_bytes, sha256) VALUES (?, 0, 'v.mp4', 1280, 800, 30, 1000, 0, 'm', 1, ?)`,
  ).run(lastInsertRowid, sha);
}

function keys(db: Database.Database): Record<string, string | null> {
  const rows = db.prepare(`SELECT id, source_fingerprint AS k FROM recordings`).all() as {
    id: string;
    k: string | null;
  }[];
  return Object.fromEntries(rows.map((r) => [r.id, r.k]));
}

describe('migration 5 (import fingerprint)', () => {
  it('item 41: keys the oldest import of each video and migrates a library that holds duplicates', () => {
    const db = new Database(':memory:');
    migrate(db, 4);
    insertV4(db, 'first', 'agentnet-import', 'aa');
    insertV4(db, 'again', 'agentnet-import', 'aa'); // a duplicate made before the key
    insertV4(db, 'other', 'agentnet-import', 'bb');
    insertV4(db, 'recorded', 'recorder', 'aa');
    insertV4(db, 'nosha', 'agentnet-import', null);
    migrate(db, 5); // this migration alone (later ones, e.g. 6 for CoT, have their own tests)
    expect(schemaVersion(db)).toBe(5);
    expect(keys(db)).toEqual({
      first: importFingerprint('aa'),
      again: null,
      other: importFingerprint('bb'),
      recorded: null,
      nosha: null,
    });
    db.close();
  });

  it('item 41: refuses a second recording with the same key; recordings without a key never collide', () => {
    const db = new Database(':memory:');
    migrate(db);
    makeRecording(db, { source: 'agentnet-import', sourceFingerprint: importFingerprint('cc') });
    let error: unknown = null;
    try {
      makeRecording(db, { source: 'agentnet-import', sourceFingerprint: importFingerprint('cc') });
    } catch (e) {
      error = e;
    }
    expect((error as { code?: string } | null)?.code).toBe('SQLITE_CONSTRAINT_UNIQUE');
    makeRecording(db, { sourceFingerprint: null });
    makeRecording(db, { sourceFingerprint: null });
    expect(Object.keys(keys(db))).toHaveLength(3);
    db.close();
  });
});
