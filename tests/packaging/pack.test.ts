// Real electron-builder runs over electron-builder.yml, offline: `--linux dir`, `--win dir` and
// `--mac dir` (the unpacked apps that the AppImage, deb, NSIS installer and dmg wrap) against
// stand-in Electron distributions (`electronDist` instead of the downloaded zip). They exercise
// electron-builder's own config validation, the files and asarUnpack patterns, npmRebuild off, the
// afterPack fuse hook, the asar integrity that Windows and macOS embed, and the macOS Info.plist
// with its usage strings (docs/packaging.md §7). Needs the built bundles (npx electron-vite build,
// npm run build:node).
//
// The Linux and macOS stand-ins are written here: files with Electron's fuse sentinel and wire,
// and for macOS an Electron.app skeleton with its Info.plist and one helper app. The Windows one,
// fixtures/electron-win/electron.exe (1.5 kB), is a PE32+ made with resedit: an empty executable
// with a version resource (electron-builder adds the asar integrity next to it) and an RCDATA
// resource holding the sentinel and Electron 45's default wire '10110001'.
import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELPER_BUNDLES, KOFFI_PACKAGES } from '../../tools/packaging/builder-config';

const root = path.resolve(import.meta.dirname, '../..');
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Electron 45's defaults: RunAsNode, NodeOptions, CliInspect, GrantFileProtocol on. */
const DEFAULT_WIRE = '10110001';
/** After the hook: RunAsNode, Cookie, NodeOptions, Inspect, AsarIntegrity, AsarOnly, V8Snapshot, FileProtocol. */
const FLIPPED_WIRE = '01001100';
const BUNDLES = [
  'out/main/index.js',
  'out/preload/index.cjs',
  // the HUD's preload (its methods only)
  'out/preload/hud.cjs',
  'out/renderer/index.html',
  'out/node/cli.js',
  // the accessibility helpers, child entries of both builds (docs/packaging.md §6)
  ...HELPER_BUNDLES.flatMap((name) => [`out/main/${name}.js`, `out/node/${name}.js`]),
];

type AsarNode = { files?: Record<string, AsarNode>; unpacked?: boolean };

/**
 * The entries of an asar archive ('/out/main/index.js' → unpacked?), read from its header: a
 * Chromium pickle whose JSON string starts at byte 16, its length the uint32 at byte 12.
 */
async function asarEntries(file: string): Promise<Map<string, boolean>> {
  const bytes = await readFile(file);
  const header = JSON.parse(bytes.toString('utf8', 16, 16 + bytes.readUInt32LE(12))) as AsarNode;
  const entries = new Map<string, boolean>();
  const walk = (node: AsarNode, prefix: string): void => {
    for (const [name, child] of Object.entries(node.files ?? {})) {
      entries.set(`${prefix}/${name}`, child.unpacked === true);
      walk(child, `${prefix}/${name}`);
    }
  };
  walk(header, '');
  return entries;
}

/** Every fuse wire in a binary (one per sentinel). */
function wiresOf(binary: Buffer): string[] {
  const wires: string[] = [];
  for (let at = binary.indexOf(SENTINEL); at >= 0; at = binary.indexOf(SENTINEL, at + 1)) {
    const wire = at + SENTINEL.length;
    wires.push(binary.subarray(wire + 2, wire + 2 + binary[wire + 1]!).toString('latin1'));
  }
  return wires;
}

type Platform = 'linux' | 'win' | 'mac';
type Packed = {
  /** The folder holding app.asar and app.asar.unpacked. */
  resources: string;
  /** The file carrying the fuse wire. */
  fuseFile: string;
  log: string;
  entries: Map<string, boolean>;
};

/** Where electron-builder puts the app, per platform (x64), under the output folder. */
const LAYOUT: Record<Platform, { resources: string; fuseFile: string }> = {
  linux: { resources: 'linux-unpacked/resources', fuseFile: 'linux-unpacked/cua-annotator' },
  win: { resources: 'win-unpacked/resources', fuseFile: 'win-unpacked/cua-annotator.exe' },
  mac: {
    resources: 'mac/cua-annotator.app/Contents/Resources',
    fuseFile:
      'mac/cua-annotator.app/Contents/Frameworks/Electron Framework.framework/Electron Framework',
  },
};

let dir: string;

/** A stand-in Electron binary: the fuse sentinel and Electron 45's default wire. */
const standIn = (): Buffer =>
  Buffer.concat([
    Buffer.from('stand-in'),
    Buffer.from(SENTINEL),
    Buffer.from([1, DEFAULT_WIRE.length]),
    Buffer.from(DEFAULT_WIRE),
  ]);

