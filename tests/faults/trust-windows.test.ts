// Issue 26, window faults (README rows 34 and 45), on a real desktop: Xvfb + D-Bus + AT-SPI +
// openbox, the GTK form and two xmessage windows, real xdotool input, the real `cua-annotator
// record` and `export` CLI with real ffmpeg and SQLite.
//
// One recording: "Top Secret Note" (excluded by `--exclude-title`) is on the screen the whole
// time but never has focus; text is typed into the form; then a click on the "Plain Note"
// xmessage in the background brings it to the front.
// - row 34: the excluded window's region is black in every frame of the exported video and in
//   every exported keyframe; the form's region is not;
// - row 45: the click's step names the clicked window (not the form, active before it), and the
//   window timeline has no duplicate first row (`top_window.jsonl` of agentnet-raw).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodePng } from '../../src/pipeline/media/png';
import { openLibrary } from '../../src/services/library/library';
import { getRecordingDto } from '../../src/services/review-service';
import { getRecording, listMarks, listWindows, resolveRecordingSeq } from '../../src/store';
import { launchGtkForm, type GtkForm } from '../fixtures/apps/gtk-form';
import { runCli, type CliRun } from '../helpers/cli';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { REPO_ROOT } from '../helpers/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Rect = { x: number; y: number; width: number; height: number };

let desktop: Desktop;
let form: GtkForm;
const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-windows-'));
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-trust-windows-out-'));
let code: number | null = null;
let err = '';
/** Frame rectangles (decorations included) of the two xmessage windows, screen px. */
const frames: Record<'secret' | 'plain', Rect> = {
  secret: { x: 0, y: 0, width: 0, height: 0 },
  plain: { x: 0, y: 0, width: 0, height: 0 },
};
let plainClient: Rect = { x: 0, y: 0, width: 0, height: 0 };
let windows: ReturnType<typeof listWindows> = [];
let regionMarks: ReturnType<typeof listMarks> = [];
let steps: { windowTitle: string | null; calls: string[]; coordinate: { x: number; y: number } }[] =
  [];
let video = { path: '', width: 0, height: 0, frameCount: 0 };
const exports: Record<'agentnet-raw' | 'agentnet-jsonl', CliRun | null> = {
  'agentnet-raw': null,
  'agentnet-jsonl': null,
};

// Opens an xmessage titled `title` at `at` and waits for its (client) window id.
async function xmessage(title: string, at: string): Promise<string> {
  desktop.spawn('xmessage', ['-title', title, '-geometry', at, `${title} body text`]);
  for (let i = 0; i < 100; i += 1) {
    const id = (await desktop.run('xdotool', ['search', '--name', `^${title}$`]).catch(() => ''))
      .trim()
      .split('\n')[0];
    if (id) {
      return id;
    }
    await sleep(50);
  }
  throw new Error(`xmessage ${title} did not map`);
}

