// ffmpeg's capabilities cached on disk per binary (issue 31 item 3), against the real ffmpeg
// behind a wrapper script that logs every call: a second resolution (as in a new process: the
// in-memory cache cleared) queries nothing, a changed binary (size, mtime) is queried again, a
// corrupt cache file is replaced, and the whole CLI reuses the cache across processes.
import { appendFile, mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearFfmpegBinaryCache, resolveFfmpeg } from '../../../src/infra/ffmpeg/binary';
import { CAPABILITY_CACHE_FILE } from '../../../src/infra/ffmpeg/capability-cache';
import { userCacheDir } from '../../../src/infra/cache-dir';
import { runCli } from '../../helpers/cli';
import { copyExampleLibrary } from '../../helpers/example-library';

const PROBE_ARGS = [
  '-version',
  '-hide_banner -devices',
  '-hide_banner -encoders',
  '-hide_banner -filters',
];

let dir = '';
let wrapper = '';
let log = '';
let cacheDir = '';

/** The capability queries the wrapper has seen since the last call. */
async function takeProbes(): Promise<string[]> {
  const lines = (await readFile(log, 'utf8').catch(() => ''))
    .split('\n')
    .filter((line) => PROBE_ARGS.includes(line));
  await writeFile(log, '');
  return lines.sort();
}

/** A resolution as a fresh process makes it: nothing held in memory. */
async function resolveFresh() {
  clearFfmpegBinaryCache();
  return await resolveFfmpeg({ CUA_FFMPEG: wrapper, PATH: process.env.PATH }, { cacheDir });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cua-ffmpeg-capcache-'));
  const real = (await resolveFfmpeg({ PATH: process.env.PATH }, { cacheDir: null })).path;
  log = path.join(dir, 'calls.log');
  wrapper = path.join(dir, 'ffmpeg');
  await writeFile(wrapper, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, {
    mode: 0o755,
  });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  cacheDir = await mkdtemp(path.join(dir, 'cache-'));
  await writeFile(log, '');
});

describe('the ffmpeg capability cache', () => {
  it('queries once, then a new process reads the cache and queries nothing', async () => {
    const first = await resolveFresh();
    expect(await takeProbes()).toEqual([...PROBE_ARGS].sort());
    const file = JSON.parse(await readFile(path.join(cacheDir, CAPABILITY_CACHE_FILE), 'utf8'));
    expect(file.binaries[wrapper].capabilities.version).toBe(first.version);

    const second = await resolveFresh();
    expect(await takeProbes()).toEqual([]);
    expect(second).toEqual(first);
  });

  it('queries again when the binary changes size or mtime', async () => {
    await resolveFresh();
    expect(await takeProbes()).toHaveLength(4);

    const before = await stat(wrapper);
    await utimes(wrapper, before.atime, new Date(before.mtimeMs + 5_000));
    await resolveFresh();
    expect(await takeProbes()).toHaveLength(4);

    await appendFile(wrapper, '# another build\n');
    await resolveFresh();
    expect(await takeProbes()).toHaveLength(4);
    // and that build is what the cache now holds
    await resolveFresh();
    expect(await takeProbes()).toEqual([]);
  });

  it('replaces a corrupt cache file', async () => {
    const file = path.join(cacheDir, CAPABILITY_CACHE_FILE);
    for (const corrupt of [
      '{"version": 1, "binaries": {',
      '[]',
      '{"version":1,"binaries":{"x":1}}',
    ]) {
      await writeFile(file, corrupt);
      const binary = await resolveFresh();
      expect(await takeProbes()).toHaveLength(4);
      const rewritten = JSON.parse(await readFile(file, 'utf8'));
      expect(rewritten.binaries[wrapper].capabilities.hasLibx264).toBe(binary.hasLibx264);
    }
    // an entry whose capabilities were tampered with is not believed either
    const tampered = JSON.parse(await readFile(file, 'utf8'));
    tampered.binaries[wrapper].capabilities.hasLibx264 = 'yes';
    await writeFile(file, JSON.stringify(tampered));
    await resolveFresh();
    expect(await takeProbes()).toHaveLength(4);
  });

  it('lives in XDG_CACHE_HOME, else ~/.cache, per OS', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache' }, 'linux', '/home/a')).toBe(
      '/x/cache/cua-annotator',
    );
    expect(userCacheDir({}, 'linux', '/home/a')).toBe('/home/a/.cache/cua-annotator');
    expect(userCacheDir({}, 'darwin', '/Users/a')).toBe('/Users/a/Library/Caches/cua-annotator');
  });
});

describe('the CLI and ffmpeg', () => {
  it('queries ffmpeg in the first process only', async () => {
    const xdg = await mkdtemp(path.join(dir, 'xdg-'));
    const env = { CUA_FFMPEG: wrapper, XDG_CACHE_HOME: xdg };
    const library = path.join(dir, 'no-library');
    // doctor resolves ffmpeg (its exit code depends on the machine: X11, AT-SPI)
    const first = await runCli(['doctor', '--json', '--library', library], env);
    expect(first.stdout).toContain(path.basename(wrapper));
    expect(await takeProbes()).toHaveLength(4);
    await runCli(['doctor', '--json', '--library', library], env);
    expect(await takeProbes()).toEqual([]);
    await stat(path.join(xdg, 'cua-annotator', CAPABILITY_CACHE_FILE));
  });

  it('starts no ffmpeg for commands that decode nothing: list, show, exports of stored keyframes', async () => {
    const library = path.join(dir, 'example');
    const id = await copyExampleLibrary(library);
    // an empty cache: any resolution would query ffmpeg
    const env = { CUA_FFMPEG: wrapper, XDG_CACHE_HOME: await mkdtemp(path.join(dir, 'xdg-')) };
    const runs = [
      ['list', '--json'],
      ['show', id, '--json'],
      ...['agentnet-raw', 'agentnet-jsonl', 'standardized'].map((format) => [
        'export',
        id,
        '--format',
        format,
        '--out',
        path.join(dir, `out-${format}`),
        '--json',
      ]),
    ];
    for (const args of runs) {
      const run = await runCli([...args, '--library', library], env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(await readFile(log, 'utf8'), args.join(' ')).toBe('');
    }
    // the exports wrote their images from the stored keyframes
    expect(
      await readFile(path.join(dir, 'out-agentnet-jsonl', 'agentnet.jsonl'), 'utf8'),
    ).toContain('.png');
  });
});
