// Opens the library for a command (resolving --library / CUA_ANNOTATOR_LIBRARY / default) and
// first recovers recordings a crashed recorder left `active`, then removes what interrupted
// imports, pulls and deletes left behind (src/services/library/cleanup.ts).
import {
  cleanupLibrary,
  describeCleanup,
  ensureSpaceReserve,
  freeBytes,
  releaseSpaceReserve,
} from '../services/library/cleanup';
import type { CreateServicesOptions, Services } from '../services/create-services';
import { openLibrary, type Library } from '../services/library/library';
import { resolveLibraryDir } from '../services/library/library-path';
import { listActiveRecordings } from '../store';
import { errLine } from './output';
import { APP_VERSION } from './version';

/** Options of {@link withLibrary}. */
export type WithLibraryOptions = {
  /** Create the library when the folder holds none (only `import` and `record`); default false. */
  create?: boolean;
};

/** Opens the library named by the flag/env/default and runs `fn`, always closing it. */
export async function withLibrary<T>(
  flag: string | undefined,
  fn: (lib: Library) => Promise<T> | T,
  options: WithLibraryOptions = {},
): Promise<T> {
  const { dir, from } = resolveLibraryDir({ flag });
  const lib = openOnFullDisk(dir, () =>
    openLibrary(dir, { create: options.create ?? false, from }),
  );
  try {
    try {
      // the recovery code (ffmpeg, remux, reducer) loads only when a recording was left active
      const recovered = listActiveRecordings(lib.db).length
        ? await (await import('../services/recording/crash-recovery')).recoverActiveRecordings(lib)
        : [];
      for (const r of recovered) {
        errLine(
          `recovered ${r.id} after a crash: ${r.status}, ${r.frames} frames, ${r.steps} steps` +
            (r.warnings.length ? ` (${r.warnings.join('; ')})` : ''),
        );
      }
    } catch (e) {
      errLine(`warning: could not recover interrupted recordings yet: ${(e as Error).message}`);
    }
    cleanUpOnOpen(lib);
    return await fn(lib);
  } finally {
    lib.close();
  }
}

// A full disk leaves no room for SQLite's shared-memory file, so even `delete` (the way to free
// space) could not open the library: the space reserve is released for that one open.
function openOnFullDisk(dir: string, open: () => Library): Library {
  try {
    return open();
  } catch (e) {
    const free = freeBytes(dir);
    if (free === null || free > 1024 * 1024 || !releaseSpaceReserve(dir)) {
      throw e;
    }
    errLine("warning: the disk is full: released the library's space reserve to open it");
    return open();
  }
}

// What interrupted imports, pulls and deletes left: removed once, said in one line each.
function cleanUpOnOpen(lib: Library): void {
  ensureSpaceReserve(lib.dir);
  try {
    const report = cleanupLibrary(lib);
    for (const line of describeCleanup(report)) {
      errLine(`library: ${line}`);
    }
    for (const e of report.errors) {
      errLine(`warning: could not clean up ${e.path}: ${e.message}`);
    }
  } catch (e) {
    errLine(`warning: could not clean up the library: ${(e as Error).message}`);
  }
}

/** {@link withLibrary} for the commands that may create the library (`import`, `record`). */
export function withLibraryOrCreate<T>(
  flag: string | undefined,
  fn: (lib: Library) => Promise<T> | T,
): Promise<T> {
  return withLibrary(flag, fn, { create: true });
}

/** Options of {@link withServices}. */
export type WithServicesOptions = WithLibraryOptions & {
  /** Host settings beyond the CLI's defaults (version, log to standard error). */
  services?: Partial<CreateServicesOptions>;
};

/**
 * Opens the library (as {@link withLibrary}), builds its services through the composition root
 * (src/services/create-services.ts) and runs `fn`; always closes the services, then the library.
 */
export function withServices<T>(
  flag: string | undefined,
  fn: (services: Services) => Promise<T> | T,
  options: WithServicesOptions = {},
): Promise<T> {
  return withLibrary(
    flag,
    async (lib) => {
      // loaded here, not at the top: `list` and `show` (withLibrary only) stay quick to start
      const { createServices } = await import('../services/create-services');
      const services = createServices(lib, {
        appVersion: APP_VERSION,
        log: errLine,
        ...options.services,
      });
      try {
        return await fn(services);
      } finally {
        await services.close();
      }
    },
    { create: options.create ?? false },
  );
}