/** An XML plist of string values. */
const plist = (values: Record<string, string>): string =>
  '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>' +
  Object.entries(values)
    .map(([key, value]) => `<key>${key}</key><string>${value}</string>`)
    .join('') +
  '</dict></plist>\n';

/** Writes `content` to `file` under `base`, creating folders. */
async function put(base: string, file: string, content: string | Buffer): Promise<void> {
  await mkdir(path.dirname(path.join(base, file)), { recursive: true });
  await writeFile(path.join(base, file), content);
}

/** Runs electron-builder for one platform with `dist` as the Electron distribution. */
async function pack(platform: Platform, dist: string, extra: string[]): Promise<Packed> {
  const output = path.join(dir, `dist-${platform}`);
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      path.join(root, 'node_modules/electron-builder/cli.js'),
      `--${platform}`,
      'dir',
      '--x64',
      '--publish',
      'never',
      `-c.electronDist=${dist}`,
      `-c.directories.output=${output}`,
      ...extra,
    ],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
      // electron-builder logs nothing but errors when it sees VITEST in its environment
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST'))),
    },
  );
  const resources = path.join(output, LAYOUT[platform].resources);
  return {
    resources,
    fuseFile: path.join(output, LAYOUT[platform].fuseFile),
    // eslint-disable-next-line no-control-regex -- electron-builder colours its log
    log: (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, ''),
    entries: await asarEntries(path.join(resources, 'app.asar')),
  };
}

let linux: Packed;
let win: Packed;
let mac: Packed;

beforeAll(async () => {
  for (const bundle of BUNDLES) {
    try {
      await access(path.join(root, bundle));
    } catch {
      throw new Error(
        `${bundle} is missing: build first (npx electron-vite build; npm run build:node)`,
      );
    }
  }
  dir = await mkdtemp(path.join(os.tmpdir(), 'pack-'));
  const linuxDist = path.join(dir, 'electron-linux');
  await put(linuxDist, 'electron', standIn());
  await mkdir(path.join(linuxDist, 'resources'));
  const winDist = path.join(dir, 'electron-win');
  await mkdir(path.join(winDist, 'resources'), { recursive: true });
  await copyFile(
    path.join(import.meta.dirname, 'fixtures/electron-win/electron.exe'),
    path.join(winDist, 'electron.exe'),
  );
  const macDist = path.join(dir, 'electron-mac');
  const contents = path.join(macDist, 'Electron.app/Contents');
  await put(contents, 'MacOS/Electron', 'stand-in');
  await put(contents, 'Frameworks/Electron Framework.framework/Electron Framework', standIn());
  await put(contents, 'Frameworks/Electron Helper.app/Contents/MacOS/Electron Helper', 'stand-in');
  await put(
    contents,
    'Frameworks/Electron Helper.app/Contents/Info.plist',
    plist({
      CFBundleExecutable: 'Electron Helper',
      CFBundleIdentifier: 'com.github.Electron.helper',
    }),
  );
  await put(
    contents,
    'Info.plist',
    plist({
      CFBundleExecutable: 'Electron',
      CFBundleIdentifier: 'com.github.Electron',
      CFBundleName: 'Electron',
      CFBundleVersion: '45.5.0',
      CFBundlePackageType: 'APPL',
    }),
  );
  await mkdir(path.join(contents, 'Resources'));
  // Windows: no rcedit/signing (it needs downloaded tools); the asar integrity is still embedded.
  // macOS: electron-builder skips signing off macOS, and so does the hook's ad-hoc re-signing.
  [linux, win, mac] = await Promise.all([
    pack('linux', linuxDist, []),
    pack('win', winDist, ['-c.win.signAndEditExecutable=false']),
    pack('mac', macDist, []),
  ]);
}, 300_000);

afterAll(async () => {
  if (dir) {
    await rm(dir, { recursive: true, force: true });
  }
});