// The client rectangle and the frame rectangle (with openbox's decorations) of a window.
async function rects(id: string): Promise<{ client: Rect; frame: Rect }> {
  const info = await desktop.run('xwininfo', ['-id', id]);
  const read = (label: string) => Number(new RegExp(`${label}:\\s*(-?\\d+)`).exec(info)![1]);
  const client = {
    x: read('Absolute upper-left X'),
    y: read('Absolute upper-left Y'),
    width: read('Width'),
    height: read('Height'),
  };
  const extents = await desktop.run('xprop', ['-id', id, '_NET_FRAME_EXTENTS']);
  const [left = 0, right = 0, top = 0, bottom = 0] = (/=\s*(.*)$/m.exec(extents)?.[1] ?? '')
    .split(',')
    .map((s) => Number(s.trim()));
  return {
    client,
    frame: {
      x: client.x - left,
      y: client.y - top,
      width: client.width + left + right,
      height: client.height + top + bottom,
    },
  };
}

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop); // frame at 100,100, about 420×460
  const secretId = await xmessage('Top Secret Note', '+650+100');
  const plainId = await xmessage('Plain Note', '+650+450');
  frames.secret = (await rects(secretId)).frame;
  const plain = await rects(plainId);
  frames.plain = plain.frame;
  plainClient = plain.client;
  const x = (...a: string[]) => desktop.run('xdotool', a);
  // the form in front: the excluded window stays visible beside it, never focused
  await x('windowactivate', '--sync', form.ready.xid);
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'record',
      ...['--task', 'Fill the form', '--fps', '10', '--library', lib],
      ...['--exclude-title', '^top secret'],
    ],
    { env: desktop.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
  const id = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      const m = /^([0-9a-f-]{36})$/m.exec(text);
      if (m) {
        resolve(m[1]!);
      }
    });
    child.once('close', () => reject(new Error(`recorder exited before starting: ${err}`)));
  });
  await sleep(700);
  const entry = form.ready.widgets.entry;
  await x('mousemove', String(entry.cx), String(entry.cy));
  await sleep(300);
  await x('click', '1');
  await sleep(300);
  await x('type', '--delay', '40', 'hello world');
  await sleep(500);
  // a click on the plain xmessage's text, in the background: it comes to the front
  await x('mousemove', String(plainClient.x + 40), String(plainClient.y + 15));
  await sleep(700);
  await x('click', '1');
  await sleep(1200);
  child.kill('SIGINT');
  code = await exit;

  const library = openLibrary(lib);
  try {
    const { seq } = resolveRecordingSeq(library.db, id);
    windows = listWindows(library.db, seq);
    regionMarks = listMarks(library.db, seq).filter((m) => m.kind !== 'excluded');
    const v = getRecording(library.db, id).videos[0]!;
    video = {
      path: library.resolve(v.path),
      width: v.width,
      height: v.height,
      frameCount: v.frameCount ?? 0,
    };
    steps = getRecordingDto(library, id, { mediaUrl: () => '' }).steps.map((s) => ({
      windowTitle: s.windowTitle,
      calls: s.calls.map((c) => c.name),
      coordinate: s.coordinate ?? { x: -1, y: -1 },
    }));
  } finally {
    library.close();
  }
  for (const format of ['agentnet-raw', 'agentnet-jsonl'] as const) {
    exports[format] = await runCli([
      'export',
      id,
      ...['--format', format, '--out', path.join(out, format), '--library', lib, '--json'],
    ]);
  }
}, 240_000);

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
  fs.rmSync(lib, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** `r` shrunk by `by` px on every side (H.264 rings a few px across a box's edge). */
function inset(r: Rect, by: number): Rect {
  return { x: r.x + by, y: r.y + by, width: r.width - 2 * by, height: r.height - 2 * by };
}

/** The brightest value of `r` in a packed frame of `channels` bytes a pixel. */
function maxIn(pixels: Uint8Array, width: number, channels: number, r: Rect): number {
  let max = 0;
  for (let y = r.y; y < r.y + r.height; y += 1) {
    for (let x = r.x; x < r.x + r.width; x += 1) {
      for (let c = 0; c < channels; c += 1) {
        max = Math.max(max, pixels[(y * width + x) * channels + c]!);
      }
    }
  }
  return max;
}

/** Every decoded frame of a video as 8-bit gray, in order. */
function grayFrames(file: string, width: number, height: number): Buffer[] {
  const raw = execFileSync(
    'ffmpeg',
    [
      ...['-v', 'error', '-i', file, '-map', '0:v:0', '-fps_mode', 'passthrough'],
      ...['-f', 'rawvideo', '-pix_fmt', 'gray', '-'],
    ],
    { maxBuffer: 1 << 30 },
  );
  const size = width * height;
  const out: Buffer[] = [];
  for (let o = 0; o + size <= raw.length; o += size) {
    out.push(raw.subarray(o, o + size));
  }
  return out;
}

describe('trust: windows (Xvfb, GTK form, xmessage)', () => {
  it('records and exports', () => {
    expect(code, err).toBe(0);
    for (const run of Object.values(exports)) {
      expect(run?.code, run?.stderr).toBe(0);
    }
  });

  it('item 34: an excluded window visible but never focused is black in every exported video frame and keyframe; the focused form is not', () => {
    // the region of the excluded window is stored as time-ranged boxes covering the recording
    expect(regionMarks.length, JSON.stringify(regionMarks)).toBeGreaterThanOrEqual(1);
    const secret = inset(frames.secret, 4);
    const formRect = inset(form.ready.window, 4);
    // the exported video (agentnet-raw): every frame
    const mp4 = filesUnder(path.join(out, 'agentnet-raw')).find((f) => f.endsWith('.mp4'))!;
    const gray = grayFrames(mp4, video.width, video.height);
    expect(gray.length).toBe(video.frameCount);
    gray.forEach((f, n) => {
      expect(maxIn(f, video.width, 1, secret), `frame ${n}: excluded window`).toBeLessThanOrEqual(
        30,
      );
      expect(maxIn(f, video.width, 1, formRect), `frame ${n}: the form`).toBeGreaterThan(100);
    });
    // the keyframes (agentnet-jsonl images)
    const images = filesUnder(path.join(out, 'agentnet-jsonl')).filter((f) => f.endsWith('.png'));
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const file of images) {
      const png = decodePng(fs.readFileSync(file));
      expect(maxIn(png.rgb, png.width, 3, inset(frames.secret, 0)), file).toBe(0);
      expect(maxIn(png.rgb, png.width, 3, formRect), file).toBeGreaterThan(100);
    }
  });

  it('item 45: the click that brings a background window to the front is its step', () => {
    const inside = (p: { x: number; y: number }, r: Rect) =>
      p.x >= r.x && p.x < r.x + r.width && p.y >= r.y && p.y < r.y + r.height;
    const click = steps.find((s) => s.calls.includes('click') && inside(s.coordinate, plainClient));
    expect(click, JSON.stringify(steps)).toBeDefined();
    expect(click!.windowTitle).toBe('Plain Note');
    // the click into the form before it stays the form's
    const formClick = steps.find(
      (s) => s.calls.includes('click') && inside(s.coordinate, form.ready.client),
    );
    expect(formClick?.windowTitle).toBe('CUA Test Form');
  });

  it('item 45: the window timeline has no duplicate first row (library and top_window.jsonl)', () => {
    expect(windows.length).toBeGreaterThanOrEqual(2);
    expect(windows[1]).not.toEqual(windows[0]);
    const file = filesUnder(path.join(out, 'agentnet-raw')).find((f) =>
      f.endsWith('/top_window.jsonl'),
    )!;
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[1]).not.toBe(lines[0]);
    // each row is a change: no two neighbours name the same window
    for (let i = 1; i < lines.length; i += 1) {
      const [a, b] = [lines[i - 1]!, lines[i]!].map(
        (l) => (JSON.parse(l) as { top_window_name: string }).top_window_name,
      );
      expect(b, `rows ${i - 1} and ${i}`).not.toBe(a);
    }
  });
});
