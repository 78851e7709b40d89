// Alignment: the screen changes at an instant known on the session clock (a window flips from
// black to white on an injected key press and reports when it had painted the change); the first
// video frame showing the change must lie within one frame period of that instant, and never
// before the key's stored time.
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
  /** First changed frame − the key's stored time (includes the app's repaint delay). */
  let errors: number[] = [];
  /** First changed frame − when the app had painted the change (the app reports it). */
  let paintErrors: number[] = [];
  let frameMs = 0;

  beforeAll(async () => {
    desktop = await startDesktop();
    const app = desktop.spawn('/usr/bin/python3', [
      path.join(REPO_ROOT, 'tests/fixtures/apps/flash.py'),
    ]);
    let appOut = '';
    await new Promise<void>((resolve) =>
      app.stdout!.on('data', (d: Buffer) => {
        appOut += d.toString();
        if (appOut.includes('"ready"')) {
          resolve();
        }
      }),
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
      const painted = appOut
        .split('\n')
        .filter((line) => line.includes('"flip"'))
        .map((line) => (JSON.parse(line) as { paintedMs: number }).paintedMs);
      expect(painted).toHaveLength(FLIPS);
      paintErrors = flipFrames.map((n, i) => v.startMs + n * frameMs - painted[i]!);
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
    expect(paintErrors).toHaveLength(FLIPS);
    console.log(
      `alignment errors (ms) against the key: ${errors.map((e) => e.toFixed(1)).join(', ')}; ` +
        `against the paint: ${paintErrors.map((e) => e.toFixed(1)).join(', ')}`,
    );
    // The key's stored time is never after the first frame showing its effect (by more than a
    // period): an input clock running late would show here.
    for (const e of errors) {
      expect(e).toBeGreaterThanOrEqual(-frameMs);
    }
    // Against the instant the app had painted the change (its after-paint plus a round trip to
    // the X server, on the same clock), the app's own repaint delay, which grows on a loaded
    // 2-core machine, is out of the measure: a frame captured at t shows the screen as it was at
    // t, so the first changed frame lies within one period after the paint. The app's report can
    // itself come late (its after-paint and the round trip after the pixels were in: the first
    // flip often reads 10-25 ms early here), so single flips are bounded only from above; a video
    // clock off by a period or more would move the median out of [-period, +period].
    for (const e of paintErrors) {
      expect(e).toBeLessThanOrEqual(4 * frameMs);
    }
    const sorted = [...paintErrors].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(median).toBeGreaterThanOrEqual(-frameMs);
    expect(median).toBeLessThanOrEqual(frameMs);
  });
});
