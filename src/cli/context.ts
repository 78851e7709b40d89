// Opens the library for a command (resolving --library / CUA_ANNOTATOR_LIBRARY / default).
import { openLibrary, type Library } from '../services/library/library';
import { resolveLibraryDir } from '../services/library/library-path';

/** Opens the library named by the flag/env/default and runs `fn`, always closing it. */
export async function withLibrary<T>(
  flag: string | undefined,
  fn: (lib: Library) => Promise<T> | T,
): Promise<T> {
  const { dir } = resolveLibraryDir({ flag });
  const lib = openLibrary(dir);
  try {
    return await fn(lib);
  } finally {
    lib.close();
  }
}
