// One pure classifier for operating-system and SQLite failures: an error carrying a `code` such
// as ENOSPC or SQLITE_BUSY becomes a coded AppError with a message naming the file and a fix, so
// no host shows a full disk, a locked or damaged database or a bad path as an INTERNAL stack.
import { AppError, type ErrorCode } from './errors';

type Classified = { code: ErrorCode; message: string; fix: string };

const DB_FIX_DOCTOR =
  'Run `cua-annotator doctor` to check the library database, and restore library.sqlite from a ' +
  'backup (library.sqlite.bak-*) if it reports damage.';

function where(path: string | undefined): string {
  return path ? ` (${path})` : '';
}

// The SQLite primary result code of an extended one: SQLITE_BUSY_SNAPSHOT → SQLITE_BUSY.
function primarySqliteCode(code: string): string {
  return code.split('_').slice(0, 2).join('_');
}

function classify(code: string, path: string | undefined, detail: string): Classified | null {
  if (code === 'SQLITE_READONLY_DBMOVED') {
    return {
      code: 'DB_REPLACED',
      message: `The library database file was moved, deleted or replaced while it was open${where(path)}.`,
      fix: 'Stop this cua-annotator process and start it again; redo the last change if it is missing.',
    };
  }
  switch (code.startsWith('SQLITE_') ? primarySqliteCode(code) : code) {
    case 'ENOSPC':
    case 'EDQUOT':
    case 'SQLITE_FULL':
      return {
        code: 'DISK_FULL',
        message: `The disk is full: nothing more could be written${where(path)}.`,
        fix:
          'Free disk space (delete recordings you no longer need with `cua-annotator delete`, or ' +
          'files outside the library), then try again.',
      };
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return {
        code: 'DB_BUSY',
        message: `The library database stayed locked by another writer for too long${where(path)}.`,
        fix: 'Wait for the other cua-annotator process (a recording, import or delete) to finish, then try again.',
      };
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return {
        code: 'DB_CORRUPT',
        message: `The library database is damaged (${detail})${where(path)}.`,
        fix: DB_FIX_DOCTOR,
      };
    case 'SQLITE_IOERR':
    case 'EIO':
      return {
        code: 'IO_ERROR',
        message: `The disk reported an input/output error (${detail})${where(path)}.`,
        fix: 'Check the drive holding the library (system log, fsck) and that it is still mounted, then try again.',
      };
    case 'EACCES':
    case 'EPERM':
    case 'SQLITE_PERM':
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
      return {
        code: 'PERMISSION_DENIED',
        message: `Permission denied: the file or folder cannot be opened or written (${code})${where(path)}.`,
        fix: 'Fix the permissions of that file or folder (or choose another one), then try again.',
      };
    case 'EROFS':
      return {
        code: 'READ_ONLY_FILESYSTEM',
        message: `The file system is read-only${where(path)}.`,
        fix: 'Choose a folder on a writable drive (or remount this one read-write), then try again.',
      };
    case 'ENOTDIR':
    case 'EISDIR':
    case 'ENAMETOOLONG':
    case 'ELOOP':
      return {
        code: 'PATH_INVALID',
        message:
          code === 'EISDIR'
            ? `A folder is in the way where a file was expected${where(path)}.`
            : code === 'ENOTDIR'
              ? `A part of the path is a file, not a folder${where(path)}.`
              : `The path cannot be used (${code})${where(path)}.`,
        fix: 'Check the path and choose another one, then try again.',
      };
    case 'ENOENT':
      return {
        code: 'NOT_FOUND',
        message: `No such file or folder${where(path)}.`,
        fix: 'Check that the file or folder exists (it may have been moved or deleted), then try again.',
      };
    default:
      return null;
  }
}

// The coded AppError for an OS or SQLite failure, or null when `e` is neither (a real bug, which
// stays INTERNAL). An AppError is returned unchanged.
export function classifySystemError(e: unknown): AppError | null {
  if (e instanceof AppError) {
    return e;
  }
  if (typeof e !== 'object' || e === null) {
    return null;
  }
  const { code, path, message } = e as { code?: unknown; path?: unknown; message?: unknown };
  if (typeof code !== 'string') {
    return null;
  }
  const detail = typeof message === 'string' && message !== '' ? message : code;
  const found = classify(code, typeof path === 'string' ? path : undefined, detail);
  if (!found) {
    return null;
  }
  return new AppError(
    found.code,
    found.message,
    { cause: code, ...(typeof path === 'string' ? { path } : {}) },
    found.fix,
  );
}

/** True for SQLite's "database is locked" failures (SQLITE_BUSY and its extended codes). */
export function isBusyError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}
