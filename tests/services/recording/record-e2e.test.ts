// End to end: the real `cua-annotator record` CLI under Xvfb + D-Bus + AT-SPI + openbox with a
// GTK form, real xdotool injection, real ffmpeg and a real library.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../../src/services/library/library';
import { showRecording } from '../../../src/services/recordings';
import { listAxRecords, readEvents } from '../../../src/store';
import { runsStartWithIdr } from '../../../src/pipeline/media/mp4-feed';
import { readMp4VideoIndex } from '../../../src/pipeline/media/mp4-index';
import { probeVideo } from '../../../src/infra/ffmpeg/probe';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { launchGtkForm, type GtkForm } from '../../fixtures/apps/gtk-form';
import { REPO_ROOT } from '../../helpers/paths';
import { runCli } from '../../helpers/cli';

const PASSWORD = 'Zq9Xw7Kv';
const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Recorder = {
  child: ChildProcess;
  id: Promise<string>;
  exit: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
};

function startRecorder(desktop: Desktop, lib: string, extra: string[] = []): Recorder {
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'record',
      '--task',
      'Fill in the test form',
      '--library',
      lib,
      ...extra,
    ],
    { env: desktop.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  const id = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^([0-9a-f-]{36})$/m.exec(out);
      if (m) {
        resolve(m[1]!);
      }
    });
    child.once('close', () => reject(new Error(`recorder exited before starting: ${err}`)));
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) =>
    child.once('close', (code) => resolve(code)),
  );
  return { child, id, exit, stdout: () => out, stderr: () => err };
}

