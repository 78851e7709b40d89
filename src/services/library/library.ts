// An open recording library: the SQLite database plus the files beside it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { LATEST_SCHEMA_VERSION, openDatabase, schemaVersion, type Db } from '../../store';

/** File name of the database inside the library folder. */
export const DB_FILE_NAME = 'library.sqlite';
/** Folder (relative to the library) holding one sub-folder per recording. */
export const RECORDINGS_DIR = 'recordings';

/** An open library. */
export type Library = {
  /** Absolute library folder. */
  dir: string;
  db: Db;
  /** Absolute path of a library-relative path, refusing anything that escapes the library. */
  resolve: (relative: string) => string;
  close: () => void;
  /** True when the library was opened read-only (`allowReadOnly` on a library that cannot be
   * written): every transaction fails with LIBRARY_READ_ONLY. */
  readOnly?: boolean;
};

/** Options of {@link openLibrary}. */
export type OpenLibraryOptions = {
  /**
   * Create the library when the folder holds none (default true: the desktop app makes its
   * own). The CLI passes true only for `import` and `record`; every other command refuses a
   * folder without a library (LIBRARY_NOT_FOUND) instead of creating an empty one there.
   */
  create?: boolean;
  /** Where the folder came from (`--library`, an environment variable…), named in errors. */
  from?: string;
  /**
   * The caller only reads (list, show, check, scan, export, doctor): a library that cannot be
   * written (a read-only file system, a folder or database without write permission) is opened
   * read-only instead of refused. Default false: LIBRARY_READ_ONLY.
   */
  allowReadOnly?: boolean;
};

