// A real electron-builder run over electron-builder.yml, offline: `--linux dir` (the unpacked app
// that the AppImage and deb wrap) against a stand-in Electron distribution (`electronDist`: a
// file carrying Electron's fuse wire instead of the downloaded zip). It exercises electron-builder's
// own config validation, the files and asarUnpack patterns, npmRebuild off and the afterPack fuse
// hook (docs/packaging.md §7). Needs the built bundles (npx electron-vite build, npm run build:node).
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
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

let dir: string;
let appDir: string;
let unpackedOf: Map<string, boolean>;
let entries: string[];
let log: string;

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
  dir = await mkdtemp(path.join(os.tmpdir(), 'pack-linux-'));
  // the stand-in Electron: Electron 45's default fuse wire, RunAsNode..GrantFileProtocol
  const dist = path.join(dir, 'electron-dist');
  await mkdir(path.join(dist, 'resources'), { recursive: true });
  await writeFile(
    path.join(dist, 'electron'),
    Buffer.concat([
      Buffer.from('stand-in'),
      Buffer.from(SENTINEL),
      Buffer.from([1, 8]),
      Buffer.from('10110001'),
    ]),
    { mode: 0o755 },
  );
  await writeFile(path.join(dist, 'LICENSE'), '');
  const output = path.join(dir, 'dist');
  const cli = path.join(root, 'node_modules/electron-builder/cli.js');
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    [
      cli,
      '--linux',
      'dir',
      '--publish',
      'never',
      `-c.electronDist=${dist}`,
      `-c.directories.output=${output}`,
    ],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
      // electron-builder logs nothing but errors when it sees VITEST in its environment
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST'))),
    },
  );
  // eslint-disable-next-line no-control-regex -- electron-builder colours its log
  log = (stdout + stderr).replace(/\x1b\[[0-9;]*m/g, '');
  appDir = path.join(output, 'linux-unpacked');
  unpackedOf = await asarEntries(path.join(appDir, 'resources', 'app.asar'));
  entries = [...unpackedOf.keys()];
}, 240_000);

afterAll(async () => {
  if (dir) {
    await rm(dir, { recursive: true, force: true });
  }
});

describe('electron-builder --linux dir', () => {
  it('accepts the configuration and rebuilds nothing', () => {
    expect(log).toMatch(/skipped dependencies rebuild\s+reason=npmRebuild is set to false/);
  });

  it('flips the fuses of the packed executable in the afterPack hook', async () => {
    const binary = await readFile(path.join(appDir, 'cua-annotator'));
    const at = binary.indexOf(SENTINEL) + SENTINEL.length;
    expect(binary.subarray(at + 2, at + 2 + binary[at + 1]!).toString('latin1')).toBe('01001100');
  });

  it('packs the bundles and package.json into app.asar, without native sources or usocket', () => {
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
    expect(unpackedOf.get('/node_modules/better-sqlite3/prebuilds/linux-x64.node')).toBe(true);
    expect(unpackedOf.get('/out/main/index.js')).toBe(false);
    const unpacked = path.join(appDir, 'resources', 'app.asar.unpacked', 'node_modules');
    await access(path.join(unpacked, 'better-sqlite3/prebuilds/linux-x64.node'));
    await access(path.join(unpacked, 'better-sqlite3/lib/binding.js'));
    await access(path.join(unpacked, 'uiohook-napi/prebuilds/linux-x64/uiohook-napi.node'));
  });
});
