// Opens the library database: the only module that imports better-sqlite3.
import Database from 'better-sqlite3';
import { AppError } from '../shared/errors';
import { migrate } from './migrate';

/** An open library database handle. */
export type Db = Database.Database;
/** A prepared statement taking positional parameters. */
export type Statement = Database.Statement<unknown[]>;

/** Options for {@link openDatabase}. */
export type OpenDatabaseOptions = {
  /** Open read-only (no migrations are run). Default false. */
  readonly?: boolean;
};

/** Opens (and migrates) the SQLite database at `file` (`:memory:` for tests). */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  let db: Db;
  try {
    db = new Database(file, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
    });
  } catch (e) {
    throw new AppError('DB_CORRUPT', `Cannot open the library database ${file}: ${String(e)}`);
  }
  try {
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      migrate(db);
    }
    return db;
  } catch (e) {
    db.close();
    if (e instanceof AppError) {
      throw e;
    }
    const code = (e as { code?: string }).code;
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      throw new AppError(
        'DB_CORRUPT',
        `The library database ${file} is not a valid SQLite file (${code}). Move it aside and ` +
          'start a new library, or restore it from a backup.',
      );
    }
    throw e;
  }
}
