// Issue 27's fault item "storage full → coded error", end to end through `submit`: the embedded
// hub's data folder (its PGlite and its object folder) sits on a small tmpfs that this test
// mounts (it runs as root) and fills until less room is left than the bundle needs. The CLI's
// `submit` exits with STORAGE_FULL and a fix, nothing is registered (`sync` shows none), and no
// partial object is visible in the store (every stored file is whole: its size and SHA-256 are
// the manifest's; no temp file left). Once the space is freed the same `submit` completes,
// sending only what the store still lacks.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  statfs,
  truncate,
  writeFile,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { FIXTURE_DIR } from '../helpers/paths';
import { addHubUser, loginLibrary, startHubProcess, type HubProcess } from './hub-process';

const isRoot = process.getuid?.() === 0;

let root: string;
let dataDir: string;
let library: string;
let hub: HubProcess | null = null;
let mounted = false;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

// nothing registered (`sync`), every object in the store whole (the manifest's size and
// SHA-256), no temp file left; resolves with how many objects are stored
async function expectNothingRegisteredNorPartial(
  id: string,
  manifestText: string,
  files: { path: string; sizeBytes: number; sha256: string }[],
): Promise<number> {
  const none = await runCli(['sync', '--library', library, '--json']);
  expect(none.code, none.stderr).toBe(0);
  expect(JSON.parse(none.stdout)).toEqual({ submissions: [] });
  const byPath = new Map(files.map((f) => [f.path, f]));
  const objectsDir = path.join(dataDir, 'objects');
  const stored = await filesUnder(objectsDir);
  for (const file of stored) {
    // objects/ann/<recording>/<bundle>/<path in the bundle>
    const parts = path.relative(objectsDir, file).split(path.sep);
    expect(parts[1]).toBe(id);
    const rel = parts.slice(3).join('/');
    const bytes = await readFile(file);
    if (rel === 'manifest.json') {
      expect(bytes.toString('utf8')).toBe(manifestText);
      continue;
    }
    const want = byPath.get(rel);
    expect(want, `${rel} is not in the manifest`).toBeDefined();
    expect(bytes.length, rel).toBe(want!.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex'), rel).toBe(want!.sha256);
  }
  expect(await filesUnder(path.join(dataDir, '.objects-tmp'))).toEqual([]);
  return stored.length;
}

beforeAll(async () => {
  if (!isRoot) {
    return;
  }
  root = await mkdtemp(path.join(os.tmpdir(), 'hub-storage-full-'));
  dataDir = path.join(root, 'hub-data');
  library = path.join(root, 'library');
  await mkdir(dataDir);
  // room for PGlite's files (~40 MiB) and a little more; the test fills the rest
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=96m,mode=0700', 'tmpfs', dataDir]);
  mounted = true;
  const otp = await addHubUser('ann', ['annotator'], ['--data', dataDir]);
  hub = await startHubProcess(['--data', dataDir]);
  await loginLibrary(hub.url, 'ann', otp, library);
}, 240_000);

afterAll(async () => {
  await hub?.stop();
  if (mounted) {
    execFileSync('umount', [dataDir]);
  }
  if (root) {
    await rm(root, { recursive: true, force: true });
  }
}, 60_000);

describe.skipIf(!isRoot)('submit to a hub whose storage is full', () => {
  it('exits with STORAGE_FULL and a fix, registers nothing, leaves no partial object; after space is freed the same submit completes', async () => {
    const imported = await runCli([
      'import',
      FIXTURE_DIR,
      '--no-keyframes',
      '--library',
      library,
      '--json',
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const id = (JSON.parse(imported.stdout) as { result: { id: string } }).result.id;

    // fill the hub's disk: 256 KiB stay free, far less than the bundle's video
    const filler = path.join(dataDir, 'filler');
    const fs0 = await statfs(dataDir);
    const free = fs0.bavail * fs0.bsize;
    await writeFile(filler, Buffer.alloc(Math.max(0, free - 256 * 1024)));

    const full = await runCli(['submit', id, '--no-keyframes', '--library', library, '--json']);
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toContain('STORAGE_FULL');
    expect(full.stderr).toMatch(/fix: .*(free|room|space)/i);
    expect(full.stdout).toBe('');

    const staged = JSON.parse(
      await readFile(path.join(library, 'uploads', `hub-${id}`, '.hub-manifest.json'), 'utf8'),
    ) as { text: string };
    const manifest = JSON.parse(staged.text) as {
      files: { path: string; sizeBytes: number; sha256: string }[];
    };
    await expectNothingRegisteredNorPartial(id, staged.text, manifest.files);

    // room for every file but half of the largest (the video): the small files are stored, the
    // video's upload runs out of room part way through its body
    const sizes = manifest.files.map((f) => f.sizeBytes);
    const largest = Math.max(...sizes);
    const room = sizes.reduce((a, b) => a + b, 0) - largest / 2 + staged.text.length;
    const now = await statfs(dataDir);
    const filled = (await stat(filler)).size - (room - now.bavail * now.bsize);
    await truncate(filler, Math.floor(filled));
    const midway = await runCli(['submit', id, '--no-keyframes', '--library', library, '--json']);
    expect(midway.code, midway.stderr).toBe(2);
    expect(midway.stderr).toContain('STORAGE_FULL');
    expect(midway.stderr).toMatch(/fix: .*(free|room|space)/i);
    const stored = await expectNothingRegisteredNorPartial(id, staged.text, manifest.files);
    expect(stored).toBeGreaterThan(0);

    // room again: the same submit completes, sending only what the store lacks
    await rm(filler);
    const done = await runCli(['submit', id, '--no-keyframes', '--library', library]);
    expect(done.code, done.stderr).toBe(0);
    const sent = /submitted \S+ as submission 1 version 1 \((\d+) files sent/.exec(done.stdout);
    expect(sent, done.stdout).not.toBeNull();
    expect(Number(sent![1])).toBe(manifest.files.length + 1 - stored);
    const synced = await runCli(['sync', '--library', library, '--json']);
    const [only, ...more] = (
      JSON.parse(synced.stdout) as { submissions: { version: number; status: string }[] }
    ).submissions;
    expect(more).toEqual([]);
    expect(only?.version).toBe(1);
    // registered: in the hub's intake check, or past it and waiting for review
    expect(['intake', 'submitted']).toContain(only?.status);
  }, 240_000);
});
