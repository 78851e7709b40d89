// Faults of the library found in issue 26 (items 13, 14, 19, 20): six concurrent imports of one
// folder, a terminate keyframe past the video's last frame, a recording with no input blocking
// `export --all`, and a library on a read-only folder or filesystem. Real SQLite, the real CLI in
// child processes, real ffmpeg, Xvfb and mounts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/infra/run-command';
import { exportRecordings } from '../../src/services/export/export-service';
import { checkRecordingInLibrary } from '../../src/services/quality/check-service';
import { reduceRecording } from '../../src/services/reduce-service';
import { computeKeyframes, TERMINATE_KEYFRAME_ID } from '../../src/services/review/keyframes';
import { EXPORT_FORMATS } from '../../src/shared/domain';
import { insertEvents, insertVideo, listKeyframes } from '../../src/store';
import { runCli } from '../helpers/cli';
import { startDesktop } from '../helpers/desktop';
import { tempLibrary } from '../helpers/library';
import { FIXTURE_DIR } from '../helpers/paths';
import { makeRecording } from '../helpers/store';
import { EventScript } from '../pipeline/reduce/event-script';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-lib-'));
afterAll(() => {
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
