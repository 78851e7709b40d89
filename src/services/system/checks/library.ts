// Library folder check: the folder exists and takes a real write, or can be created; a read-only
// one says which commands still work and the fix that fits (a read-only mount or permissions).
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { access, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DoctorCheck } from './check';

// The library folder is writable, or can be created where it is asked for.
export async function checkLibrary(libraryDir: string): Promise<DoctorCheck> {
  const absolute = path.resolve(libraryDir);
  const base = { id: 'library', severity: 'error' } as const;
  const chooseOther = 'or choose another library folder';

  let isDirectory: boolean | null;
  try {
    isDirectory = (await stat(absolute)).isDirectory();
  } catch {
    isDirectory = null;
  }

  if (isDirectory === false) {
    return {
      ...base,
      ok: false,
      summary: `library path ${absolute} exists but is not a folder`,
      fix: `move that file away, ${chooseOther}`,
    };
  }

  if (isDirectory === true) {
    // a real write: access(W_OK) says yes to root even where writes fail (read-only mounts, ACLs)
    const probe = path.join(absolute, `.doctor-write-test-${randomBytes(6).toString('hex')}`);
    try {
      await writeFile(probe, '');
      await unlink(probe);
      return { ...base, ok: true, summary: `library folder ${absolute} is writable` };
    } catch (error) {
      // read-only (issue 26 item 20): reading commands still work, say so and give the fix
      // that fits (a read-only mount is not a permission problem)
      const code = errnoOf(error);
      const reads =
        'commands that only read still work (list, show, check, scan, export to a writable ' +
        'folder, doctor); recording, importing and editing need it writable';
      return {
        ...base,
        ok: false,
        summary:
          code === 'EROFS'
            ? `library folder ${absolute} is read-only: its file system is mounted read-only (EROFS); ${reads}`
            : `library folder ${absolute} is read-only for this user (${code}); ${reads}`,
        fix:
          code === 'EROFS'
            ? `remount its file system read-write (\`mount -o remount,rw\` on its mount point), or copy the library to a writable folder and pass --library DIR`
            : `have the folder's owner make it writable for this user (\`chmod -R u+w '${absolute}'\` as the owner), run as its owner, ${chooseOther}`,
      };
    }
  }

  const ancestor = await nearestExistingAncestor(absolute);
  try {
    if (ancestor === null || !(await stat(ancestor)).isDirectory()) {
      throw new Error('ENOTDIR');
    }
    await access(ancestor, fsConstants.W_OK | fsConstants.X_OK);
    return {
      ...base,
      ok: true,
      summary: `library folder ${absolute} does not exist yet; it can be created in ${ancestor}`,
    };
  } catch (error) {
    return {
      ...base,
      ok: false,
      summary: `library folder ${absolute} cannot be created (${ancestor ?? 'no parent'}: ${errnoOf(error)})`,
      fix: `create it with \`mkdir -p '${absolute}'\` as a user allowed to and make it writable for this user, ${chooseOther}`,
    };
  }
}

async function nearestExistingAncestor(dir: string): Promise<string | null> {
  let current = path.dirname(dir);
  for (;;) {
    try {
      await stat(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) {
        return null;
      }
      current = parent;
    }
  }
}

function errnoOf(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ?? error.message;
  }
  return String(error);
}
