// How a host opens a library (the CLI per command, the server and the app once): resolve the
// folder (flag, CUA_ANNOTATOR_LIBRARY, default), open it — on a full disk after releasing the
// space reserve, since SQLite needs room for its shared-memory file even to delete — recover the
// recordings a crashed recorder left `active`, then remove what interrupted imports, pulls and
// deletes left behind (cleanup.ts). Each of these says what it did through `notice`.
import { listActiveRecordings } from '../../store';
import {
  cleanupLibrary,
  describeCleanup,
  ensureSpaceReserve,
  freeBytes,
  releaseSpaceReserve,
} from './cleanup';
import { openLibrary, type Library } from './library';
import { resolveLibraryDir } from './library-path';

/** Options of {@link openLibraryForHost}. */
export type OpenForHostOptions = {
  /** The --library flag (else CUA_ANNOTATOR_LIBRARY, else the app's data folder). */
  flag?: string | undefined;
  /** Create the library when the folder holds none; default false. */
  create?: boolean;
  /** The host only reads: a library that cannot be written opens read-only (no recovery, no
   * clean-up) instead of failing with LIBRARY_READ_ONLY; default false. */
  allowReadOnly?: boolean;
  /** Receives one line per thing done or found (recoveries, clean-ups, warnings). */
  notice: (line: string) => void;
};

/** Opens the library for a host, recovered and cleaned up; the caller closes it. */
export async function openLibraryForHost(options: OpenForHostOptions): Promise<Library> {
  const { dir, from } = resolveLibraryDir({ flag: options.flag });
  const lib = openOnFullDisk(
    dir,
    () =>
      openLibrary(dir, {
        create: options.create ?? false,
        from,
        allowReadOnly: options.allowReadOnly ?? false,
      }),
    options.notice,
  );
  if (lib.readOnly) {
    // nothing can be recovered or cleaned up: say what is left as it is
    const active = listActiveRecordings(lib.db).length;
    options.notice(
      `library: ${lib.dir} is read-only: opened for reading` +
        (active ? `; ${active} recording(s) left by a crashed recorder are shown as they are` : ''),
    );
    return lib;
  }
  try {
    await recover(lib, options.notice);
    cleanUpOnOpen(lib, options.notice);
    return lib;
  } catch (e) {
    lib.close();
    throw e;
  }
}

async function recover(lib: Library, notice: (line: string) => void): Promise<void> {
  try {
    // the recovery code (ffmpeg, remux, reducer) loads only when a recording was left active
    const recovered = listActiveRecordings(lib.db).length
      ? await (await import('../recording/crash-recovery')).recoverActiveRecordings(lib)
      : [];
    for (const r of recovered) {
      notice(
        `recovered ${r.id} after a crash: ${r.status}, ${r.frames} frames, ${r.steps} steps` +
          (r.warnings.length ? ` (${r.warnings.join('; ')})` : ''),
      );
    }
  } catch (e) {
    notice(`warning: could not recover interrupted recordings yet: ${(e as Error).message}`);
  }
}

function openOnFullDisk(dir: string, open: () => Library, notice: (line: string) => void): Library {
  try {
    return open();
  } catch (e) {
    const free = freeBytes(dir);
    if (free === null || free > 1024 * 1024 || !releaseSpaceReserve(dir)) {
      throw e;
    }
    notice("warning: the disk is full: released the library's space reserve to open it");
    return open();
  }
}

// What interrupted imports, pulls and deletes left: removed once, said in one line each.
function cleanUpOnOpen(lib: Library, notice: (line: string) => void): void {
  ensureSpaceReserve(lib.dir);
  try {
    const report = cleanupLibrary(lib);
    for (const line of describeCleanup(report)) {
      notice(`library: ${line}`);
    }
    for (const e of report.errors) {
      notice(`warning: could not clean up ${e.path}: ${e.message}`);
    }
  } catch (e) {
    notice(`warning: could not clean up the library: ${(e as Error).message}`);
  }
}