// Recording folders under recordings/ (hidden staging folders aside).
function countRecordingFolders(abs: string): number {
  try {
    return fs
      .readdirSync(path.join(abs, RECORDINGS_DIR), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.')).length;
  } catch {
    return 0;
  }
}

function fileSize(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

// Refuses what must not be opened as a library: a folder whose recordings have lost their
// database (missing or 0 bytes: SQLite would silently start an empty one and hide them), and,
// unless `create`, a folder that holds no library at all.
function checkLibraryFolder(abs: string, options: OpenLibraryOptions): void {
  const dbFile = path.join(abs, DB_FILE_NAME);
  const size = fileSize(dbFile);
  if (size !== null && size > 0) {
    return;
  }
  const recordings = countRecordingFolders(abs);
  if (recordings > 0) {
    const backups = fs.existsSync(abs)
      ? fs.readdirSync(abs).filter((n) => n.startsWith(`${DB_FILE_NAME}.bak-`))
      : [];
    throw new AppError(
      'DB_MISSING',
      `The library at ${abs} holds ${recordings} recording folder(s) but its database ` +
        `${DB_FILE_NAME} is ${size === null ? 'missing' : 'empty (0 bytes)'}; opening it would ` +
        'start an empty library and hide them, so it is left as it is.',
      { dir: abs, recordings, backups },
      backups.length
        ? `Restore ${DB_FILE_NAME} from the backup ${backups.sort().at(-1) ?? ''} in that folder (copy it to ${DB_FILE_NAME}), or restore it from your own backup.`
        : `Restore ${DB_FILE_NAME} from a backup, or move the recordings folder aside to start a new library in ${abs}.`,
    );
  }
  if (size === null && options.create === false) {
    throw new AppError(
      'LIBRARY_NOT_FOUND',
      `No library at ${abs}${options.from ? ` (from ${options.from})` : ''}: it has no ${DB_FILE_NAME}.`,
      { dir: abs },
      'Pass --library DIR naming an existing library folder (or set CUA_ANNOTATOR_LIBRARY), or create one there with `cua-annotator import` or `cua-annotator record`.',
    );
  }
}

// Why a library that exists cannot be written (EROFS, EACCES…), or null when it can: the folder
// (new files: -wal, -shm, recordings) and the database file itself.
function notWritable(abs: string): string | null {
  for (const p of [abs, path.join(abs, DB_FILE_NAME)]) {
    try {
      fs.accessSync(p, fs.constants.W_OK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EACCES';
      if (code !== 'ENOENT') {
        return code;
      }
    }
  }
  return null;
}

/** The LIBRARY_READ_ONLY error of a library at `abs` that cannot be written (`code`). */
export function libraryReadOnlyError(abs: string, code: string): AppError {
  const isFs = code === 'EROFS';
  const user = os.userInfo().username;
  return new AppError(
    'LIBRARY_READ_ONLY',
    `The library at ${abs} is read-only (${isFs ? 'EROFS: its file system is mounted read-only' : `${code}: the user ${user} may not write its folder or database`}), so this command, which changes it, cannot run. ` +
      'Commands that only read work: list, show, check, scan (without --accept), export to a writable folder, doctor.',
    { dir: abs, errno: code },
    isFs
      ? `Remount its file system read-write (\`mount -o remount,rw\` on its mount point) or copy the library to a writable folder and pass --library DIR.`
      : `Have the folder's owner make it writable for ${user} (e.g. \`chmod -R u+w '${abs}'\` as the owner), run as the user who owns it, or copy the library to a writable folder and pass --library DIR.`,
  );
}

// A library that exists but cannot be written, opened read-only: nothing is created or migrated.
function openReadOnlyLibrary(abs: string): Library {
  const db = openDatabase(path.join(abs, DB_FILE_NAME), { readonly: true });
  const version = schemaVersion(db);
  if (version !== LATEST_SCHEMA_VERSION) {
    db.close();
    throw new AppError(
      'LIBRARY_READ_ONLY',
      `The library at ${abs} is read-only and has schema version ${version}; this cua-annotator reads version ${LATEST_SCHEMA_VERSION} only, and upgrading it needs a write.`,
      { dir: abs, found: version, supported: LATEST_SCHEMA_VERSION },
      version > LATEST_SCHEMA_VERSION
        ? 'Upgrade cua-annotator to the version that wrote this library.'
        : 'Make the library writable once (any command then upgrades it), or copy it to a writable folder and pass --library DIR.',
    );
  }
  return libraryOf(abs, db, true);
}

function libraryOf(abs: string, db: Db, readOnly: boolean): Library {
  return {
    dir: abs,
    db,
    resolve: (relative) => {
      const full = path.resolve(abs, relative);
      if (full !== abs && !full.startsWith(abs + path.sep)) {
        throw new AppError('INVALID_PAYLOAD', `Path ${relative} escapes the library`);
      }
      return full;
    },
    close: () => db.close(),
    ...(readOnly ? { readOnly: true } : {}),
  };
}

/** Opens the library at `dir` (creating it unless `create: false`); fails clearly when it is
 * not writable (LIBRARY_READ_ONLY; read-only with `allowReadOnly`), holds no library
 * (`create: false`) or its recordings have lost the database. */
export function openLibrary(dir: string, options: OpenLibraryOptions = {}): Library {
  const abs = path.resolve(dir);
  checkLibraryFolder(abs, options);
  const hasDb = (fileSize(path.join(abs, DB_FILE_NAME)) ?? 0) > 0;
  const readOnly = hasDb ? notWritable(abs) : null;
  if (readOnly !== null) {
    if (!options.allowReadOnly) {
      throw libraryReadOnlyError(abs, readOnly);
    }
    return openReadOnlyLibrary(abs);
  }
  try {
    fs.mkdirSync(path.join(abs, RECORDINGS_DIR), { recursive: true });
    fs.accessSync(abs, fs.constants.W_OK);
  } catch (e) {
    throw new AppError(
      'LIBRARY_UNWRITABLE',
      `The library folder ${abs} cannot be created or written (${(e as NodeJS.ErrnoException).code ?? String(e)}). ` +
        'Choose another folder with --library DIR or CUA_ANNOTATOR_LIBRARY, or fix its permissions.',
      { dir: abs },
      'Choose another folder with --library DIR (or CUA_ANNOTATOR_LIBRARY), or fix the permissions of this one.',
    );
  }
  const db = openDatabase(path.join(abs, DB_FILE_NAME));
  return libraryOf(abs, db, false);
}
