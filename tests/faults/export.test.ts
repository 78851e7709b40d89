// Fault suite for export, import, keyframe decoding and uploads (issue 10, items 10, 12, 16, 17,
// 18, 19): kill -9 at named moments, a tmpfs that fills, a flipped byte, bad output paths.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRecordings, runExport } from '../../src/services/export/export-service';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { openLibrary, type Library } from '../../src/services/library/library';
import type { ServiceContext } from '../../src/services/context';
import { createServices } from '../../src/services/create-services';
import { dispatch } from '../../src/services/dispatch';
import { getRecording } from '../../src/store';
import { isAppError, type AppError } from '../../src/shared/errors';
import type { S3Client } from '@aws-sdk/client-s3';
import { buildBundle } from '../../src/services/upload/bundle';
import { runUpload } from '../../src/services/upload/engine';
import { enqueueUpload } from '../../src/services/upload/queue';
import { S3ObjectStore } from '../../src/services/upload/s3-client';
import { listUploadParts } from '../../src/store/queries/uploads';
import { startSwift, type Swift } from '../helpers/swift';
import {
  PART_5_MIB,
  createBucket,
  objectSha256,
  objectText,
  rawClient,
  swiftTarget,
  uploadUntilKilled,
  writeBlob,
} from '../services/upload/helpers';
import { runCli } from '../helpers/cli';
import { copyFixture } from '../helpers/fixture';
import { exampleLibrary } from '../helpers/example-library';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR, FIXTURE_REL, REPO_ROOT } from '../helpers/paths';

const OPTS = { appVersion: '0.0.0-test' };
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-faults-export-'));
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts) {
    spawnSync('umount', ['-l', m]);
  }
  fs.rmSync(root, { recursive: true, force: true });
});

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

function listTree(dir: string): string[] {
  if (!fs.existsSync(dir)) {
    return [];
  }
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)) + (e.isDirectory() ? '/' : ''))
    .sort();
}

// A small tmpfs (we run as root in the test machine); null when mounting is not allowed.
function tmpfs(name: string, size: string, readOnly = false): string | null {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', [
    '-t',
    'tmpfs',
    '-o',
    `size=${size}${readOnly ? ',ro' : ''}`,
    'tmpfs',
    dir,
  ]);
  if (r.status !== 0) {
    return null;
  }
  mounts.push(dir);
  return dir;
}

// A copy of the example episode whose video differs by trailing bytes: same folder name, not the
// same recording.
async function sameNameOtherVideo(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const copy = await copyFixture(FIXTURE_REL);
  const mp4 = fs.readdirSync(copy.dir).find((f) => f.endsWith('.mp4'))!;
  fs.appendFileSync(path.join(copy.dir, mp4), Buffer.alloc(16, 7));
  return copy;
}

// A fresh library holding the example episode (`good`) and a same-named copy of it (`bad`, for the
// test to damage); `body` runs with both, and the library and the copy are removed after it.
async function withSameNamePair(
  body: (lib2: ReturnType<typeof tempLibrary>, good: string, bad: string) => Promise<void>,
): Promise<void> {
  const lib2 = tempLibrary();
  const copy = await sameNameOtherVideo();
  try {
    const good = (await importAgentNetFolder(lib2.lib, FIXTURE_DIR, OPTS)).id;
    const bad = (await importAgentNetFolder(lib2.lib, copy.dir, OPTS)).id;
    await body(lib2, good, bad);
  } finally {
    await copy.cleanup();
    lib2.cleanup();
  }
}

