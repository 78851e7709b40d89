// Faults of the library found in issue 26 (items 13, 14, 19, 20): six concurrent imports of one
// folder, a terminate keyframe past the video's last frame, a recording with no input blocking
// `export --all`, and a library on a read-only folder or filesystem. Real SQLite, the real CLI in
// child processes, real ffmpeg, Xvfb and mounts.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/infra/run-command';
import { exportRecordings } from '../../src/services/export/export-service';
import { checkRecordingInLibrary } from '../../src/services/quality/check-service';
import { reduceRecording } from '../../src/services/reduce-service';
import { computeKeyframes, TERMINATE_KEYFRAME_ID } from '../../src/services/keyframes/keyframes';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { insertEvents, insertVideo, listKeyframes } from '../../src/store';
import { runCli } from '../helpers/cli';
import { startDesktop } from '../helpers/desktop';
import { tempLibrary } from '../helpers/library';
import { exampleClipDir } from '../helpers/example-clip';
import { FIXTURE_DIR, REPO_ROOT } from '../helpers/paths';
import { makeRecording } from '../helpers/store';
import { EventScript } from '../pipeline/reduce/event-script';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-lib-'));
const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts.reverse()) {
    spawnSync('umount', [m]);
  }
  spawnSync('chmod', ['-R', 'u+w', root]);
  fs.rmSync(root, { recursive: true, force: true });
});

function rows<T>(dbFile: string, sql: string): T[] {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('concurrent imports', () => {
  it('item 41: six parallel CLI imports of one folder into a new library store exactly one recording; the other five fail with IMPORT_DUPLICATE', async () => {
    const dir = path.join(root, 'six');
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        runCli(['import', FIXTURE_DIR, '--no-keyframes', '--library', dir]),
      ),
    );
    const ok = runs.filter((r) => r.code === 0);
    const refused = runs.filter((r) => r.code !== 0);
    const recordings = rows<{ id: string }>(
      path.join(dir, 'library.sqlite'),
      'SELECT id FROM recordings',
    );
    expect(recordings.length, runs.map((r) => r.stdout + r.stderr).join('\n')).toBe(1);
    expect(ok.length).toBe(1);
    expect(refused.length).toBe(5);
    for (const r of refused) {
      expect(r.stderr).toContain('IMPORT_DUPLICATE');
      expect(r.stderr).toContain(recordings[0]!.id);
      expect(r.stderr).toMatch(/fix: /);
      expect(r.stderr).not.toContain('INTERNAL');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // nothing half-written: one recording folder, no staging left
    expect(fs.readdirSync(path.join(dir, 'recordings'))).toEqual([recordings[0]!.id]);

    // --allow-duplicate still imports it again (without the key), a plain import is still refused
    const again = await runCli([
      'import',
      FIXTURE_DIR,
      '--allow-duplicate',
      '--no-keyframes',
      '--library',
      dir,
    ]);
    expect(again.code, again.stderr).toBe(0);
    const plain = await runCli(['import', FIXTURE_DIR, '--no-keyframes', '--library', dir]);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('IMPORT_DUPLICATE');
    expect(
      rows<{ k: string | null }>(
        path.join(dir, 'library.sqlite'),
        'SELECT source_fingerprint AS k FROM recordings ORDER BY seq',
      ).map((r) => r.k === null),
    ).toEqual([false, true]);
  }, 120_000);
});

