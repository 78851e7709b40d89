import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/shared/errors';
import { LATEST_SCHEMA_VERSION, migrate, openDatabase, schemaVersion } from '../../src/store';

const EXPECTED_TABLES = [
  'ax_records',
  'cot_steps',
  'cot_summaries',
  'edits',
  'events',
  'keyframes',
  'labels',
  'marks',
  'pulls',
  'recordings',
  'reviews',
  'settings',
  'steps',
  'upload_objects',
  'upload_parts',
  'uploads',
  'videos',
  'windows',
];

const tmpDirs: string[] = [];
afterEach(() => {
  for (const d of tmpDirs.splice(0)) {
    fs.rmSync(d, { recursive: true, force: true });
  }
});
function tmpFile(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-db-'));
  tmpDirs.push(d);
  return path.join(d, 'library.sqlite');
}

describe('migrations', () => {
  it('bring an empty database to the latest version with every table STRICT', () => {
    const db = openDatabase(':memory:');
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    const tables = db
      .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name`)
      .all() as { name: string; sql: string }[];
    expect(tables.map((t) => t.name)).toEqual(EXPECTED_TABLES);
    for (const t of tables) {
      expect(t.sql, t.name).toMatch(/\)\s*STRICT/);
    }
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });

  it('use WAL on a file database and are idempotent on reopen', () => {
    const file = tmpFile();
    openDatabase(file).close();
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(schemaVersion(db)).toBe(LATEST_SCHEMA_VERSION);
    db.close();
  });

  it('refuse a database from the future with a clear error and leave it untouched', () => {
    const file = tmpFile();
    const raw = new Database(file);
    raw.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 5}`);
    raw.exec('CREATE TABLE keep_me (x INTEGER)');
    raw.close();
    let caught: unknown;
    try {
      openDatabase(file);
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'DB_FROM_FUTURE')).toBe(true);
    expect((caught as Error).message).toContain(`schema version ${LATEST_SCHEMA_VERSION + 5}`);
    expect((caught as Error).message).toContain('Upgrade cua-annotator');
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION + 5);
    expect(check.prepare(`SELECT name FROM sqlite_master WHERE name = 'recordings'`).get()).toBe(
      undefined,
    );
    check.close();
  });

  it('roll a failing migration back completely', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE recordings (x INTEGER)'); // collides with migration 1
    expect(() => migrate(db)).toThrow(/already exists/);
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'events'`).get()).toBe(
      undefined,
    );
    db.close();
  });

  it('report a file that is not a database as DB_CORRUPT', () => {
    const file = tmpFile();
    fs.writeFileSync(file, 'this is not sqlite'.repeat(100));
    let caught: unknown;
    try {
      openDatabase(file);
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'DB_CORRUPT')).toBe(true);
  });
});
