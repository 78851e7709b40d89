// Opens the library database: the only module that imports better-sqlite3.
//
// Every handle opened here begins its transactions IMMEDIATE (`db.transaction(fn)()` takes the
// write lock at BEGIN, waiting up to the busy timeout): all of this project's transactions write,
// and a deferred one that reads first fails at once with SQLITE_BUSY when another process wrote
// in between. Before each top-level transaction the handle also checks that library.sqlite and
// its -wal are still the files it opened (device + inode): one deleted or replaced under a running
// process would silently swallow every later commit, so the handle stops writing instead.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../shared/errors';
import { classifySystemError } from '../shared/system-error';
import { migrate, type MigrateOutcome } from './migrate';

/** An open library database handle. */
export type Db = Database.Database;
/** A prepared statement taking positional parameters. */
export type Statement = Database.Statement<unknown[]>;

/** How long a write waits for another process's write lock by default, ms. */
export const DEFAULT_BUSY_TIMEOUT_MS = 30_000;

/** Options for {@link openDatabase}. */
export type OpenDatabaseOptions = {
  /** Open read-only (no migrations are run). Default false. */
  readonly?: boolean;
  /** How long a statement waits for a lock before SQLITE_BUSY, ms; default 30 000. */
  busyTimeoutMs?: number;
  /** Called with the outcome when migrations ran (e.g. to report a backup). */
  onMigrated?: (outcome: MigrateOutcome) => void;
};

type FileId = { dev: number; ino: number };

function fileId(file: string): FileId | null {
  try {
    const s = fs.statSync(file);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return null;
  }
}

function sameFile(a: FileId | null, b: FileId | null): boolean {
  return a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
}

// The identity (dev + ino) of the database file and its WAL as opened; `check` throws
// DB_REPLACED (and keeps throwing) once either is gone or another file.
class WriteGuard {
  private readonly dbId: FileId | null;
  private walId: FileId | null;
  private failure: AppError | null = null;

  constructor(private readonly file: string) {
    this.dbId = fileId(file);
    this.walId = fileId(`${file}-wal`);
  }

  check(): void {
    if (this.failure) {
      throw this.failure;
    }
    let gone: string | null = null;
    if (!sameFile(this.dbId, fileId(this.file))) {
      gone = this.file;
    } else {
      const wal = fileId(`${this.file}-wal`);
      if (this.walId === null) {
        this.walId = wal; // not created yet when the handle opened
      } else if (!sameFile(this.walId, wal)) {
        gone = `${this.file}-wal`;
      }
    }
    if (gone !== null) {
      this.failure = new AppError(
        'DB_REPLACED',
        `${path.basename(gone)} was deleted or replaced while this process had the library open; ` +
          'to avoid acknowledging changes that would be lost, it stops writing. Changes saved ' +
          'since the file was replaced may be missing.',
        { file: gone },
        'Stop this cua-annotator process and start it again, then check the last changes and redo any that are missing.',
      );
      throw this.failure;
    }
  }
}

type AnyFn = (...args: never[]) => unknown;

/** The error of a write to a library opened read-only (every transaction here writes). */
export function readOnlyLibraryError(file: string): AppError {
  return new AppError(
    'LIBRARY_READ_ONLY',
    `The library database ${file} is open read-only (its folder or file system cannot be written), so this change cannot be saved.`,
    { file },
    'Make the library writable (remount its file system read-write, or fix the folder permissions as its owner), or copy the library to a writable folder and pass --library DIR.',
  );
}

// Makes `db.transaction(fn)()` begin IMMEDIATE and check the write guard first (see top); on a
// read-only handle (`readOnlyFile`) it refuses with LIBRARY_READ_ONLY before running anything.
function installWriteDefaults(db: Db, guard: WriteGuard | null, readOnlyFile: string | null): void {
  const plain = db.transaction.bind(db);
  const patched = <F extends AnyFn>(fn: F) => {
    const t = plain(fn as unknown as (...args: unknown[]) => unknown);
    const mode =
      (name: 'immediate' | 'deferred' | 'exclusive') =>
      (...args: unknown[]) => {
        if (readOnlyFile !== null && !db.inTransaction) {
          throw readOnlyLibraryError(readOnlyFile);
        }
        if (guard && !db.inTransaction) {
          guard.check();
        }
        return t[name](...args);
      };
    const immediate = mode('immediate');
    return Object.assign(immediate, {
      default: immediate,
      immediate,
      deferred: mode('deferred'),
      exclusive: mode('exclusive'),
      database: db,
    }) as unknown as Database.Transaction<F>;
  };
  db.transaction = patched as Db['transaction'];
}