describe('terminate keyframe at the video end', () => {
  const FPS = 30;
  const FRAMES = 271;
  const VIDEO_START_MS = 1000;

  it('item 42: the screen changes in the last 0.1 s after the last step: every keyframe lies in the video, check and every export pass', async () => {
    const t = tempLibrary();
    try {
      const { id, seq } = makeRecording(t.lib.db, { videoStartMs: VIDEO_START_MS });
      const videoRel = `recordings/${id}/screen.mp4`;
      const videoPath = t.lib.resolve(videoRel);
      fs.mkdirSync(path.dirname(videoPath), { recursive: true });
      // black until the last two frames (269, 270), which are white: the first change after the
      // last step is seen by the forward probe at 9.0 s (frame 270), whose result 9.1 s is
      // frame 273 of 271
      const made = await runCommand(
        'ffmpeg',
        [
          ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'lavfi'],
          ...['-i', `color=c=black:size=160x100:rate=${FPS}`, '-frames:v', String(FRAMES)],
          ...['-vf', "drawbox=x=0:y=0:w=160:h=100:color=white:t=fill:enable='gte(n,269)'"],
          ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-y', videoPath],
        ],
        { timeoutMs: 60_000 },
      );
      expect(made.code, made.stderr).toBe(0);
      insertVideo(t.lib.db, seq, 0, {
        path: videoRel,
        width: 160,
        height: 100,
        fps: FPS,
        frameCount: FRAMES,
        durationMs: (FRAMES / FPS) * 1000,
        startMs: VIDEO_START_MS,
        startMethod: 'test',
        codec: 'h264',
        sizeBytes: fs.statSync(videoPath).size,
        sha256: null,
      });
      const s = new EventScript(2_480);
      s.moveTo(300, 200).click().wait(200);
      insertEvents(t.lib.db, seq, s.events);
      reduceRecording(t.lib, id);

      await computeKeyframes(t.lib, id);
      const rows = [...listKeyframes(t.lib.db, seq).values()];
      const terminate = rows.find((r) => r.stepId === TERMINATE_KEYFRAME_ID);
      expect(terminate?.frame).toBe(FRAMES - 1);
      for (const r of rows) {
        expect(r.frame, r.stepId).not.toBeNull();
        expect(r.frame!, r.stepId).toBeLessThan(FRAMES);
        expect(r.path, r.stepId).not.toBeNull();
      }
      expect(checkRecordingInLibrary(t.lib, id).ok).toBe(true);
      for (const format of EXPORT_FORMATS) {
        const done = await exportRecordings(t.lib, [id], {
          appVersion: '0.0.0-test',
          format,
          outDir: path.join(root, `end-${format}`),
        });
        expect(done).toHaveLength(1);
      }

      // a row stored before the fix (frame 273, no image) is named by `check` with a fix that
      // works: Recompute
      t.lib.db
        .prepare(
          `UPDATE keyframes SET frame = 273, path = NULL WHERE recording_seq = ? AND step_id = ?`,
        )
        .run(seq, TERMINATE_KEYFRAME_ID);
      const checked = checkRecordingInLibrary(t.lib, id);
      expect(checked.ok).toBe(false);
      const missing = checked.problems.find((p) => p.code === 'KEYFRAME_MISSING');
      expect(missing?.message).toContain('terminate');
      expect(missing?.fix).toMatch(/Recompute/);
      await computeKeyframes(t.lib, id);
      expect(checkRecordingInLibrary(t.lib, id).ok).toBe(true);
      await exportRecordings(t.lib, [id], {
        appVersion: '0.0.0-test',
        format: 'agentnet-jsonl',
        outDir: path.join(root, 'end-recomputed'),
      });
    } finally {
      t.cleanup();
    }
  }, 120_000);
});