// Exporting [good, bad] stops with EXPORT_DAMAGED naming `bad` before writing anything into
// `out`; with skipDamaged it exports `good` and reports `bad` as skipped. Returns the refusal.
async function expectDamagedStopsThenSkips(
  lib: Library,
  good: string,
  bad: string,
  out: string,
): Promise<AppError> {
  const e = await rejection(
    runExport(lib, [good, bad], { ...OPTS, format: 'agentnet-raw', outDir: out }),
  );
  expect(isAppError(e, 'EXPORT_DAMAGED')).toBe(true);
  expect(e.message).toContain(bad);
  expect(listTree(out)).toEqual([]);
  const run = await runExport(lib, [good, bad], {
    ...OPTS,
    format: 'agentnet-raw',
    outDir: out,
    skipDamaged: true,
  });
  expect(run.recordings.map((r) => r.id)).toEqual([good]);
  expect(run.skipped.map((s) => s.id)).toEqual([bad]);
  return e;
}

// Runs a TypeScript snippet in a child node (through tsx); `onLine` sees each stdout line.
function runTs(
  code: string,
  env: NodeJS.ProcessEnv,
  onLine: (line: string, pid: number) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const file = path.join(root, `child-${Math.random().toString(36).slice(2)}.mts`);
  fs.writeFileSync(file, code);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      partial += text;
      const lines = partial.split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        onLine(line, child.pid!);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (c, signal) => resolve({ code: c, signal, stderr }));
  });
}

