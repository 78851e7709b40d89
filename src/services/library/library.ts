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

/** Opens (creating if needed) the library at `dir`; fails clearly when it is not writable. */
export function openLibrary(dir: string): Library {
  const abs = path.resolve(dir);
  try {
    fs.mkdirSync(path.join(abs, RECORDINGS_DIR), { recursive: true });
    fs.accessSync(abs, fs.constants.W_OK);
  } catch (e) {
    throw new AppError(
      'LIBRARY_UNWRITABLE',
      `The library folder ${abs} cannot be created or written (${(e as NodeJS.ErrnoException).code ?? String(e)}). ` +
        'Choose another folder with --library DIR or CUA_ANNOTATOR_LIBRARY, or fix its permissions.',
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
