// Alignment: the screen changes at an instant known on the session clock (a window flips from
// black to white on an injected key press, whose stored time is that instant); the first video
// frame showing the change must lie within one frame period of it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../../src/services/library/library';
import { showRecording } from '../../../src/services/recordings';
import { readEvents } from '../../../src/store';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { REPO_ROOT } from '../../helpers/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FLIPS = 8;

/** Mean brightness of the top-left 200×150 region of every frame. */
async function frameBrightness(file: string, x: number, y: number): Promise<number[]> {
  const crop = `crop=100:100:${x}:${y},scale=1:1:flags=area,format=gray`;
  const child = spawn('ffmpeg', ['-v', 'error', '-i', file, '-vf', crop, '-f', 'rawvideo', '-']);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  await new Promise((r) => child.once('close', r));
  return [...Buffer.concat(chunks)];
}

describe('video/input alignment', () => {
  let desktop: Desktop;
  const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-align-'));
  let errors: number[] = [];
  let frameMs = 0;

  beforeAll(async () => {
    desktop = await startDesktop();
    const app = desktop.spawn('/usr/bin/python3', [
      path.join(REPO_ROOT, 'tests/fixtures/apps/flash.py'),
    ]);
    await new Promise<void>((resolve) =>
      app.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()),
    );
    await desktop.run('xdotool', ['search', '--name', '^Flash$', 'windowactivate', '--sync']);
    const geometry = await desktop.run('xdotool', [
      'search',
      '--name',
      '^Flash$',
      'getwindowgeometry',
      '--shell',
    ]);
    const gx = Number(/X=(\d+)/.exec(geometry)![1]) + 150;
    const gy = Number(/Y=(\d+)/.exec(geometry)![1]) + 100;
    const rec = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
        'record',
        '--task',
        'flash',
        '--no-a11y',
        '--library',
        lib,
      ],
      {
        env: desktop.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    rec.stdout.on('data', (d: Buffer) => (out += d.toString()));
    while (!/^[0-9a-f-]{36}$/m.test(out)) {
      await sleep(50);
    }
    const id = /^([0-9a-f-]{36})$/m.exec(out)![1]!;
    await sleep(700);
    for (let i = 0; i < FLIPS; i += 1) {
      await desktop.run('xdotool', ['key', 'space']);
      await sleep(400 + ((i * 37) % 50)); // random phase against the 33 ms frame grid
    }
    await sleep(500);
    rec.kill('SIGINT');
    await new Promise((r) => rec.once('close', r));
    const l = openLibrary(lib);
    try {
      const v = showRecording(l, id).video!;
      frameMs = 1000 / v.fps;
      const seq = (
        l.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(id) as { seq: number }
      ).seq;
      const keys = readEvents(l.db, seq)
        .filter((e) => e.kind === 'keydown')
        .map((e) => e.tMs);
      const bright = await frameBrightness(l.resolve(v.path), gx, gy);
      let white = bright[0]! > 128;
      const flipFrames: number[] = [];
      bright.forEach((b, n) => {
        const isWhite = b > 128;
        if (isWhite !== white) {
          flipFrames.push(n);
          white = isWhite;
        }
      });
      expect(flipFrames).toHaveLength(keys.length);
      errors = flipFrames.map((n, i) => v.startMs + n * frameMs - keys[i]!);
    } finally {
      l.close();
    }
  }, 120_000);

  afterAll(async () => {
    await desktop?.stop();
    fs.rmSync(lib, { recursive: true, force: true });
  });

  it('puts the first changed frame within one frame period of the change (median), never early', () => {
    expect(errors).toHaveLength(FLIPS);
    // a frame captured at t shows the screen as it was at t: 0 ≤ error < one period, plus the
    // app's repaint delay, which grows on a loaded 2-core machine (a clean-clone CI run under the
    // whole suite saw 34.8 and 36.5 ms at 30 fps). What a clock error would show is a bias: every
    // frame early (before the key), or the median off by a period or more.
    console.log(`alignment errors (ms): ${errors.map((e) => e.toFixed(1)).join(', ')}`);
    for (const e of errors) {
      expect(e).toBeGreaterThanOrEqual(-frameMs);
      expect(e).toBeLessThanOrEqual(4 * frameMs);
    }
    const within = errors.filter((e) => Math.abs(e) <= frameMs);
    expect(within.length).toBeGreaterThanOrEqual(FLIPS / 2);
    const sorted = [...errors].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(median).toBeGreaterThanOrEqual(-frameMs);
    expect(median).toBeLessThanOrEqual(frameMs);
  });
});
