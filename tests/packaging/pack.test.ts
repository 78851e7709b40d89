// Real electron-builder runs over electron-builder.yml, offline: `--linux dir` and `--win dir`
// (the unpacked apps that the AppImage, deb and NSIS installer wrap) against stand-in Electron
// distributions (`electronDist` instead of the downloaded zip). They exercise electron-builder's
// own config validation, the files and asarUnpack patterns, npmRebuild off, the afterPack fuse hook
// and, on Windows, the asar integrity resource (docs/packaging.md §7). Needs the built bundles
// (npx electron-vite build, npm run build:node).
//
// The Linux stand-in is written here: a file with Electron's fuse sentinel and wire. The Windows
// one, fixtures/electron-win/electron.exe (1.5 kB), is a PE32+ made with resedit: an empty
// executable with a version resource (electron-builder adds the asar integrity next to it) and an
// RCDATA resource holding the sentinel and Electron 45's default wire '10110001'.
import { execFile } from 'node:child_process';
import { access, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/** Electron 45's defaults: RunAsNode, NodeOptions, CliInspect, GrantFileProtocol on. */
const DEFAULT_WIRE = '10110001';
/** After the hook: RunAsNode, Cookie, NodeOptions, Inspect, AsarIntegrity, AsarOnly, V8Snapshot, FileProtocol. */
const FLIPPED_WIRE = '01001100';
const BUNDLES = [
  'out/main/index.js',
  'out/preload/index.cjs',
  'out/renderer/index.html',
  'out/node/cli.js',
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

type Packed = { appDir: string; log: string; entries: Map<string, boolean> };

let dir: string;

/** Runs electron-builder for one platform with `dist` as the Electron distribution. */
async function pack(platform: 'linux' | 'win', dist: string, extra: string[]): Promise<Packed> {
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
  const appDir = path.join(output, `${platform}-unpacked`);
  return {
    appDir,
    // eslint-disable-next-line no-control-regex -- electron-builder colours its log
    log: (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, ''),
    entries: await asarEntries(path.join(appDir, 'resources', 'app.asar')),
  };
}

let linux: Packed;
let win: Packed;

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
  await mkdir(path.join(linuxDist, 'resources'), { recursive: true });
  await writeFile(
    path.join(linuxDist, 'electron'),
    Buffer.concat([
      Buffer.from('stand-in'),
      Buffer.from(SENTINEL),
      Buffer.from([1, DEFAULT_WIRE.length]),
      Buffer.from(DEFAULT_WIRE),
    ]),
    { mode: 0o755 },
  );
  const winDist = path.join(dir, 'electron-win');
  await mkdir(path.join(winDist, 'resources'), { recursive: true });
  await copyFile(
    path.join(import.meta.dirname, 'fixtures/electron-win/electron.exe'),
    path.join(winDist, 'electron.exe'),
  );
  // Windows: no rcedit/signing (it needs downloaded tools); the asar integrity is still embedded
  [linux, win] = await Promise.all([
    pack('linux', linuxDist, []),
    pack('win', winDist, ['-c.win.signAndEditExecutable=false']),
  ]);
}, 300_000);

afterAll(async () => {
  if (dir) {
    await rm(dir, { recursive: true, force: true });
  }
});

describe.each([
  ['linux', 'cua-annotator', () => linux],
  ['win', 'cua-annotator.exe', () => win],
])('electron-builder --%s dir', (_platform, executable, packed) => {
  it('accepts the configuration and rebuilds nothing', () => {
    expect(packed().log).toMatch(
      /skipped dependencies rebuild\s+reason=npmRebuild is set to false/,
    );
  });

  it('flips the fuses of the packed executable in the afterPack hook', async () => {
    const binary = await readFile(path.join(packed().appDir, executable));
    expect(wiresOf(binary)).toEqual([FLIPPED_WIRE]);
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
    const { entries, appDir } = packed();
    expect(entries.get('/node_modules/better-sqlite3/prebuilds/win32-x64.node')).toBe(true);
    expect(entries.get('/out/main/index.js')).toBe(false);
    const unpacked = path.join(appDir, 'resources', 'app.asar.unpacked', 'node_modules');
    await access(path.join(unpacked, 'better-sqlite3/prebuilds/linux-x64.node'));
    await access(path.join(unpacked, 'better-sqlite3/prebuilds/win32-x64.node'));
    await access(path.join(unpacked, 'better-sqlite3/lib/binding.js'));
    await access(path.join(unpacked, 'uiohook-napi/prebuilds/win32-x64/uiohook-napi.node'));
  });
});

describe('electron-builder --win dir', () => {
  it('embeds the asar integrity (checked by the EnableEmbeddedAsarIntegrityValidation fuse)', async () => {
    const binary = await readFile(path.join(win.appDir, 'cua-annotator.exe'));
    expect(binary.includes(Buffer.from('ELECTRONASAR', 'utf16le'))).toBe(true);
    const json = /\[\{"file":"resources\\\\app\.asar","alg":"SHA256","value":"[0-9a-f]{64}"\}\]/;
    expect(binary.toString('latin1')).toMatch(json);
  });
});
