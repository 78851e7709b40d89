// The user's cache folder of cua-annotator: what can be rebuilt at any time (ffmpeg's
// capabilities, Node's compile cache). Linux: $XDG_CACHE_HOME/cua-annotator, else
// ~/.cache/cua-annotator; macOS: ~/Library/Caches/cua-annotator; Windows:
// %LOCALAPPDATA%\cua-annotator\Cache. bin/cua-annotator.mjs computes the same folder (it runs
// before any of our modules load).
import os from 'node:os';
import path from 'node:path';

/** App folder name under the OS cache directory. */
const APP_CACHE_NAME = 'cua-annotator';

/** The cache folder for `platform` and `env` (nothing is created). */
export function userCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  switch (platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Caches', APP_CACHE_NAME);
    case 'win32':
      return path.join(
        env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'),
        APP_CACHE_NAME,
        'Cache',
      );
    default:
      return path.join(env.XDG_CACHE_HOME || path.join(home, '.cache'), APP_CACHE_NAME);
  }
}
