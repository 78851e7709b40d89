// Where the recording library lives: flag → env → the desktop app's per-OS data folder.
import os from 'node:os';
import path from 'node:path';
import { AppError } from '../../shared/errors';

/** Inputs of {@link resolveLibraryDir}; defaults come from the running process. */
export type LibraryPathInput = {
  /** `--library DIR` from the command line. */
  flag?: string | undefined;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
};

/** App folder name used under the OS data directory. */
export const APP_DIR_NAME = 'cua-annotator';

/** Resolves the library folder: `--library`, then CUA_ANNOTATOR_LIBRARY, then the OS default;
 * an empty `--library` is a USAGE error. */
export function resolveLibraryDir(input: LibraryPathInput = {}): { dir: string; from: string } {
  const env = input.env ?? process.env;
  if (input.flag !== undefined && input.flag.trim() === '') {
    // `--library ""` (an unset shell variable) must not fall back to the home library
    throw new AppError(
      'USAGE',
      '--library was given an empty folder name.',
      { flag: '--library' },
      'Pass --library DIR with the library folder, or leave --library out to use the default library.',
    );
  }
  if (input.flag) {
    return { dir: path.resolve(input.flag), from: '--library' };
  }
  if (env.CUA_ANNOTATOR_LIBRARY) {
    return { dir: path.resolve(env.CUA_ANNOTATOR_LIBRARY), from: 'CUA_ANNOTATOR_LIBRARY' };
  }
  return {
    dir: defaultLibraryDir(input.platform ?? process.platform, env, input.home),
    from: 'default',
  };
}

/** The desktop app's userData folder per OS. */
export function defaultLibraryDir(
  platform: NodeJS.Platform,
  env: NodeJS.ProcessEnv,
  home = os.homedir(),
): string {
  switch (platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', APP_DIR_NAME);
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), APP_DIR_NAME);
    default:
      return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), APP_DIR_NAME);
  }
}
