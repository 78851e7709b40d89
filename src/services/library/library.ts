// An open recording library: the SQLite database plus the files beside it.
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { openDatabase, type Db } from '../../store';

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

/** Opens the library at `dir` (creating it unless `create: false`); fails clearly when it is
 * not writable, holds no library (`create: false`) or its recordings have lost the database. */
export function openLibrary(dir: string, options: OpenLibraryOptions = {}): Library {
  const abs = path.resolve(dir);
  checkLibraryFolder(abs, options);
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
  };
}
