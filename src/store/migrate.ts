// Numbered migrations guarded by PRAGMA user_version. Serialised across processes: the version
// is read again inside one IMMEDIATE transaction (the write lock) that runs every pending
// migration, so concurrent openers of a new library never run a migration twice. An existing
// database is copied aside first (VACUUM INTO a .tmp file, renamed when whole) and the copy kept
// when the migration fails.
import fs from 'node:fs';
import { AppError } from '../shared/errors';
import type { Db } from './db';
import { MIGRATIONS } from './migrations';

/** The schema version this build writes. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;

/** Reads PRAGMA user_version. */
export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Options of {@link migrate}. */
export type MigrateOptions = {
  /** Path to copy an existing database (version ≥ 1) to before migrating it; none when unset. */
  backupFile?: (fromVersion: number) => string;
};

/** What {@link migrate} did. */
export type MigrateOutcome = {
  /** Version found under the write lock. */
  from: number;
  /** Version now. */
  to: number;
  /** The copy made before migrating, when one was made and kept. */
  backup: string | null;
};

function refuseFuture(current: number): void {
  if (current > LATEST_SCHEMA_VERSION) {
    throw new AppError(
      'DB_FROM_FUTURE',
      `The library database has schema version ${current}, but this cua-annotator only knows ` +
        `versions up to ${LATEST_SCHEMA_VERSION}. Upgrade cua-annotator, or open another library ` +
        'with --library DIR.',
      { found: current, supported: LATEST_SCHEMA_VERSION },
      'Upgrade cua-annotator, or open another library with --library DIR.',
    );
  }
}

// VACUUM INTO `<file>.tmp`, renamed to `file` once whole: a copy that failed or was killed
// half-way never carries the name of a backup that could be restored.
function writeBackup(db: Db, file: string): void {
  const tmp = `${file}.tmp`;
  try {
    fs.rmSync(tmp, { force: true }); // VACUUM INTO refuses an existing non-empty file
    db.prepare('VACUUM INTO ?').run(tmp);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** Brings `db` to `target` (default {@link LATEST_SCHEMA_VERSION}); refuses a newer database. */
export function migrate(
  db: Db,
  target = LATEST_SCHEMA_VERSION,
  options: MigrateOptions = {},
): MigrateOutcome {
  const seen = schemaVersion(db);
  refuseFuture(seen);
  if (seen >= target) {
    return { from: seen, to: seen, backup: null };
  }
  let backup: string | null = null;
  if (seen >= 1 && options.backupFile) {
    backup = options.backupFile(seen);
    // a consistent copy of the committed state (WAL included); outside the lock, VACUUM INTO
    // cannot run inside a transaction
    writeBackup(db, backup);
  }
  let from = seen;
  try {
    // `.immediate()`: take the write lock before reading the version, then re-read it
    db.transaction(() => {
      from = schemaVersion(db);
      refuseFuture(from);
      for (let version = from + 1; version <= target; version += 1) {
        const migration = MIGRATIONS[version - 1];
        if (!migration) {
          throw new Error(`Migration ${version} is missing`);
        }
        migration.up(db);
      }
      if (from < target) {
        db.pragma(`user_version = ${target}`);
      }
    }).immediate();
  } catch (e) {
    if (backup && e instanceof Error && !(e instanceof AppError)) {
      e.message += ` (the database is unchanged; a copy made before the migration is kept at ${backup})`;
    }
    throw e;
  }
  if (backup && from !== seen) {
    // another process migrated while this one copied: its own copy is the one to keep
    fs.rmSync(backup, { force: true });
    backup = null;
  }
  return { from, to: Math.max(from, target), backup };
}
