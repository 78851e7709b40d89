// The desktop app's own settings, outside any library: which library folder it opens. A JSON
// file in Electron's userData folder, written atomically (temp file + rename).
import fs from 'node:fs';
import path from 'node:path';

/** What the app keeps outside the library. */
export type AppConfig = {
  /** The library folder to open (null: CUA_ANNOTATOR_LIBRARY or the default). */
  libraryDir: string | null;
};

/** File name of the config in the userData folder. */
export const APP_CONFIG_FILE = 'cua-annotator.json';

/** Reads the config; a missing or unreadable file is the defaults (never throws). */
export function readAppConfig(userDataDir: string): AppConfig {
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(userDataDir, APP_CONFIG_FILE), 'utf8')) as {
      libraryDir?: unknown;
    };
    return {
      libraryDir:
        typeof raw.libraryDir === 'string' && path.isAbsolute(raw.libraryDir)
          ? raw.libraryDir
          : null,
    };
  } catch {
    return { libraryDir: null };
  }
}

/** Writes the config atomically: a crash leaves the old file or the new one, never half. */
export function writeAppConfig(userDataDir: string, config: AppConfig): void {
  fs.mkdirSync(userDataDir, { recursive: true });
  const file = path.join(userDataDir, APP_CONFIG_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`);
  fs.renameSync(temp, file);
}

/** The `libraryDirSetting` the app gives createServices: kept in its config for the next start. */
export function libraryDirSetting(userDataDir: string): {
  next: () => string | null;
  set: (dir: string) => void;
} {
  return {
    next: () => readAppConfig(userDataDir).libraryDir,
    set: (dir) => writeAppConfig(userDataDir, { ...readAppConfig(userDataDir), libraryDir: dir }),
  };
}