function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // a zombie nobody reaps (pid 1 of a container) is dead too
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) {
      return true;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

const SRC = path.join(REPO_ROOT, 'src');

describe('faults: export, import, keyframes', () => {
  let t: Awaited<ReturnType<typeof exampleLibrary>>;
  let idA = '';
  let idB = '';
  let other: { dir: string; cleanup: () => Promise<void> } | null = null;
  beforeAll(async () => {
    t = await exampleLibrary();
    idA = t.id;
    other = await sameNameOtherVideo();
    idB = (await importAgentNetFolder(t.lib, other.dir, OPTS)).id;
  }, 60_000);
  afterAll(async () => {
    await other?.cleanup();
    t?.cleanup();
  });

  it('item 16: export --all gives recordings that share an episode name their own folders', async () => {
    const out = path.join(root, 'same-name-raw');
    const results = await exportRecordings(t.lib, [idA, idB], {
      ...OPTS,
      format: 'agentnet-raw',
      outDir: out,
    });
    const folders = fs.readdirSync(out).filter((f) => !f.startsWith('.'));
    expect(folders).toHaveLength(2);
    expect(new Set(results.map((r) => r.episodeId)).size).toBe(2);
    expect(folders.sort()).toEqual(results.map((r) => r.episodeId).sort());
    // the first keeps its name; the other gets a short id suffix, stable across runs
    expect(results[0]!.episodeId).toBe('win10-display-settings');
    expect(results[1]!.episodeId).toBe(`win10-display-settings_${idB.slice(0, 8)}`);
  });

  it('item 16: agentnet-jsonl of same-name recordings: distinct task_ids, no overwritten images', async () => {
    const out = path.join(root, 'same-name-jsonl');
    const results = await exportRecordings(t.lib, [idA, idB], {
      ...OPTS,
      format: 'agentnet-jsonl',
      outDir: out,
    });
    const lines = fs
      .readFileSync(path.join(out, 'agentnet.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { task_id: string });
    expect(lines.map((l) => l.task_id).sort()).toEqual(results.map((r) => r.episodeId).sort());
    expect(new Set(lines.map((l) => l.task_id)).size).toBe(2);
    expect(fs.readdirSync(path.join(out, 'images'))).toHaveLength(2 * 15);
    expect(fs.readdirSync(path.join(out, 'cot-input'))).toHaveLength(2);
  }, 120_000);

  it('item 16: importing a folder already in the library is refused with the existing id; --allow-duplicate imports it under a distinct name', async () => {
    const e = await rejection(importAgentNetFolder(t.lib, FIXTURE_DIR, OPTS));
    expect(isAppError(e, 'IMPORT_DUPLICATE')).toBe(true);
    expect(e.message).toContain(idA);
    expect(e.details?.existingId).toBe(idA);
    expect(e.fix).toMatch(/--allow-duplicate/);
    const again = await importAgentNetFolder(t.lib, FIXTURE_DIR, { ...OPTS, allowDuplicate: true });
    expect(again.id).not.toBe(idA);
    const out = path.join(root, 'dup-raw');
    const results = await exportRecordings(t.lib, [idA, again.id], {
      ...OPTS,
      format: 'agentnet-raw',
      outDir: out,
    });
    expect(new Set(results.map((r) => r.episodeId)).size).toBe(2);
    expect(results[1]!.episodeId).not.toBe('win10-display-settings');
    t.lib.db.prepare('DELETE FROM recordings WHERE id = ?').run(again.id);
  });

  it('item 17: a flipped byte in a library video is refused on export, naming recording and file', async () => {
    const lib2 = tempLibrary();
    try {
      const { id } = await importAgentNetFolder(lib2.lib, FIXTURE_DIR, OPTS);
      const video = lib2.lib.resolve(getRecording(lib2.lib.db, id).videos[0]!.path);
      const fd = fs.openSync(video, 'r+');
      const b = Buffer.alloc(1);
      fs.readSync(fd, b, 0, 1, 200_000);
      b[0] = b[0]! ^ 0xff;
      fs.writeSync(fd, b, 0, 1, 200_000);
      fs.closeSync(fd);
      const out = path.join(root, 'flipped');
      const e = await rejection(
        exportRecordings(lib2.lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: out }),
      );
      expect(isAppError(e, 'INTEGRITY_FAILED')).toBe(true);
      expect(e.message).toContain(id);
      expect(e.message).toContain(path.basename(video));
      expect(listTree(out)).toEqual([]);
    } finally {
      lib2.cleanup();
    }
  });

  it('item 10: export --all meeting a missing video stops before writing and names it; --skip-damaged exports the rest', async () => {
    await withSameNamePair(async (lib2, good, bad) => {
      fs.rmSync(lib2.lib.resolve(getRecording(lib2.lib.db, bad).videos[0]!.path));
      const out = path.join(root, 'damaged');
      const e = await expectDamagedStopsThenSkips(lib2.lib, good, bad, out);
      expect(e.fix).toMatch(/--skip-damaged/);
      expect(fs.readdirSync(out)).toEqual(['win10-display-settings']);
    });
  });

  it('item 10: export --all meeting unreadable rows stops before writing and names the recording', async () => {
    await withSameNamePair(async (lib2, good, bad) => {
      const seq = getRecording(lib2.lib.db, bad).seq;
      // a damaged row: its stored accessibility tree no longer parses
      lib2.lib.db
        .prepare(
          `UPDATE ax_records SET tree_json = '{"Name": "cut sh' WHERE rowid =
             (SELECT MIN(rowid) FROM ax_records WHERE recording_seq = ?)`,
        )
        .run(seq);
      const e = await expectDamagedStopsThenSkips(
        lib2.lib,
        good,
        bad,
        path.join(root, 'damaged-rows'),
      );
      expect(e.message).not.toContain(good);
    });
  });

  it('item 10: CLI export --all with a damaged recording exits with its name; --skip-damaged lists it', async () => {
    await withSameNamePair(async (lib2, _good, bad) => {
      fs.writeFileSync(lib2.lib.resolve(getRecording(lib2.lib.db, bad).videos[0]!.path), 'junk');
      const out = path.join(root, 'damaged-cli');
      const args = [
        'export',
        '--all',
        '--format',
        'agentnet-raw',
        '--out',
        out,
        '--library',
        lib2.dir,
      ];
      const r = await runCli(args);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('EXPORT_DAMAGED');
      expect(r.stderr).toContain(bad);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(listTree(out)).toEqual([]);
      const r2 = await runCli([...args, '--skip-damaged']);
      expect(r2.code).toBe(0);
      expect(r2.stdout).toMatch(/exported 1 recording/);
      expect(r2.stdout).toContain(`skipped ${bad}`);
    });
  }, 60_000);

  it('item 18: export to /proc answers at once with a coded error and a fix (was a hang)', async () => {
    const out = '/proc/cua-annotator-test/out';
    const e = await Promise.race([
      rejection(exportRecordings(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: out })),
      new Promise<AppError>((resolve) =>
        setTimeout(() => resolve(new Error('hung') as AppError), 5000),
      ),
    ]);
    expect(e.message).not.toBe('hung');
    expect(isAppError(e, 'EXPORT_TARGET_INVALID')).toBe(true);
    expect(e.fix).toBeTruthy();
  }, 10_000);

  it('item 18: the UI export call (exports:run) to /proc answers with a coded error and a fix', async () => {
    const ctx: ServiceContext = createServices(t.lib, {
      appVersion: '0.0.0-test',
      mediaUrl: () => '',
      log: () => undefined,
    }).context;
    const result = await Promise.race([
      dispatch(ctx, 'exports:run', {
        ids: [idA],
        format: 'agentnet-raw',
        outDir: '/proc/cua-annotator-test/ui',
      }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 5000)),
    ]);
    expect(result).not.toBeNull();
    expect(result!.ok).toBe(false);
    const error = (result as { error: { code: string; fix?: string } }).error;
    expect(error.code).toBe('EXPORT_TARGET_INVALID');
    expect(error.fix).toBeTruthy();
  }, 10_000);

  it('item 18: a file in the output path, an unwritable or read-only target give coded errors with a fix', async () => {
    const file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'x');
    const e1 = await rejection(
      exportRecordings(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: `${file}/out` }),
    );
    expect(isAppError(e1, 'EXPORT_TARGET_INVALID')).toBe(true);
    expect(e1.message).toContain(file);
    expect(e1.fix).toBeTruthy();
    const ro = tmpfs('ro', '1m', true);
    if (ro) {
      const e2 = await rejection(
        exportRecordings(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: `${ro}/out` }),
      );
      expect(isAppError(e2, 'EXPORT_TARGET_UNWRITABLE')).toBe(true);
      expect(e2.fix).toBeTruthy();
    }
  });

  it('item 18: CLI export to /proc and under a file ends quickly with a code, a fix and no stack', async () => {
    const file = path.join(root, 'b-file');
    fs.writeFileSync(file, 'x');
    for (const out of ['/proc/cua-annotator-test/out', `${file}/out`]) {
      const r = await runCli([
        'export',
        idA,
        '--format',
        'agentnet-raw',
        '--out',
        out,
        '--library',
        t.dir,
      ]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('EXPORT_TARGET_INVALID');
      expect(r.stderr).toMatch(/fix: /);
      expect(r.stderr).not.toContain('[INTERNAL]');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);

  it('item 19: ENOSPC during export gives DISK_FULL with a fix and removes the staging', async ({
    skip,
  }) => {
    const small = tmpfs('small-export', '2m');
    if (!small) {
      return skip('mount -t tmpfs is not permitted here');
    }
    const e = await rejection(
      exportRecordings(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: small }),
    );
    expect(isAppError(e, 'DISK_FULL')).toBe(true);
    expect(e.fix).toBeTruthy();
    expect(listTree(small)).toEqual([]);
  });

  it('item 19: ENOSPC during import gives DISK_FULL with a fix, nothing half-written', async ({
    skip,
  }) => {
    const small = tmpfs('small-import', '2m');
    if (!small) {
      return skip('mount -t tmpfs is not permitted here');
    }
    const lib = openLibrary(small);
    try {
      const before = listTree(path.join(small, 'recordings'));
      const e = await rejection(importAgentNetFolder(lib, FIXTURE_DIR, OPTS));
      expect(isAppError(e, 'DISK_FULL')).toBe(true);
      expect(e.fix).toBeTruthy();
      expect(listTree(path.join(small, 'recordings'))).toEqual(before);
      expect(
        (lib.db.prepare('SELECT COUNT(*) AS n FROM recordings').get() as { n: number }).n,
      ).toBe(0);
    } finally {
      lib.close();
    }
  });

  it('item 12: a stale .cua-export-* staging folder of a dead process is removed by the next export', async () => {
    const out = path.join(root, 'stale');
    fs.mkdirSync(path.join(out, '.cua-export-999999999-deadbeef', 'images'), { recursive: true });
    fs.writeFileSync(path.join(out, '.cua-export-999999999-deadbeef', 'images', 'x.png'), 'x');
    await exportRecordings(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: out });
    expect(fs.readdirSync(out)).toEqual(['win10-display-settings']);
  });

  it('item 12: kill -9 during the final move never leaves JSON without its images; the next export completes it', async () => {
    const out = path.join(root, 'killed-move');
    const lib2 = await exampleLibrary();
    const { id } = lib2;
    lib2.lib.close();
    // the child counts the renames into the output folder and dies by SIGKILL at the second
    const code = `
      import fs from 'node:fs/promises';
      import { openLibrary } from ${JSON.stringify(path.join(SRC, 'services/library/library.ts'))};
      import { exportRecordings } from ${JSON.stringify(path.join(SRC, 'services/export/export-service.ts'))};
      const rename = fs.rename;
      let moves = 0;
      fs.rename = async (from, to) => {
        if (!String(to).includes('.cua-export-')) {
          moves += 1;
          if (moves === 2) {
            process.kill(process.pid, 'SIGKILL');
          }
        }
        return await rename(from, to);
      };
      const lib = openLibrary(${JSON.stringify(lib2.dir)});
      await exportRecordings(lib, [${JSON.stringify(id)}], {
        appVersion: 'x', format: 'standardized', outDir: ${JSON.stringify(out)},
      });
      console.log('finished');
    `;
    const r = await runTs(code, {}, () => undefined);
    expect(r.signal).toBe('SIGKILL');
    // whatever is visible now: no JSON without every image it names
    const json = path.join(out, 'win10-display-settings.json');
    if (fs.existsSync(json)) {
      const names = [...fs.readFileSync(json, 'utf8').matchAll(/images\/([^"]+\.png)/g)].map(
        (m) => m[1]!,
      );
      for (const n of names) {
        expect(fs.existsSync(path.join(out, 'images', n)), n).toBe(true);
      }
    }
    // the next export into the folder finishes the interrupted one and removes its staging
    const lib3 = openLibrary(lib2.dir);
    const e = await rejection(
      exportRecordings(lib3, [id], { ...OPTS, format: 'standardized', outDir: out }),
    );
    lib3.close();
    fs.rmSync(lib2.dir, { recursive: true, force: true });
    expect(isAppError(e, 'EXPORT_TARGET_EXISTS')).toBe(true);
    expect(fs.existsSync(json)).toBe(true);
    expect(fs.readdirSync(path.join(out, 'images'))).toHaveLength(15);
    expect(fs.readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 60_000);

  it('item 12: two exports into one folder at once: one is refused with a code, never both "done" with one lost', async () => {
    // without --overwrite both saw no episode folder, so both used to "succeed" (one replaced
    // the other) or one died on a raw ENOTEMPTY after moving some files in
    for (let trial = 0; trial < 6; trial++) {
      const out = path.join(root, `concurrent-${trial}`);
      const runs = await Promise.allSettled(
        [idA, idB].map((id) =>
          runExport(t.lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: out }),
        ),
      );
      const done = runs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const refused = runs.flatMap((r) => (r.status === 'rejected' ? [r.reason as AppError] : []));
      expect(done, `trial ${trial}: ${refused.map(String).join('; ')}`).toHaveLength(1);
      for (const e of refused) {
        expect(
          isAppError(e, 'EXPORT_TARGET_EXISTS') || isAppError(e, 'EXPORT_TARGET_BUSY'),
          `trial ${trial}: ${String(e)}`,
        ).toBe(true);
        expect(e.fix).toBeTruthy();
      }
      // the folder holds the run reported done: its provenance names its recording
      const task = fs.readFileSync(
        path.join(out, 'win10-display-settings', 'metadata.json'),
        'utf8',
      );
      expect(task).toContain(done[0]!.recordings[0]!.id);
      expect(fs.readdirSync(out)).toEqual(['win10-display-settings']);
    }
  }, 60_000);

  it('item 12: two --overwrite exports into one folder at once both finish whole, without a raw error', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const out = path.join(root, `concurrent-overwrite-${trial}`);
      const runs = await Promise.allSettled(
        [idA, idB, idA].map((id) =>
          runExport(t.lib, [id], { ...OPTS, format: 'agentnet-raw', outDir: out, overwrite: true }),
        ),
      );
      for (const r of runs) {
        if (r.status === 'rejected') {
          expect(isAppError(r.reason, 'EXPORT_TARGET_BUSY'), String(r.reason)).toBe(true);
        }
      }
      expect(runs.some((r) => r.status === 'fulfilled')).toBe(true);
      expect(fs.readdirSync(out)).toEqual(['win10-display-settings']);
      const files = fs.readdirSync(path.join(out, 'win10-display-settings')).sort();
      expect(files.length).toBeGreaterThan(3);
      expect(files.filter((f) => f.startsWith('.'))).toEqual([]);
    }
  }, 60_000);

  it('item 12: an export into a folder another live process is exporting into waits, then answers EXPORT_TARGET_BUSY with a fix', async () => {
    const out = path.join(root, 'busy');
    fs.mkdirSync(out, { recursive: true });
    // a live process (not this one) holds the folder's export lock
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(path.join(out, '.cua-export.lock'), `${holder.pid}\n`);
      const started = Date.now();
      const e = await rejection(
        runExport(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: out }),
      );
      expect(isAppError(e, 'EXPORT_TARGET_BUSY'), String(e)).toBe(true);
      expect(e.fix).toContain(out);
      expect(Date.now() - started).toBeGreaterThan(1000);
      expect(fs.readdirSync(out)).toEqual(['.cua-export.lock']);
    } finally {
      holder.kill('SIGKILL');
    }
    // the holder is gone: its lock is stale and the next export takes it over
    await until(() => !isAlive(holder.pid!), 5000);
    await runExport(t.lib, [idA], { ...OPTS, format: 'agentnet-raw', outDir: out });
    expect(fs.readdirSync(out)).toEqual(['win10-display-settings']);
  }, 60_000);

  it('item 12: a commit that fails partway keeps its journalled staging folder; the next export finishes it', async () => {
    const out = path.join(root, 'commit-fails');
    const rename = fsp.rename;
    let moves = 0;
    fsp.rename = async (from: fs.PathLike, to: fs.PathLike) => {
      if (!String(to).includes('.cua-export-') && String(from).includes('.cua-export-')) {
        moves += 1;
        if (moves === 3) {
          throw Object.assign(new Error(`EIO: i/o error, rename '${String(from)}'`), {
            code: 'EIO',
          });
        }
      }
      return await rename(from, to);
    };
    let e: AppError;
    try {
      e = await rejection(
        runExport(t.lib, [idA], { ...OPTS, format: 'standardized', outDir: out }),
      );
    } finally {
      fsp.rename = rename;
    }
    expect(String(e)).toContain('EIO');
    const json = path.join(out, 'win10-display-settings.json');
    expect(fs.existsSync(json)).toBe(false);
    const stages = fs.readdirSync(out).filter((f) => f.startsWith('.cua-export-'));
    expect(stages).toHaveLength(1);
    expect(fs.existsSync(path.join(out, stages[0]!, '.commit.json'))).toBe(true);
    // the next export (same process) finishes the journalled commit, then refuses to overwrite it
    const again = await rejection(
      runExport(t.lib, [idA], { ...OPTS, format: 'standardized', outDir: out }),
    );
    expect(isAppError(again, 'EXPORT_TARGET_EXISTS'), String(again)).toBe(true);
    expect(fs.existsSync(json)).toBe(true);
    expect(fs.readdirSync(path.join(out, 'images'))).toHaveLength(15);
    expect(fs.readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  }, 60_000);

  for (const moment of ['right after spawning ffmpeg', 'while frames arrive'] as const) {
    it(`item 12: kill -9 of a process decoding keyframes (${moment}) leaves no ffmpeg and no cua-frames-* folder`, async () => {
      const tmp = fs.mkdtempSync(path.join(root, 'tmp-'));
      const video = path.join(
        FIXTURE_DIR,
        fs.readdirSync(FIXTURE_DIR).find((f) => f.endsWith('.mp4'))!,
      );
      const code = `
        import { spawnSync } from 'node:child_process';
        import { decodeFrames } from ${JSON.stringify(path.join(SRC, 'pipeline/media/frame-decoder.ts'))};
        const killNow = () => {
          const kids = spawnSync('pgrep', ['-P', String(process.pid)], { encoding: 'utf8' }).stdout.trim();
          console.log('ffmpeg ' + kids.split('\\n').join(' '));
          process.kill(process.pid, 'SIGKILL');
        };
        await decodeFrames({
          ffmpeg: { path: 'ffmpeg' },
          videoPath: ${JSON.stringify(video)},
          frames: Array.from({ length: 2000 }, (_, i) => i),
          width: 1276,
          height: 718,
          log: (line) => { if (${moment === 'right after spawning ffmpeg'} && line.startsWith('spawn')) { setImmediate(killNow); } },
          onFrame: ({ index }) => { if (index === 5) { killNow(); } },
        });
        console.log('finished');
      `;
      const pids: number[] = [];
      const r = await runTs(code, { TMPDIR: tmp }, (line) => {
        if (line.startsWith('ffmpeg ')) {
          pids.push(...line.slice(7).split(' ').filter(Boolean).map(Number));
        }
      });
      expect(r.signal, r.stderr).toBe('SIGKILL');
      expect(pids.length).toBeGreaterThan(0);
      expect(await until(() => pids.every((p) => !isAlive(p)), 5000)).toBe(true);
      // a folder left by a kill before ffmpeg was ready goes with the next decode's start
      if (moment === 'right after spawning ffmpeg') {
        await runTs(
          `import { sweepStaleFrameDirs } from ${JSON.stringify(path.join(SRC, 'pipeline/media/frame-decoder.ts'))};
           await sweepStaleFrameDirs();`,
          { TMPDIR: tmp },
          () => undefined,
        );
      }
      expect(fs.readdirSync(tmp).filter((f) => f.startsWith('cua-frames-'))).toEqual([]);
    }, 60_000);
  }
});