describe('record (Xvfb + AT-SPI + GTK form)', () => {
  let desktop: Desktop;
  let form: GtkForm;
  const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-rec-'));
  let recordingId = '';
  let stopAtMs = 0;
  let recorder: Recorder;

  beforeAll(async () => {
    desktop = await startDesktop();
    form = await launchGtkForm(desktop);
    const w = form.ready.widgets;
    const x = (...args: string[]) => desktop.run('xdotool', args);
    recorder = startRecorder(desktop, lib);
    recordingId = await recorder.id;
    await sleep(800);
    // click the button
    await x('mousemove', String(w.button.cx), String(w.button.cy));
    await sleep(150);
    await x('click', '1');
    await sleep(700);
    // click the entry and type hello, then select all
    await x('mousemove', String(w.entry.cx), String(w.entry.cy));
    await sleep(150);
    await x('click', '1');
    await sleep(500);
    await x('type', '--delay', '60', 'hello');
    await sleep(400);
    await x('key', 'ctrl+a');
    await sleep(700);
    // scroll the list three notches down
    await x('mousemove', String(w.list.cx), String(w.list.cy));
    await sleep(150);
    await x('click', '5');
    await sleep(60);
    await x('click', '5');
    await sleep(60);
    await x('click', '5');
    await sleep(900);
    // drag inside the list
    await x('mousemove', String(w.list.x + 20), String(w.list.y + 20));
    await sleep(150);
    await x('mousedown', '1');
    await sleep(100);
    await x('mousemove', String(w.list.x + 60), String(w.list.y + 50));
    await sleep(100);
    await x('mousemove', String(w.list.x + 90), String(w.list.y + 70));
    await sleep(100);
    await x('mouseup', '1');
    await sleep(700);
    // the password field
    await x('mousemove', String(w.password.cx), String(w.password.cy));
    await sleep(150);
    await x('click', '1');
    await sleep(800);
    await x('type', '--delay', '60', PASSWORD);
    await sleep(800);
    stopAtMs = monotonicMs();
    recorder.child.kill('SIGINT');
    const code = await recorder.exit;
    expect(code, recorder.stderr()).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await form?.close();
    await desktop?.stop();
    fs.rmSync(lib, { recursive: true, force: true });
  });

  it('prints a one-line summary and stores a complete recording', async () => {
    expect(recorder.stdout()).toMatch(
      /recorded [0-9a-f-]{36}: \d+:\d\d\.\d, \d+ frames, \d+ events, \d+ steps \(complete\)/,
    );
    const show = await runCli(['show', recordingId, '--json', '--library', lib]);
    const v = JSON.parse(show.stdout);
    expect(v.status).toBe('complete');
    expect(v.platform.os).toBe('linux');
    expect(v.screen).toMatchObject({ width: 1280, height: 800 });
  });

  it('records CFR video at 30 fps with the frame count of its wall duration (±2 %)', async () => {
    const l = openLibrary(lib);
    try {
      const v = showRecording(l, recordingId).video!;
      const probe = await probeVideo(l.resolve(v.path), { path: 'ffmpeg', ffprobePath: 'ffprobe' });
      expect(probe.fps).toBe(30);
      const expected = ((stopAtMs - v.startMs) / 1000) * 30;
      expect(Math.abs(probe.frameCount! - expected) / expected).toBeLessThan(0.02);
      expect(v.startMethod).toMatch(/^x11grab-pts/);
    } finally {
      l.close();
    }
  });

  it('stores a plain H.264 MP4 whose own index the keyframe extraction pipes from', async () => {
    const l = openLibrary(lib);
    try {
      const video = l.resolve(showRecording(l, recordingId).video!.path);
      const { index, reason } = await readMp4VideoIndex(video);
      expect(reason).toBeUndefined();
      const probe = await probeVideo(video, { path: 'ffmpeg', ffprobePath: 'ffprobe' });
      expect(index!.sampleOfFrame).toHaveLength(probe.frameCount!);
      // a keyframe every second (30 frames), each an IDR picture
      expect(index!.keyframes.slice(0, 3)).toEqual([0, 30, 60]);
      expect(await runsStartWithIdr(video, index!, index!.keyframes)).toBe(true);
    } finally {
      l.close();
    }
  });

  it('stores every injected event in order with exact coordinates', () => {
    const l = openLibrary(lib);
    try {
      const rec = showRecording(l, recordingId);
      const seq = (
        l.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(recordingId) as { seq: number }
      ).seq;
      const events = readEvents(l.db, seq);
      const w = form.ready.widgets;
      const downs = events.filter((e) => e.kind === 'down');
      expect(downs.map((e) => [e.x, e.y, e.button])).toEqual([
        [w.button.cx, w.button.cy, 'left'],
        [w.entry.cx, w.entry.cy, 'left'],
        [w.list.x + 20, w.list.y + 20, 'left'],
        [w.password.cx, w.password.cy, 'left'],
      ]);
      const ups = events.filter((e) => e.kind === 'up');
      expect(ups[2]).toMatchObject({ x: w.list.x + 90, y: w.list.y + 70 });
      const wheels = events.filter((e) => e.kind === 'wheel');
      expect(wheels.map((e) => [e.x, e.y, e.dx, e.dy])).toEqual(
        Array(3).fill([w.list.cx, w.list.cy, 0, -1]),
      );
      const typed = events
        .filter((e) => e.kind === 'keydown' && e.char !== null)
        .map((e) => e.char)
        .join('');
      expect(typed.startsWith('hello')).toBe(true);
      expect(
        events.some((e) => e.kind === 'keydown' && e.key === 'a' && (e.modifiers & 2) !== 0),
      ).toBe(true);
      for (let i = 1; i < events.length; i += 1) {
        expect(events[i]!.idx).toBe(i);
        expect(events[i]!.tMs).toBeGreaterThanOrEqual(events[i - 1]!.tMs);
      }
      expect(rec.eventCounts.button).toBe(8);
    } finally {
      l.close();
    }
  });

  it('reduces to click, click, write hello, ctrl+a, scroll, drag, click, (masked typing)', () => {
    const l = openLibrary(lib);
    try {
      const steps = showRecording(l, recordingId).steps;
      expect(steps.slice(0, 7).map((s) => s.type)).toEqual([
        'click',
        'click',
        'write',
        'hotkey',
        'scroll',
        'dragTo',
        'click',
      ]);
      expect(steps[2]!.code).toBe("pyautogui.write(message='hello')");
      expect(steps[3]!.code).toBe("pyautogui.hotkey(keys=['ctrl', 'a'])");
      expect(steps[4]!.code).toMatch(/pyautogui\.scroll\(-3\)$/);
    } finally {
      l.close();
    }
  });

  it('has an element record with the button role and name for the button press', () => {
    const l = openLibrary(lib);
    try {
      const seq = (
        l.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(recordingId) as { seq: number }
      ).seq;
      const elements = listAxRecords(l.db, seq, 'element');
      const tree = JSON.parse(elements[0]!.treeJson);
      expect(tree.path[0]).toMatchObject({ role: 'push button', name: 'Press Me' });
      expect(elements.some((e) => e.note === 'secure')).toBe(true);
      expect(listAxRecords(l.db, seq, 'window').length).toBeGreaterThan(0);
    } finally {
      l.close();
    }
  });

  it('keeps the password characters out of the whole library', () => {
    const hits: string[] = [];
    const scan = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          scan(p);
        } else if (fs.readFileSync(p).includes(PASSWORD.slice(2, 6))) {
          hits.push(p);
        }
      }
    };
    scan(lib);
    expect(hits).toEqual([]);
    const l = openLibrary(lib);
    try {
      const seq = (
        l.db.prepare('SELECT seq FROM recordings WHERE id = ?').get(recordingId) as { seq: number }
      ).seq;
      const keys = readEvents(l.db, seq).filter((e) => e.kind === 'keydown');
      const masked = keys.filter((e) => (e.flags & 1) !== 0);
      expect(masked.length).toBeGreaterThanOrEqual(PASSWORD.length);
      for (const c of PASSWORD) {
        expect(
          keys.slice(-PASSWORD.length).some((e) => e.char === c || e.key === c.toLowerCase()),
        ).toBe(false);
      }
    } finally {
      l.close();
    }
  });
});
