// The desktop app's config outside any library (the library folder it opens): defaults on a
// missing or broken file, an atomic write, and the settings hook the app gives createServices.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APP_CONFIG_FILE,
  libraryDirSetting,
  readAppConfig,
  writeAppConfig,
} from '../../src/main/app-config';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-app-config-'));
  dirs.push(d);
  return d;
};

describe('app config', () => {
  it('is the defaults when the file is missing, broken or names a relative folder', () => {
    const d = temp();
    expect(readAppConfig(d)).toEqual({ libraryDir: null });
    fs.writeFileSync(path.join(d, APP_CONFIG_FILE), '{ not json');
    expect(readAppConfig(d)).toEqual({ libraryDir: null });
    fs.writeFileSync(path.join(d, APP_CONFIG_FILE), JSON.stringify({ libraryDir: 'rel/dir' }));
    expect(readAppConfig(d)).toEqual({ libraryDir: null });
  });

  it('writes atomically (no temp file left) and reads back through the settings hook', () => {
    const d = path.join(temp(), 'userData');
    const hook = libraryDirSetting(d);
    expect(hook.next()).toBeNull();
    hook.set('/data/cua-library');
    expect(hook.next()).toBe('/data/cua-library');
    expect(fs.readdirSync(d)).toEqual([APP_CONFIG_FILE]);
    writeAppConfig(d, { libraryDir: null });
    expect(hook.next()).toBeNull();
  });
});