describe('faults: upload integrity (item 17)', () => {
  let t: Awaited<ReturnType<typeof exampleLibrary>>;
  let id = '';
  let swift: Swift | null = null;
  let client: S3Client | null = null;
  beforeAll(async () => {
    [swift] = await Promise.all([
      startSwift(),
      (async () => {
        t = await exampleLibrary();
        id = t.id;
      })(),
    ]);
    client = rawClient(swift);
    await createBucket(client, 'faults');
  }, 60_000);
  afterAll(async () => {
    client?.destroy();
    t?.cleanup();
    await swift?.stop();
  });

  it('item 17: the upload bundle ships only the files the library knows, not a stray file in the recording folder', async () => {
    const rec = getRecording(t.lib.db, id);
    fs.writeFileSync(path.join(t.lib.resolve(rec.dir), 'stray.txt'), 'not mine');
    fs.mkdirSync(path.join(t.lib.resolve(rec.dir), 'raw', 'junk'));
    fs.writeFileSync(path.join(t.lib.resolve(rec.dir), 'raw', 'junk', 'x.bin'), 'x');
    const bundle = await buildBundle(t.lib, id, path.join(root, 'bundle-stray'), {
      ...OPTS,
      includeKeyframes: false,
    });
    const keys = bundle.files.map((f) => f.relKey);
    expect(keys.filter((k) => k.includes('stray') || k.includes('junk'))).toEqual([]);
    expect(keys).toContain('files/raw/events.jsonl');
    expect(keys.filter((k) => k.startsWith('video/'))).toHaveLength(1);
    fs.rmSync(path.join(t.lib.resolve(rec.dir), 'stray.txt'));
    fs.rmSync(path.join(t.lib.resolve(rec.dir), 'raw', 'junk'), { recursive: true });
  });

  it('item 17: a flipped byte in the video is refused when the upload bundle is built', async () => {
    const lib2 = tempLibrary();
    try {
      const { id: id2 } = await importAgentNetFolder(lib2.lib, FIXTURE_DIR, OPTS);
      const video = lib2.lib.resolve(getRecording(lib2.lib.db, id2).videos[0]!.path);
      const bytes = fs.readFileSync(video);
      bytes[100_000] = bytes[100_000]! ^ 1;
      fs.writeFileSync(video, bytes);
      const e = await rejection(
        buildBundle(lib2.lib, id2, path.join(root, 'bundle-flip'), {
          ...OPTS,
          includeKeyframes: false,
        }),
      );
      expect(isAppError(e, 'INTEGRITY_FAILED')).toBe(true);
      expect(e.message).toContain(id2);
    } finally {
      lib2.cleanup();
    }
  });

  it('item 17: a resumed upload whose file changed between runs (same size and mtime) sends it again and never verifies old parts', async () => {
    const target = swiftTarget(swift!, 'faults', 'resume');
    const blobFile = path.join(root, 'resume-blob.bin');
    writeBlob(blobFile, 30 * 1024 * 1024 + 12_345); // 7 parts of 5 MiB
    const { uploadId } = enqueueUpload(t.lib, id, { target, annotator: 'eve' });
    const key = `resume/eve/${id}/extra/blob.bin`;
    const { exit } = await uploadUntilKilled(swift!, t.dir, uploadId, blobFile, 3);
    expect(exit).toBe('SIGKILL');
    expect(listUploadParts(t.lib.db, uploadId, 'extra/blob.bin').length).toBeGreaterThan(0);
    // change bytes inside the first (already sent) part, keeping size and modification time
    const before = fs.statSync(blobFile);
    const reference = `${blobFile}.ref`;
    fs.writeFileSync(reference, '');
    spawnSync('touch', ['-r', blobFile, reference]); // keeps the nanoseconds
    const fd = fs.openSync(blobFile, 'r+');
    fs.writeSync(fd, Buffer.from('CHANGED!'), 0, 8, 1000);
    fs.closeSync(fd);
    spawnSync('touch', ['-r', reference, blobFile]);
    expect(fs.statSync(blobFile).mtimeMs).toBe(before.mtimeMs);

    const s = new S3ObjectStore(target, { kind: 'static', credentials: swift!.credentials });
    const result = await runUpload(t.lib, uploadId, s, {
      appVersion: '0.0.0-test',
      partSizeBytes: PART_5_MIB,
      includeKeyframes: false,
      extraFiles: [{ relKey: 'extra/blob.bin', path: blobFile }],
    });
    s.close();
    const local = createHash('sha256').update(fs.readFileSync(blobFile)).digest('hex');
    expect(result.status).toBe('uploaded');
    // what the server holds is the file as it is now, and the manifest says so
    expect(await objectSha256(client!, 'faults', key)).toBe(local);
    const manifest = JSON.parse(
      await objectText(client!, 'faults', `resume/eve/${id}/manifest.json`),
    ) as {
      files: { path: string; sha256: string }[];
    };
    expect(manifest.files.find((f) => f.path === 'extra/blob.bin')?.sha256).toBe(local);
  }, 120_000);
});