describe.each([
  ['linux', () => linux],
  ['win', () => win],
  ['mac', () => mac],
])('electron-builder --%s dir', (_platform, packed) => {
  it('accepts the configuration and rebuilds nothing', () => {
    expect(packed().log).toMatch(
      /skipped dependencies rebuild\s+reason=npmRebuild is set to false/,
    );
  });

  it('flips the fuses of the packed executable in the afterPack hook', async () => {
    expect(wiresOf(await readFile(packed().fuseFile))).toEqual([FLIPPED_WIRE]);
  });

  it('packs the bundles and package.json into app.asar, without native sources or usocket', () => {
    const entries = [...packed().entries.keys()];
    for (const bundle of [...BUNDLES, 'package.json']) {
      expect(entries).toContain(`/${bundle}`);
    }
    expect(entries).toContain('/node_modules/better-sqlite3/lib/index.js');
    expect(entries.filter((e) => e.startsWith('/node_modules/better-sqlite3/deps'))).toEqual([]);
    expect(entries.filter((e) => e.startsWith('/node_modules/uiohook-napi/libuiohook'))).toEqual(
      [],
    );
    expect(entries.filter((e) => e.startsWith('/node_modules/usocket'))).toEqual([]);
    expect(entries.filter((e) => e.startsWith('/node_modules/electron/'))).toEqual([]);
  });

  it('unpacks the Node-API prebuilds next to the asar', async () => {
    const { entries, resources } = packed();
    expect(entries.get('/node_modules/better-sqlite3/prebuilds/win32-x64.node')).toBe(true);
    expect(entries.get('/out/main/index.js')).toBe(false);
    const unpacked = path.join(resources, 'app.asar.unpacked', 'node_modules');
    await access(path.join(unpacked, 'better-sqlite3/prebuilds/linux-x64.node'));
    await access(path.join(unpacked, 'better-sqlite3/prebuilds/win32-x64.node'));
    await access(path.join(unpacked, 'better-sqlite3/lib/binding.js'));
    await access(path.join(unpacked, 'uiohook-napi/prebuilds/win32-x64/uiohook-napi.node'));
  });

  it('packs the helper bundles in the asar and unpacks koffi', async () => {
    const { entries, resources } = packed();
    for (const name of HELPER_BUNDLES) {
      // forked from inside the asar with their chunks beside them
      expect(entries.get(`/out/main/${name}.js`)).toBe(false);
      expect(entries.get(`/out/node/${name}.js`)).toBe(false);
    }
    expect(entries.get('/node_modules/koffi/package.json')).toBe(true);
    await access(path.join(resources, 'app.asar.unpacked/node_modules/koffi/index.js'));
  });
});

describe("koffi binaries per installer (only the build machine's is installed: linux-x64 here)", () => {
  const linuxBinary = '/node_modules/@koromix/koffi-linux-x64/linux_x64/koffi.node';

  it('the Linux app unpacks koffi-linux-x64', async () => {
    expect(KOFFI_PACKAGES.linux).toContain('@koromix/koffi-linux-x64');
    expect(linux.entries.get(linuxBinary)).toBe(true);
    await access(path.join(linux.resources, 'app.asar.unpacked', linuxBinary));
  });

  it('the Windows and macOS apps leave the Linux binary out', () => {
    for (const packed of [win, mac]) {
      expect(
        [...packed.entries.keys()].filter((e) => e.startsWith('/node_modules/@koromix/')),
      ).toEqual([]);
    }
  });
});

describe('electron-builder --win dir', () => {
  it('embeds the asar integrity (checked by the EnableEmbeddedAsarIntegrityValidation fuse)', async () => {
    const binary = await readFile(win.fuseFile);
    expect(binary.includes(Buffer.from('ELECTRONASAR', 'utf16le'))).toBe(true);
    const json = /\[\{"file":"resources\\\\app\.asar","alg":"SHA256","value":"[0-9a-f]{64}"\}\]/;
    expect(binary.toString('latin1')).toMatch(json);
  });
});

describe('electron-builder --mac dir', () => {
  it('writes the usage strings and the asar integrity into Info.plist', async () => {
    const info = await readFile(path.join(mac.resources, '..', 'Info.plist'), 'utf8');
    const value = (key: string): string | undefined =>
      new RegExp(`<key>${key}</key>\\s*<string>([^<]*)</string>`).exec(info)?.[1];
    expect(value('CFBundleIdentifier')).toBe('dev.cua-annotator.app');
    expect(value('CFBundleExecutable')).toBe('cua-annotator');
    expect(value('NSScreenCaptureUsageDescription')).toMatch(/records your screen/);
    expect(value('NSAppleEventsUsageDescription')).toMatch(/names of its windows and controls/);
    expect(info).toMatch(
      /<key>ElectronAsarIntegrity<\/key>\s*<dict>\s*<key>Resources\/app\.asar<\/key>[\s\S]*?<string>SHA256<\/string>/,
    );
    expect(value('CFBundleIconFile')).toBe('icon.icns');
    await access(path.join(mac.resources, 'icon.icns'));
  });
});
