// The one check every host that serves files makes (the browser host's /media and static files,
// the desktop app's cua-media:// and cua-app:// protocols): a file is served only when its real
// path (symlinks followed) is a regular file strictly inside the real path of its folder.
import fs from 'node:fs';
import path from 'node:path';

/** The real path of `file` when it is a regular file inside `folder`, else null. */
export function realFileInside(folder: string, file: string): string | null {
  try {
    const root = fs.realpathSync(folder);
    const real = fs.realpathSync(file);
    return real.startsWith(root + path.sep) && fs.statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}
