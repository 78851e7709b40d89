// Numbered migrations guarded by PRAGMA user_version, each in its own transaction.
import { AppError } from '../shared/errors';
import type { Db } from './db';
import { MIGRATIONS } from './migrations';

/** The schema version this build writes. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.length;

/** Reads PRAGMA user_version. */
export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Brings `db` to {@link LATEST_SCHEMA_VERSION}; refuses a database from a newer build. */
export function migrate(db: Db, target = LATEST_SCHEMA_VERSION): void {
  const current = schemaVersion(db);
  if (current > LATEST_SCHEMA_VERSION) {
    throw new AppError(
      'DB_FROM_FUTURE',
      `The library database has schema version ${current}, but this cua-annotator only knows ` +
        `versions up to ${LATEST_SCHEMA_VERSION}. Upgrade cua-annotator, or open another library ` +
        'with --library DIR.',
      { found: current, supported: LATEST_SCHEMA_VERSION },
    );
  }
  for (let version = current + 1; version <= target; version += 1) {
    const migration = MIGRATIONS[version - 1];
    if (!migration) {
      throw new Error(`Migration ${version} is missing`);
    }
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${version}`);
    })();
  }
}
