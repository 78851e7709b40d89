// A bad environment is refused up front with a message that says what to do, and nothing is
// written; no AT-SPI bus only warns. Pause/resume: nothing is captured while paused and the
// pause is in the timeline; the stop hotkey ends the recording and is never recorded.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../../src/services/library/library';
import { getCapture, listMarks, readEvents } from '../../../src/store';
import { runCli } from '../../helpers/cli';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { REPO_ROOT } from '../../helpers/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cua-env-'));

function recordingsIn(lib: string): string[] {
  const dir = path.join(lib, 'recordings');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('record refuses a bad environment', () => {
  const lib = tmp();
  afterAll(() => fs.rmSync(lib, { recursive: true, force: true }));

  it('no DISPLAY → exit 2, says what to do, writes nothing', async () => {
    const r = await runCli(['record', '--task', 't', '--duration', '1', '--library', lib], {
      DISPLAY: '',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/INPUT_HOOK_UNAVAILABLE/);
    expect(r.stderr).toMatch(/DISPLAY/);
    expect(recordingsIn(lib)).toEqual([]);
  });

  it('an X server without RECORD → refused before anything is written', async () => {
    const n = 230 + Math.floor(Math.random() * 200);
    const xvfb = spawn(
      'Xvfb',
      [`:${n}`, '-screen', '0', '640x480x24', '-nolisten', 'tcp', '-extension', 'RECORD'],
      { stdio: 'ignore' },
    );
    try {
      for (let i = 0; i < 100 && !fs.existsSync(`/tmp/.X11-unix/X${n}`); i += 1) {
        await sleep(50);
      }
      await sleep(300);
      const r = await runCli(['record', '--task', 't', '--duration', '1', '--library', lib], {
        DISPLAY: `:${n}`,
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/RECORD/);
      expect(recordingsIn(lib)).toEqual([]);
    } finally {
      xvfb.kill('SIGKILL');
    }
  });

  it('an ffmpeg that does not exist → FFMPEG_NOT_FOUND naming the path', async () => {
    const desktop = await startDesktop();
    try {
      const r = await runCli(['record', '--task', 't', '--duration', '1', '--library', lib], {
        ...desktop.env,
        CUA_FFMPEG: '/nonexistent/ffmpeg',
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('FFMPEG_NOT_FOUND');
      expect(r.stderr).toContain('/nonexistent/ffmpeg');
      expect(recordingsIn(lib)).toEqual([]);
    } finally {
      await desktop.stop();
    }
  });
});

describe('record without an AT-SPI bus, with pause and the stop hotkey', () => {
  let desktop: Desktop;
  const lib = tmp();
  let out = '';
  let err = '';
  let code: number | null = null;

  beforeAll(async () => {
    desktop = await startDesktop();
    const env = { ...desktop.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' };
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        'record',
        '--task',
        'pause me',
        '--library',
        lib,
      ],
      {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const closed = new Promise((r) => child.once('close', (c) => r((code = c))));
    while (!/^[0-9a-f-]{36}$/m.test(out)) {
      if (child.exitCode !== null) {
        throw new Error(err);
      }
      await sleep(50);
    }
    const x = (...a: string[]) => desktop.run('xdotool', a);
    await sleep(500);
    await x('mousemove', '100', '100', 'click', '1');
    await sleep(300);
    await x('key', 'ctrl+alt+shift+p'); // pause
    await sleep(1200);
    await x('mousemove', '200', '200', 'click', '1'); // must not be captured
    await sleep(300);
    await x('key', 'ctrl+alt+shift+p'); // resume
    await sleep(1200);
    await x('mousemove', '300', '300', 'click', '1');
    await sleep(300);
    await x('key', 'ctrl+alt+shift+r'); // stop
    await closed;
  }, 120_000);

  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(lib, { recursive: true, force: true });
  });

  it('records anyway, warns, and says so in the metadata', () => {
    expect(code, err).toBe(0);
    expect(err).toMatch(/without accessibility/);
    const l = openLibrary(lib);
    try {
      const { seq } = l.db.prepare('SELECT seq FROM recordings').get() as { seq: number };
      expect(String(getCapture(l.db, seq)?.accessibility)).toMatch(/^unavailable/);
    } finally {
      l.close();
    }
  });

  it('captures nothing while paused, keeps the pause in the timeline and records no hotkey', () => {
    const l = openLibrary(lib);
    try {
      const { seq } = l.db.prepare('SELECT seq FROM recordings').get() as { seq: number };
      const events = readEvents(l.db, seq);
      expect(events.filter((e) => e.kind === 'down').map((e) => [e.x, e.y])).toEqual([
        [100, 100],
        [300, 300],
      ]);
      expect(events.filter((e) => e.kind === 'keydown')).toEqual([]);
      const pause = listMarks(l.db, seq).find((m) => m.kind === 'pause');
      expect(pause).toBeDefined();
      expect(pause!.endMs! - pause!.tMs).toBeGreaterThan(1000);
      const videos = l.db
        .prepare(
          'SELECT path, frame_count, start_ms, start_method FROM videos WHERE recording_seq = ? ORDER BY ord',
        )
        .all(seq) as {
        path: string;
        frame_count: number;
        start_ms: number;
        start_method: string;
      }[];
      // the joined whole-session video first, then the two captured segments
      expect(videos.map((v) => path.basename(v.path))).toEqual([
        'video.mp4',
        'video-0.mp4',
        'video-1.mp4',
      ]);
      const [joined, a, b] = videos as [(typeof videos)[0], (typeof videos)[0], (typeof videos)[0]];
      expect(joined.start_method).toMatch(/\+joined$/);
      const span = b.start_ms + (b.frame_count * 1000) / 30 - a.start_ms;
      expect(Math.abs(joined.frame_count - (span * 30) / 1000)).toBeLessThanOrEqual(2);
    } finally {
      l.close();
    }
  });
});
