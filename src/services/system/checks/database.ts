// Library database check: the SQLite file beside the library folder, read without creating,
// migrating or writing it.
import path from 'node:path';
import {
  checkDatabaseIntegrity,
  LATEST_SCHEMA_VERSION,
  listRecordingDirs,
  openDatabase,
  readDatabaseVersion,
} from '../../../store';
import { DB_FILE_NAME } from '../../library/library';
import type { DoctorCheck } from './check';

// The database beside the library folder, read without creating, migrating or writing it:
// present, not empty, SQLite, a schema this build knows, and SQLite's quick_check passes.
export function checkDatabase(libraryDir: string): { check: DoctorCheck; sound: boolean } | null {
  const file = path.join(path.resolve(libraryDir), DB_FILE_NAME);
  const base = { id: 'database', severity: 'error' } as const;
  const aside =
    `move it aside (\`mv '${file}' '${file}.broken'\`) and restore the library from a backup ` +
    `(a library.sqlite.bak-* file beside it if one exists)`;
  const found = readDatabaseVersion(file);
  switch (found.kind) {
    case 'missing':
      return null; // no library here yet: the first import or record creates it
    case 'empty':
      return {
        sound: false,
        check: {
          ...base,
          ok: false,
          summary: `${file} is empty (0 bytes): the library's recordings are not readable from it`,
          fix: `${aside}; do not open it with other commands first`,
        },
      };
    case 'unreadable':
      return {
        sound: false,
        check: {
          ...base,
          ok: false,
          summary: `${file} is not a readable SQLite database (${found.code})`,
          fix: aside,
        },
      };
    case 'ok':
      break;
  }
  if (found.version > LATEST_SCHEMA_VERSION) {
    return {
      sound: false,
      check: {
        ...base,
        ok: false,
        summary:
          `${file} has schema version ${found.version}, newer than this cua-annotator knows ` +
          `(${LATEST_SCHEMA_VERSION}): it was written by a newer version`,
        fix:
          `upgrade cua-annotator to the version that wrote this library, or use another ` +
          'library with --library DIR',
      },
    };
  }
  let integrity: ReturnType<typeof checkDatabaseIntegrity>;
  let recordings = 0;
  try {
    const db = openDatabase(file, { readonly: true });
    try {
      integrity = checkDatabaseIntegrity(db, { mode: 'quick', maxProblems: 5 });
      if (integrity.ok) {
        recordings = listRecordingDirs(db).length;
      }
    } finally {
      db.close();
    }
  } catch (e) {
    integrity = { ok: false, problems: [(e as Error).message] };
  }
  if (!integrity.ok) {
    return {
      sound: false,
      check: {
        ...base,
        ok: false,
        summary: `${file} is damaged (SQLite integrity check: ${integrity.problems[0] ?? 'failed'})`,
        fix:
          `copy the library folder aside first, then salvage what SQLite can read: ` +
          `\`sqlite3 '${file}' .recover | sqlite3 '${file}.recovered'\`, check it, and put it ` +
          `in place of ${DB_FILE_NAME}; or restore a backup`,
      },
    };
  }
  const upgrade =
    found.version < LATEST_SCHEMA_VERSION
      ? `; upgraded to ${LATEST_SCHEMA_VERSION} on the next open (backed up first)`
      : '';
  return {
    sound: true,
    check: {
      ...base,
      ok: true,
      summary:
        `${DB_FILE_NAME}: schema version ${found.version}${upgrade}, integrity ok, ` +
        `${recordings} recording${recordings === 1 ? '' : 's'}`,
    },
  };
}
