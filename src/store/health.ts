// Health checks of a library database file that `doctor` and the library opener use: SQLite's own
// integrity check, and the schema version read without migrating or creating anything.
import fs from 'node:fs';
import { AppError } from '../shared/errors';
import { openDatabase, type Db } from './db';
import { schemaVersion } from './migrate';

/** Outcome of {@link checkDatabaseIntegrity}. */
export type IntegrityReport = {
  /** True when SQLite found nothing wrong. */
  ok: boolean;
  /** SQLite's own problem lines (empty when ok), at most `maxProblems`. */
  problems: string[];
};

/** Options of {@link checkDatabaseIntegrity}. */
export type IntegrityOptions = {
  /** `quick` (PRAGMA quick_check: no index cross-checks, much faster) or `full`; default full. */
  mode?: 'quick' | 'full';
  /** Most problem lines reported; default 20. */
  maxProblems?: number;
};

// Runs PRAGMA integrity_check (or quick_check) on an open handle. A database so damaged that the
// check itself fails is reported as not ok with the error as its problem.
export function checkDatabaseIntegrity(db: Db, options: IntegrityOptions = {}): IntegrityReport {
  const max = Math.max(1, options.maxProblems ?? 20);
  const pragma = options.mode === 'quick' ? 'quick_check' : 'integrity_check';
  try {
    const rows = db.pragma(`${pragma}(${max})`) as Record<string, unknown>[];
    const lines = rows.map((r) => String(Object.values(r)[0]));
    if (lines.length === 1 && lines[0] === 'ok') {
      return { ok: true, problems: [] };
    }
    return { ok: false, problems: lines };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return {
      ok: false,
      problems: [`${typeof code === 'string' ? `${code}: ` : ''}${(e as Error).message}`],
    };
  }
}

/** What {@link readDatabaseVersion} found. */
export type DatabaseVersion =
  | { kind: 'missing' }
  | { kind: 'empty' }
  | { kind: 'unreadable'; code: string; message: string }
  | { kind: 'ok'; version: number };

// Reads PRAGMA user_version of the database file without creating, migrating or writing it:
// `missing` (no file), `empty` (0 bytes), `unreadable` (not SQLite, damaged header, no access)
// or `ok` with the version (0 for a database no migration has run on).
export function readDatabaseVersion(file: string): DatabaseVersion {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'UNKNOWN';
    return code === 'ENOENT'
      ? { kind: 'missing' }
      : { kind: 'unreadable', code, message: (e as Error).message };
  }
  if (size === 0) {
    return { kind: 'empty' };
  }
  let db: Db | undefined;
  try {
    db = openDatabase(file, { readonly: true, busyTimeoutMs: 5_000 });
    return { kind: 'ok', version: schemaVersion(db) };
  } catch (e) {
    const code =
      e instanceof AppError && typeof e.details?.cause === 'string'
        ? e.details.cause
        : (e as { code?: unknown }).code;
    return {
      kind: 'unreadable',
      code: typeof code === 'string' ? code : 'UNKNOWN',
      message: (e as Error).message,
    };
  } finally {
    db?.close();
  }
}
