// The output folder of an export: checked before anything is written, created one level at a
// time (a recursive mkdir under /proc never returns), and file-system errors turned into coded
// errors that say what to do.
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';

// statfs(2) magic numbers of pseudo file systems that cannot hold an export (linux/magic.h)
const PSEUDO_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x73636673, 'securityfs'],
  [0x74726163, 'tracefs'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
  [0x42494e4d, 'binfmt_misc'],
  [0xf97cff8c, 'selinuxfs'],
  [0xde5e81e4, 'efivarfs'],
]);

const FIX_INVALID = 'Choose an --out folder on a disk whose parent folders all exist as folders.';
const FIX_UNWRITABLE = 'Choose an --out folder you can write to, or fix its permissions.';
const FIX_FULL =
  'Free some space on that disk or choose an --out folder on another disk, then export again.';

/** The errno code of a Node file-system error, if any. */
export function errnoOf(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The coded error for a file-system failure while writing `outDir`, or null when `e` is not one
 * the user can fix by choosing another folder or freeing space.
 */
export function exportFsError(e: unknown, outDir: string): AppError | null {
  const code = errnoOf(e);
  const where = (e as { path?: unknown }).path;
  const at = typeof where === 'string' ? where : outDir;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError(
        'DISK_FULL',
        `The disk holding ${outDir} is full (${code} writing ${at}); nothing was exported.`,
        { outDir, errno: code },
        FIX_FULL,
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new AppError(
        'EXPORT_TARGET_UNWRITABLE',
        `${at} cannot be written (${code}${code === 'EROFS' ? ': read-only file system' : ''}); nothing was exported.`,
        { outDir, path: at, errno: code },
        FIX_UNWRITABLE,
      );
    case 'ENOTDIR':
    case 'EISDIR':
    case 'ENAMETOOLONG':
    case 'ELOOP':
    case 'EINVAL':
    case 'EEXIST':
      return new AppError(
        'EXPORT_TARGET_INVALID',
        `${at} cannot be used for the export (${code}); nothing was exported.`,
        { outDir, path: at, errno: code },
        FIX_INVALID,
      );
    default:
      return null;
  }
}

/** Rethrows `e` as its coded export error when it has one. */
export function rethrowExportFsError(e: unknown, outDir: string): never {
  throw exportFsError(e, outDir) ?? e;
}

/**
 * Makes sure `outDir` exists and can take an export: every existing parent is a folder on a real
 * file system we can write to; the missing levels are created one by one.
 */
export async function prepareOutDir(outDir: string): Promise<void> {
  const missing: string[] = [];
  let dir = outDir;
  for (;;) {
    try {
      const st = await fs.stat(dir);
      if (!st.isDirectory()) {
        throw new AppError(
          'EXPORT_TARGET_INVALID',
          dir === outDir
            ? `${outDir} is a file, not a folder; nothing was exported.`
            : `${dir} is a file, so the output folder ${outDir} cannot be created inside it.`,
          { outDir, path: dir, errno: 'ENOTDIR' },
          FIX_INVALID,
        );
      }
      break;
    } catch (e) {
      const code = errnoOf(e);
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        rethrowExportFsError(e, outDir);
      }
      const parent = path.dirname(dir);
      if (parent === dir) {
        rethrowExportFsError(e, outDir);
      }
      missing.unshift(dir);
      dir = parent;
    }
  }
  // `dir` is the nearest existing folder: refuse pseudo file systems before trying to create
  let kind: string | null = null;
  try {
    kind = PSEUDO_FILE_SYSTEMS.get((await fs.statfs(dir)).type) ?? null;
  } catch {
    // no statfs here: the writes below report what is wrong
  }
  if (kind !== null) {
    throw new AppError(
      'EXPORT_TARGET_INVALID',
      `${outDir} is on the ${kind} pseudo file system (${dir}), which cannot hold files.`,
      { outDir, path: dir, fileSystem: kind },
      FIX_INVALID,
    );
  }
  try {
    await fs.access(dir, fsConstants.W_OK);
  } catch (e) {
    rethrowExportFsError(e, outDir);
  }
  for (const level of missing) {
    try {
      await fs.mkdir(level);
    } catch (e) {
      if (errnoOf(e) === 'EEXIST' && (await fs.stat(level)).isDirectory()) {
        continue; // created meanwhile by another export
      }
      rethrowExportFsError(e, outDir);
    }
  }
}
