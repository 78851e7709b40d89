// Where a remote client of `serve --host` may export to: only under the folder the person who
// started the server named (`--export-root`), never anywhere the server's user can write.
import fs from 'node:fs';
import path from 'node:path';
import type { ResultError } from '../shared/result';

// The real path of `target` as far as it exists, with the parts that do not exist yet appended
// (they cannot be symlinks); null when nothing of it resolves.
function realPathOfTarget(target: string): string | null {
  let existing = path.resolve(target);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(existing), ...rest);
    } catch {
      const parent = path.dirname(existing);
      if (parent === existing) {
        return null;
      }
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

// True when `inner` is `outer` or lies inside it (both real, absolute paths).
function isInside(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Why an `exports:run` from a remote client must be refused (null when allowed): no export root
 * was configured, or the output folder, after `..` and every symlink are resolved, is not inside
 * it. The error is FORBIDDEN (HTTP 403) with a fix.
 */
export function remoteExportRefusal(
  payload: unknown,
  exportRoot: string | undefined,
): ResultError | null {
  const outDir =
    typeof payload === 'object' && payload !== null && 'outDir' in payload
      ? payload.outDir
      : undefined;
  if (typeof outDir !== 'string') {
    // the dispatcher's validator answers a missing or malformed outDir
    return null;
  }
  if (exportRoot === undefined) {
    return {
      code: 'FORBIDDEN',
      message:
        'exports:run from another machine is refused: this server was started without an ' +
        'export folder for remote clients, and it will not write wherever its user can.',
      details: { outDir },
      fix:
        'Restart serve with --export-root DIR (a folder remote reviewers may export under), ' +
        'or export from the machine running serve (`cua-annotator export`).',
    };
  }
  const root = realPathOfTarget(exportRoot);
  const target = path.isAbsolute(outDir) ? realPathOfTarget(outDir) : null;
  if (root === null || target === null || !isInside(root, target)) {
    return {
      code: 'FORBIDDEN',
      message: `exports:run from another machine may only write under ${exportRoot}; ${outDir} is outside it (after resolving .. and symbolic links).`,
      details: { outDir, exportRoot },
      fix: `Choose an output folder inside ${exportRoot}.`,
    };
  }
  return null;
}
