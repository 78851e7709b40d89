// Library upkeep checks, for a library whose database is sound: leftovers of interrupted imports,
// pulls and deletes, folders moved to recordings/.orphans, stale step counts; and `--repair`, the
// safe fixes (the clean-up every command runs when it opens the library, and the step recount).
import path from 'node:path';
import { openDatabase } from '../../../store';
import {
  cleanupLibrary,
  describeCleanup,
  formatBytes,
  ORPHANS_DIR,
  quarantinedFolders,
  type CleanupReport,
} from '../../library/cleanup';
import { DB_FILE_NAME, openLibrary, RECORDINGS_DIR, type Library } from '../../library/library';
import { staleStepCounts } from '../../recordings';
import type { DoctorCheck, DoctorRepair } from './check';

// Read-only view of the library for the clean-up's dry run (nothing is migrated or written).
function readOnlyLibrary(dir: string): Library {
  const db = openDatabase(path.join(dir, DB_FILE_NAME), { readonly: true });
  return {
    dir,
    db,
    resolve: (relative) => path.resolve(dir, relative),
    close: () => db.close(),
  };
}

// What interrupted imports, pulls and deletes left (`--repair` cleans it up), and the recording
// folders with no row that a clean-up moved to recordings/.orphans (only the user deletes those).
export function checkOrphans(libraryDir: string): DoctorCheck {
  const base = { id: 'orphans', severity: 'warning' } as const;
  let report: CleanupReport;
  let held: ReturnType<typeof quarantinedFolders>;
  try {
    const lib = readOnlyLibrary(libraryDir);
    try {
      report = cleanupLibrary(lib, { dryRun: true });
    } finally {
      lib.close();
    }
    held = quarantinedFolders(libraryDir);
  } catch (e) {
    return { ...base, ok: false, summary: `could not look for leftovers: ${(e as Error).message}` };
  }
  const quarantine = `${RECORDINGS_DIR}/${ORPHANS_DIR}`;
  const pending = report.items.filter((i) => i.action !== 'kept');
  const inUse = report.items.length - pending.length;
  const inUseText = inUse ? ` (${inUse} in use by a running import or delete, left alone)` : '';
  if (!pending.length && !held.names.length) {
    return {
      ...base,
      ok: true,
      summary: `no leftovers of interrupted imports or deletes${inUseText}`,
    };
  }
  const parts: string[] = [];
  if (held.names.length) {
    parts.push(
      `${held.names.length} recording folder(s) with no recording in ${quarantine} ` +
        `(${formatBytes(held.bytes)}, kept, never deleted automatically): ${held.names.join(', ')}`,
    );
  }
  if (pending.length) {
    const aside = pending.filter((i) => i.action === 'quarantined').length;
    parts.push(
      `${pending.length} leftover(s) of interrupted imports, pulls or deletes ` +
        `(${formatBytes(report.freedBytes)} to free` +
        (aside ? `; ${aside} recording folder(s) to move to ${quarantine}` : '') +
        `): ${pending.map((i) => i.path).join(', ')}`,
    );
  }
  const inspect =
    `inspect the folders in ${path.join(libraryDir, RECORDINGS_DIR, ORPHANS_DIR)} and delete ` +
    'those you do not need yourself; get back those you want by restoring the library.sqlite ' +
    'backup that still lists them (an imported recording can also be re-imported with ' +
    '`cua-annotator import <folder>/raw`)';
  return {
    ...base,
    ok: false,
    summary: `${parts.join('; ')}${inUseText}`,
    fix: held.names.length
      ? pending.length
        ? `run \`cua-annotator doctor --repair\` to clean up the leftovers, then ${inspect}`
        : inspect.charAt(0).toUpperCase() + inspect.slice(1)
      : 'run `cua-annotator doctor --repair` (or any command that opens the library) to clean them up',
  };
}

// Libraries edited before step counts followed edits show stale counts in `list`.
export function checkStepCounts(libraryDir: string): DoctorCheck {
  const base = { id: 'stepcounts', severity: 'warning' } as const;
  let stale: ReturnType<typeof staleStepCounts>;
  try {
    const lib = readOnlyLibrary(libraryDir);
    try {
      stale = staleStepCounts(lib);
    } finally {
      lib.close();
    }
  } catch (e) {
    return { ...base, ok: false, summary: `could not check step counts: ${(e as Error).message}` };
  }
  if (!stale.length) {
    return { ...base, ok: true, summary: 'step counts match the edited steps' };
  }
  return {
    ...base,
    ok: false,
    summary:
      `${stale.length} recording(s) list a stale step count (` +
      stale
        .slice(0, 3)
        .map((r) => `${r.id.slice(0, 8)}: ${r.stored} listed, ${r.shown} shown`)
        .join('; ') +
      (stale.length > 3 ? '; …' : '') +
      ')',
    fix: 'run `cua-annotator doctor --repair` to store the right counts',
  };
}

// The safe fixes: the same clean-up every command runs when it opens the library.
export function repairLibrary(libraryDir: string): DoctorRepair {
  let lib: Library | null = null;
  try {
    // repairing never creates a library where there is none (a mistyped --library)
    lib = openLibrary(libraryDir, { create: false });
    const report = cleanupLibrary(lib);
    const lines = describeCleanup(report);
    const recounted = staleStepCounts(lib, { fix: true });
    if (recounted.length) {
      lines.push(`stored the right step count of ${recounted.length} recording(s)`);
    }
    return { ...report, lines: lines.length ? lines : ['nothing to repair'] };
  } catch (e) {
    return {
      items: [],
      freedBytes: 0,
      errors: [{ path: libraryDir, message: (e as Error).message }],
      lines: [`could not repair: ${(e as Error).message}`],
    };
  } finally {
    lib?.close();
  }
}