// Sleeps this thread (openDatabase is synchronous, as better-sqlite3 is).
const napCell = new Int32Array(new SharedArrayBuffer(4));
function napMs(ms: number): void {
  Atomics.wait(napCell, 0, 0, ms);
}

/**
 * `PRAGMA journal_mode = WAL`, retried while another process holds the lock: switching a new
 * database to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once there instead of
 * calling the busy handler (it would risk a deadlock), so eight processes opening one new library
 * together failed one of them within milliseconds (tests/faults/database.test.ts, item 9). Waits
 * 1, 2, 4 … 50 ms up to the busy timeout, like the busy handler would.
 */
export function switchToWal(db: Pick<Db, 'pragma'>, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if ((code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') || Date.now() >= deadline) {
        throw e;
      }
      napMs(wait);
    }
  }
}

/** Runs `fn` with a different busy timeout, restoring the handle's own afterwards. */
export function withBusyTimeout<T>(db: Db, ms: number, fn: () => T): T {
  const before = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`);
  try {
    return fn();
  } finally {
    db.pragma(`busy_timeout = ${before}`);
  }
}

function backupName(file: string, version: number): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('.', '-');
  return `${file}.bak-v${version}-${stamp}-${process.pid}`;
}

// A coded error for a failure while opening: SQLite/OS codes through the shared classifier.
function openError(file: string, e: unknown): unknown {
  if (e instanceof AppError) {
    return e;
  }
  const code = (e as { code?: unknown }).code;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new AppError(
      'DB_CORRUPT',
      `The library database ${file} is not a valid SQLite file (${code}). Move it aside and ` +
        'start a new library, or restore it from a backup.',
      { file, cause: code },
      'Run `cua-annotator doctor`, then restore library.sqlite from a backup (library.sqlite.bak-*) or move it aside.',
    );
  }
  const classified = classifySystemError(e);
  if (classified) {
    return new AppError(
      classified.code,
      `Cannot open the library database ${file}: ${classified.message}`,
      { ...classified.details, file },
      classified.fix,
    );
  }
  return e;
}

// SQLite cannot read a WAL-mode database read-only when the WAL index (-shm) is not there and
// cannot be made (a read-only folder or file system; a cleanly closed library has none): these
// codes. Such a database is then read from a snapshot in memory.
const NEEDS_SNAPSHOT = new Set(['SQLITE_READONLY_DIRECTORY', 'SQLITE_CANTOPEN', 'SQLITE_READONLY']);

// The database file as a read-only in-memory snapshot. With no -wal holding unmerged pages (no
// writer left one), the file is the whole database; its header says WAL, which an in-memory
// database cannot use, so bytes 18–19 (file format write/read version) say rollback journal.
function openSnapshot(file: string): Db {
  const bytes = fs.readFileSync(file);
  if (bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return new Database(bytes, { readonly: true });
}

// Opens `file` read-only; a WAL database in a folder where its -shm cannot be created is read
// from a snapshot (see NEEDS_SNAPSHOT).
function openReadOnly(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    db.pragma('user_version', { simple: true });
    return db;
  } catch (e) {
    db.close();
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NEEDS_SNAPSHOT.has(code) && file !== ':memory:') {
      return openSnapshot(file);
    }
    throw e;
  }
}

/** Opens (and migrates) the SQLite database at `file` (`:memory:` for tests). Read-only, nothing
 * is written: no migration, no journal mode, no -wal/-shm where they cannot be created. */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Db {
  const readonly = options.readonly ?? false;
  let db: Db;
  try {
    db = readonly ? openReadOnly(file) : new Database(file, { readonly, fileMustExist: readonly });
  } catch (e) {
    throw openError(file, e);
  }
  try {
    // first: journal_mode and the migrations need locks other openers may hold
    const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    if (!readonly) {
      switchToWal(db, busyTimeoutMs);
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('foreign_keys = ON');
    const onDisk = file !== '' && file !== ':memory:' && !file.startsWith('file:');
    if (!readonly) {
      const outcome = migrate(db, undefined, {
        ...(onDisk ? { backupFile: (v: number) => backupName(file, v) } : {}),
      });
      if (outcome.from !== outcome.to) {
        options.onMigrated?.(outcome);
      }
    }
    const guard = onDisk && !readonly ? new WriteGuard(file) : null;
    installWriteDefaults(db, guard, readonly ? file : null);
    return db;
  } catch (e) {
    db.close();
    throw openError(file, e);
  }
}
