// electron-builder.yml checks (tools/packaging/builder-config.ts): the real file passes, and
// mutated copies fail for the right reason (schema, missing files, missing settings).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBuilderConfig, plistTrueKeys } from '../../tools/packaging/builder-config';

const root = path.resolve(import.meta.dirname, '../..');
type Config = Record<string, Record<string, unknown>>;

let dir: string;
let original: Config;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'builder-config-'));
  original = load(await readFile(path.join(root, 'electron-builder.yml'), 'utf8')) as Config;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Checks a copy of electron-builder.yml changed by `mutate` (paths stay relative to the repo). */
async function checkMutated(name: string, mutate: (config: Config) => void): Promise<string[]> {
  const config = structuredClone(original);
  mutate(config);
  const configFile = path.join(dir, `${name}.yml`);
  await writeFile(configFile, dump(config));
  return (await checkBuilderConfig({ root, configFile })).problems;
}

describe('electron-builder.yml', () => {
  it('passes the schema and every check', async () => {
    const { problems } = await checkBuilderConfig({ root });
    expect(problems).toEqual([]);
  });

  it('a round trip through the test helper changes nothing', async () => {
    expect(await checkMutated('unchanged', () => {})).toEqual([]);
  });
});

describe('a mutated copy', () => {
  it('fails the schema on an unknown key', async () => {
    const problems = await checkMutated('unknown-key', (c) => {
      c.mac!.hardenedRuntim = true;
    });
    expect(problems).toContain(
      'schema: /mac: must NOT have additional properties (hardenedRuntim)',
    );
  });

  it('fails the schema on an unknown top-level key and on a wrong type', async () => {
    const problems = await checkMutated('wrong-type', (c) => {
      (c as Record<string, unknown>).npmRebuilt = false;
      c.nsis!.oneClick = 'yes';
    });
    expect(problems).toContain('schema: /: must NOT have additional properties (npmRebuilt)');
    expect(problems).toContain('schema: /nsis/oneClick: must be boolean');
  });

  it('fails when a referenced file does not exist', async () => {
    const problems = await checkMutated('missing-files', (c) => {
      c.mac!.entitlements = 'build/no-such.plist';
      c.linux!.icon = 'build/no-such.png';
      (c as Record<string, unknown>).afterPack = './tools/packaging/no-such-hook.mjs';
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'mac.entitlements: build/no-such.plist does not exist',
        'linux.icon: build/no-such.png does not exist',
        'afterPack: ./tools/packaging/no-such-hook.mjs does not exist',
      ]),
    );
  });

  it('fails without a usage string, hardened runtime or the native modules unpacked', async () => {
    const problems = await checkMutated('settings', (c) => {
      delete (c.mac!.extendInfo as Record<string, unknown>).NSScreenCaptureUsageDescription;
      c.mac!.hardenedRuntime = false;
      (c as Record<string, unknown>).asarUnpack = ['node_modules/ffmpeg-static/**'];
      (c as Record<string, unknown>).npmRebuild = true;
      c.deb!.depends = ['libgtk-3-0'];
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'mac.extendInfo.NSScreenCaptureUsageDescription: a usage string is required',
        'mac.hardenedRuntime must be true',
        'asarUnpack: node_modules/better-sqlite3/** is missing',
        'asarUnpack: node_modules/uiohook-napi/** is missing',
        'npmRebuild must be false (Node-API prebuilds load in Electron as they are)',
        'deb.depends: ffmpeg is missing',
        'deb.depends: at-spi2-core is missing',
      ]),
    );
  });

  it("fails when koffi or its binaries are not unpacked, or a target's binary is excluded", async () => {
    const problems = await checkMutated('koffi', (c) => {
      const root = c as Record<string, unknown>;
      root.asarUnpack = (root.asarUnpack as string[]).filter((p) => !p.includes('koffi'));
      c.win!.files = ['!node_modules/@koromix/koffi-win32-*/**'];
      delete c.linux!.files;
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'asarUnpack: node_modules/koffi/** is missing',
        "asarUnpack: node_modules/@koromix/koffi-*/** is missing (koffi's binaries)",
        "win.files: excludes @koromix/koffi-win32-x64, the helper's koffi binary",
        "win.files: excludes @koromix/koffi-win32-arm64, the helper's koffi binary",
        "linux.files: @koromix/koffi-darwin-x64 (another system's koffi binary) is not excluded",
      ]),
    );
  });

  it("fails when nut-js's libnut (the replay driver's native part) is not unpacked", async () => {
    const problems = await checkMutated('libnut', (c) => {
      const root = c as Record<string, unknown>;
      root.asarUnpack = (root.asarUnpack as string[]).filter((p) => !p.includes('libnut'));
    });
    expect(problems).toContain(
      "asarUnpack: node_modules/@nut-tree-fork/libnut-*/** is missing (nut-js's native libnut, replay)",
    );
  });

  it('fails when the entitlements grant what the app does not need', async () => {
    const plist = path.join(dir, 'too-much.plist');
    const granted = (
      await readFile(path.join(root, 'build/entitlements.mac.plist'), 'utf8')
    ).replace(
      '</dict>',
      '<key>com.apple.security.cs.disable-library-validation</key><true/></dict>',
    );
    await writeFile(plist, granted);
    const problems = await checkMutated('entitlements', (c) => {
      c.mac!.entitlements = plist;
    });
    expect(problems).toEqual([
      `${plist}: com.apple.security.cs.disable-library-validation is not needed (docs/packaging.md §3)`,
    ]);
  });
});

describe('plistTrueKeys', () => {
  it('lists the keys set to true, skipping comments and false values', () => {
    const xml = `<plist><dict><!-- <key>commented</key><true/> -->
      <key>a.b</key>
      <true/>
      <key>c</key><false/>
    </dict></plist>`;
    expect(plistTrueKeys(xml)).toEqual(['a.b']);
  });
});