describe('a recording without input', () => {
  it('item 47: record --duration with no input warns NO_INPUT; export --all skips it with a notice in every format', async () => {
    const lib = path.join(root, 'no-input');
    const desktop = await startDesktop();
    let rec;
    try {
      rec = await runCli(
        ['record', '--task', 'nothing happens', '--duration', '2', '--no-a11y', '--library', lib],
        desktop.env,
      );
    } finally {
      await desktop.stop();
    }
    expect(rec.code, rec.stderr).toBe(0);
    const id = /^([0-9a-f-]{36})$/m.exec(rec.stdout)![1]!;
    // warned at record time, in the summary, and stored with the recording
    expect(rec.stdout + rec.stderr).toMatch(/warning: NO_INPUT: .*delete it .*or record again/i);
    const show = await runCli(['show', id, '--json', '--library', lib]);
    expect(show.code, show.stderr).toBe(0);
    const warnings = (JSON.parse(show.stdout) as { warnings: string[] }).warnings;
    expect(warnings.some((w) => w.startsWith('NO_INPUT:'))).toBe(true);

    const imported = await runCli(['import', FIXTURE_DIR, '--library', lib]);
    expect(imported.code, imported.stderr).toBe(0);
    for (const format of EXPORT_FORMATS) {
      const out = path.join(root, `no-input-${format}`);
      const r = await runCli([
        'export',
        '--all',
        '--format',
        format,
        '--out',
        out,
        '--library',
        lib,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`skipped ${id}`);
      expect(r.stdout).toMatch(/no input was recorded/);
      expect(r.stdout).toMatch(/exported 1 recording/);
      expect(fs.readdirSync(out).length).toBeGreaterThan(0);
    }
    // named alone, it is refused with a fix that can work
    const alone = await runCli([
      'export',
      id,
      '--format',
      'agentnet-raw',
      '--out',
      path.join(root, 'no-input-alone'),
      '--library',
      lib,
    ]);
    expect(alone.code).not.toBe(0);
    expect(alone.stderr).toMatch(/no input was recorded/);
    expect(alone.stderr).toMatch(/fix: .*delete/i);
    expect(alone.stderr).not.toMatch(/run `cua-annotator reduce/);
    // and --skip-damaged leaves it out of a run naming it
    const good = /^imported ([0-9a-f-]{36})/m.exec(imported.stdout)![1]!;
    const both = await runCli([
      'export',
      id,
      good,
      '--skip-damaged',
      '--format',
      'agentnet-raw',
      '--out',
      path.join(root, 'no-input-skip'),
      '--library',
      lib,
    ]);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toContain(`skipped ${id}`);
    expect(both.stdout).toMatch(/exported 1 recording/);
  }, 240_000);
});

// `nobody` must reach the repository to run its CLI: a clone inside a private folder (mktemp -d
// makes 0700 folders) is opened for traversal (o+x) while these tests run, and restored after.
const reopened: { dir: string; mode: number }[] = [];
beforeAll(() => {
  for (let dir = REPO_ROOT; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const { mode } = fs.statSync(dir);
    if ((mode & 0o001) === 0) {
      reopened.push({ dir, mode: mode & 0o7777 });
      fs.chmodSync(dir, (mode & 0o7777) | 0o001);
    }
  }
});
afterAll(() => {
  for (const { dir, mode } of reopened) {
    fs.chmodSync(dir, mode);
  }
});

/** Runs the CLI as the unprivileged user `nobody` (root ignores permissions). */
function runCliAsNobody(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'setpriv',
      [
        ...['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath],
        ...[path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'), ...args],
      ],
      { env: { ...process.env, HOME: '/tmp' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a read-only library', () => {
  type Run = (args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;

  // every command that only reads works; a writer is refused with LIBRARY_READ_ONLY and a fix
  async function readOnlyCommands(lib: string, run: Run, outRoot: string, fix: RegExp) {
    const list = await run(['list', '--json', '--library', lib]);
    expect(list.code, list.stderr).toBe(0);
    const [rec] = JSON.parse(list.stdout) as { id: string }[];
    expect(rec).toBeDefined();
    const id = rec!.id;
    for (const args of [
      ['show', id],
      ['check', id],
      ['scan', id],
      ['export', id, '--format', 'agentnet-raw', '--out', path.join(outRoot, 'raw')],
      ['export', id, '--format', 'agentnet-jsonl', '--out', path.join(outRoot, 'jsonl')],
    ]) {
      const r = await run([...args, '--library', lib]);
      expect([r.code, r.stderr], args.join(' ')).toEqual([
        args[0] === 'check' ? r.code : 0,
        r.stderr,
      ]);
      expect(r.stderr, args.join(' ')).not.toMatch(/INTERNAL|SQLITE_|error \[|\n\s+at /);
      expect(r.stderr, args.join(' ')).toMatch(/read-only: opened for reading/);
    }
    expect(fs.readdirSync(path.join(outRoot, 'raw')).length).toBeGreaterThan(0);
    expect(fs.readdirSync(path.join(outRoot, 'jsonl')).length).toBeGreaterThan(0);

    const doctor = await run(['doctor', '--library', lib]);
    expect(doctor.stdout).toMatch(/read-only/);
    expect(doctor.stdout).toMatch(/✓ database/);
    expect(doctor.stdout).not.toMatch(
      /not a readable SQLite database|restore the library from a backup/,
    );

    const imported = await run(['import', FIXTURE_DIR, '--allow-duplicate', '--library', lib]);
    expect(imported.code).not.toBe(0);
    expect(imported.stderr).toContain('LIBRARY_READ_ONLY');
    expect(imported.stderr).toMatch(/read-only/);
    expect(imported.stderr).toMatch(fix);
    return doctor;
  }

  it('item 48: on a read-only filesystem, list/show/check/scan/export/doctor work and say read-only; import is refused with LIBRARY_READ_ONLY', async () => {
    const lib = path.join(root, 'rofs');
    fs.mkdirSync(lib);
    const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', lib]);
    expect(m.status, String(m.stderr)).toBe(0);
    mounts.push(lib);
    // the example's 10-second clip: the agentnet-jsonl export decodes its keyframes (none stored)
    const clip = await exampleClipDir();
    const made = await runCli(['import', clip, '--no-keyframes', '--library', lib]);
    expect(made.code, made.stderr).toBe(0);
    const ro = spawnSync('mount', ['-o', 'remount,ro', lib]);
    expect(ro.status, String(ro.stderr)).toBe(0);
    const out = path.join(root, 'rofs-out');
    fs.mkdirSync(out);
    const doctor = await readOnlyCommands(lib, runCli, out, /remount/);
    expect(doctor.stdout).not.toMatch(/chmod u\+w/);
  }, 240_000);

  it('item 48: a folder without write permission for the user: the same, run as another user', async () => {
    fs.chmodSync(root, 0o755);
    const lib = path.join(root, 'chmod');
    // the example's 10-second clip: the agentnet-jsonl export decodes its keyframes (none stored)
    const clip = await exampleClipDir();
    const made = await runCli(['import', clip, '--no-keyframes', '--library', lib]);
    expect(made.code, made.stderr).toBe(0);
    spawnSync('chmod', ['-R', 'a-w', lib]);
    const out = path.join(root, 'chmod-out');
    fs.mkdirSync(out, { mode: 0o777 });
    fs.chmodSync(out, 0o777);
    await readOnlyCommands(lib, runCliAsNobody, out, /permission|owner|writable/i);
  }, 240_000);
});
