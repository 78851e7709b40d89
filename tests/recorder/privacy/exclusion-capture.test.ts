// Exclusion at capture end to end: the real `cua-annotator record` under Xvfb + D-Bus + AT-SPI +
// openbox with the GTK form and two xmessage windows, real xdotool input, real ffmpeg and a real
// library. The form is excluded by application (its WM_CLASS instance), one xmessage by title:
// keys typed into them and the click into the form are not stored, nor their titles or the
// form's accessibility tree (which the session would otherwise snapshot as the window in front at
// the start); each interval is marked with its rule, start and end; the click that brings the
// other xmessage to the front and the keys typed into it are stored. Then the same recording
// leaves through the real `cua-annotator export` as agentnet-raw (the video) and agentnet-jsonl
// (the keyframes `record` stored; standardized writes the same images, and the export's own
// decode-and-redact path is covered by tests/services/export/redact-box.test.ts): each keyframe
// image and each video frame inside an excluded interval is black (the ones outside are not), the
// video keeps the library's rate and frame count, and no exported byte holds a key, title,
// application or widget name of the excluded windows.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTrajectory } from '../../../src/pipeline/export/trajectory';
import { decodePng } from '../../../src/pipeline/media/png';
import { openLibrary } from '../../../src/services/library/library';
import { TERMINATE_KEYFRAME_ID } from '../../../src/services/keyframes/keyframes';
import {
  getRecording,
  listAxRecords,
  listKeyframes,
  listMarks,
  listSteps,
  listWindows,
  readEvents,
  resolveRecordingSeq,
} from '../../../src/store';
import { launchGtkForm, type GtkForm } from '../../fixtures/apps/gtk-form';
import { runCli, type CliRun } from '../../helpers/cli';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { REPO_ROOT } from '../../helpers/paths';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let desktop: Desktop;
let form: GtkForm;
const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-exclude-'));
const windowIds: Record<'secret' | 'plain', string> = { secret: '', plain: '' };
let err = '';
let code: number | null = null;
let keys: { char: string; tMs: number }[] = [];
let moves: { tMs: number; x: number; y: number }[] = [];
let buttons: { tMs: number; kind: string }[] = [];
let windows: ReturnType<typeof listWindows> = [];
let marks: ReturnType<typeof listMarks> = [];
let ax: { tMs: number; text: string }[] = [];
// the library's video and, per exported image index (steps, then terminate), the frame it shows
let video: {
  path: string;
  startMs: number;
  fps: number;
  frameCount: number;
  width: number;
  height: number;
} | null = null;
let imageFrames: number[] = [];
// how many of the images had a stored keyframe PNG in the library
let storedKeyframes = 0;
// trajectory position k (agentnet-jsonl's image k) → image index
let trajectoryImages: number[] = [];
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-exclude-export-'));
const exports: Record<'agentnet-raw' | 'agentnet-jsonl', CliRun | null> = {
  'agentnet-raw': null,
  'agentnet-jsonl': null,
};

// Opens an xmessage titled `title` and waits for its window id.
async function xmessage(title: string, at: string): Promise<string> {
  desktop.spawn('xmessage', ['-title', title, '-geometry', at, `${title} body`]);
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

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop);
  windowIds.secret = await xmessage('Top Secret Note', '+650+100');
  windowIds.plain = await xmessage('Plain Note', '+650+450');
  const x = (...a: string[]) => desktop.run('xdotool', a);
  await x('windowactivate', '--sync', form.ready.xid);
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'record',
      '--task',
      'Type into excluded windows',
      '--fps',
      '10',
      '--library',
      lib,
      '--exclude-app',
      'gtk-form.py',
      '--exclude-title',
      '^top secret',
    ],
    { env: desktop.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
  const id = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^([0-9a-f-]{36})$/m.exec(out);
      if (m) {
        resolve(m[1]!);
      }
    });
    child.once('close', () => reject(new Error(`recorder exited before starting: ${err}`)));
  });
  await sleep(500);
  // the form (excluded by application): a click into its entry, then a password typed
  const entry = form.ready.widgets.entry;
  await x('mousemove', String(entry.cx), String(entry.cy));
  await x('click', '1');
  await sleep(200);
  await x('type', '--delay', '40', 'hunter2');
  await sleep(300);
  // the xmessage excluded by title
  await x('windowactivate', '--sync', windowIds.secret);
  await sleep(300);
  await x('type', '--delay', '40', 'swordfish');
  await sleep(300);
  // a window no rule matches, brought to the front by a click on its text (the window under the
  // pointer decides: stored). The pointer gets there 0.7 s before, while the excluded xmessage
  // still has focus: the click's keyframe, searched between the start of the pointer's approach
  // and 0.5 s before the press (docs/keyframes.md §1.2), lies inside the excluded intervals.
  await x('mousemove', '--window', windowIds.plain, '60', '15');
  await sleep(700);
  await x('click', '1');
  await x('windowactivate', '--sync', windowIds.plain);
  await sleep(300);
  await x('type', '--delay', '40', 'ok');
  await sleep(500);
  child.kill('SIGINT');
  code = await exit;

  const library = openLibrary(lib);
  try {
    const { seq } = resolveRecordingSeq(library.db, id);
    const events = readEvents(library.db, seq);
    keys = events
      .filter((e) => e.kind === 'keydown' && e.char !== null)
      .map((e) => ({ char: e.char as string, tMs: e.tMs }));
    moves = events.filter((e) => e.kind === 'move').map((e) => ({ tMs: e.tMs, x: e.x!, y: e.y! }));
    buttons = events
      .filter((e) => e.kind === 'down' || e.kind === 'up')
      .map((e) => ({ tMs: e.tMs, kind: e.kind }));
    windows = listWindows(library.db, seq);
    marks = listMarks(library.db, seq).filter((m) => m.kind === 'excluded');
    ax = [
      ...listAxRecords(library.db, seq, 'window'),
      ...listAxRecords(library.db, seq, 'element'),
    ].map((r) => ({ tMs: r.tMs, text: `${r.rootName ?? ''} ${r.treeJson}` }));
    const v = getRecording(library.db, id).videos[0]!;
    video = {
      path: library.resolve(v.path),
      startMs: v.startMs,
      fps: v.fps,
      frameCount: v.frameCount ?? 0,
      width: v.width,
      height: v.height,
    };
    // `record` reduced the steps and stored their keyframes (redacted) before it exited
    const steps = listSteps(library.db, seq);
    const rows = listKeyframes(library.db, seq);
    imageFrames = [...steps.map((s) => s.id), TERMINATE_KEYFRAME_ID].map(
      (k) => rows.get(k)?.frame ?? -1,
    );
    storedKeyframes = [...rows.values()].filter((r) => r.path !== null).length;
    trajectoryImages = buildTrajectory(steps).map((s) => s.imageIndex);
  } finally {
    library.close();
  }
  await Promise.all([runExport('agentnet-raw'), runExport('agentnet-jsonl')]);

  async function runExport(format: keyof typeof exports): Promise<void> {
    exports[format] = await runCli([
      'export',
      id,
      ...['--format', format, '--out', path.join(out, format), '--library', lib, '--json'],
    ]);
  }
}, 180_000);

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
  fs.rmSync(lib, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

/** True when the recording time of frame `frame` lies inside an excluded interval; null when it
 * lies within 1 ms of a bound (either answer is right there). Back-to-back intervals (one
 * excluded window straight to the next) count as one: their shared bound is inside. */
function inExcluded(frame: number): boolean | null {
  const t = video!.startMs + (frame * 1000) / video!.fps;
  const spans: { start: number; end: number }[] = [];
  for (const m of [...marks].sort((a, b) => a.tMs - b.tMs)) {
    const end = m.endMs ?? Number.MAX_SAFE_INTEGER;
    const last = spans.at(-1);
    if (last && m.tMs <= last.end) {
      last.end = Math.max(last.end, end);
    } else {
      spans.push({ start: m.tMs, end });
    }
  }
  if (spans.some((s) => Math.abs(t - s.start) < 1 || Math.abs(t - s.end) < 1)) {
    return null;
  }
  return spans.some((s) => t > s.start && t < s.end);
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** The exported keyframe PNGs (agentnet-jsonl) with the source frame each shows. */
function exportedImages(): { file: string; frame: number }[] {
  const images = path.join(out, 'agentnet-jsonl', 'images');
  return fs
    .readdirSync(images)
    .map((name) => {
      const n = Number(/_(\d+)\.png$/.exec(name)![1]);
      return { file: path.join(images, name), frame: imageFrames[trajectoryImages[n]!]! };
    })
    .sort((a, b) => a.frame - b.frame);
}

describe('exclusion at capture (Xvfb, GTK form, xmessage)', () => {
  it('records to the end', () => {
    expect(code, err).toBe(0);
  });

  it('stores no key typed into an excluded window, and the keys typed after', () => {
    expect(keys.map((k) => k.char).join('')).toBe('ok');
  });

  it('marks each interval with its rule, the window bounds, a start and an end', () => {
    expect(marks.map((m) => m.data.rule)).toEqual(['app:gtk-form.py', 'title:/^top secret/']);
    const [app, title] = marks as [(typeof marks)[0], (typeof marks)[0]];
    expect(app.data.bounds).toEqual(form.ready.client);
    expect(title.data.bounds).toMatchObject({ width: expect.any(Number) });
    expect(app.endMs).not.toBeNull();
    expect(app.endMs!).toBeGreaterThan(app.tMs);
    // straight from one excluded window to the next: the second interval starts as the first ends
    expect(title.tMs).toBe(app.endMs);
    expect(title.endMs).not.toBeNull();
    expect(title.endMs!).toBeGreaterThan(title.tMs);
    // the keys kept were typed after the last interval ended
    expect(keys[0]!.tMs).toBeGreaterThanOrEqual(title.endMs!);
    // the click into the form was aimed at an excluded window: not stored; the click from the
    // excluded xmessage onto the plain one is
    expect(buttons.filter((b) => b.tMs < title.tMs)).toEqual([]);
    expect(buttons.map((b) => b.kind)).toEqual(['down', 'up']);
  });

  it('stores "excluded" in the timeline instead of the titles and apps', () => {
    const end = marks[1]!.endMs!;
    // the plain xmessage's row is stamped at the click that brought it to the front (issue 26,
    // item 17), a moment before its activation was seen and ended the excluded interval
    const plainId = `0x${Number(windowIds.plain).toString(16)}`;
    const during = windows.filter((w) => w.tMs < end && w.windowId !== plainId);
    for (const w of during) {
      // `excluded`, or no window active while focus passes from one window to the next
      expect(w).toMatchObject({ app: null, pid: null });
      expect([null, 'excluded']).toContain(w.title);
    }
    expect(during.filter((w) => w.title === 'excluded').length).toBeGreaterThanOrEqual(2);
    expect(windows.some((w) => w.title === 'Plain Note' && w.app === 'Xmessage')).toBe(true);
    const text = JSON.stringify(windows);
    for (const hidden of ['CUA Test Form', 'Top Secret', 'Gtk-form.py']) {
      expect(text).not.toContain(hidden);
    }
  });

  it('stores nothing of the excluded windows accessibility trees', () => {
    const start = marks[0]!.tMs;
    const end = marks[1]!.endMs!;
    expect(ax.filter((r) => r.tMs >= start && r.tMs < end)).toEqual([]);
    const text = ax.map((r) => r.text).join('\n');
    for (const hidden of ['CUA Test Form', 'Press Me', 'Password', 'Item 1', 'Top Secret']) {
      expect(text).not.toContain(hidden);
    }
  });
});

describe('exclusion in an export of that recording (real CLI, ffmpeg)', () => {
  const formats = ['agentnet-raw', 'agentnet-jsonl'] as const;

  it.each(formats)('exports %s', (format) => {
    const run = exports[format]!;
    expect(run.code, run.stderr).toBe(0);
  });

  it('agentnet-jsonl: every keyframe inside an excluded interval is black, the others are not', () => {
    const images = exportedImages();
    expect(images.length).toBe(trajectoryImages.length);
    // every image had its keyframe stored by `record`: the export copied them
    expect(storedKeyframes).toBe(imageFrames.length);
    const seen = { inside: 0, outside: 0 };
    for (const { file, frame } of images) {
      expect(frame, file).toBeGreaterThanOrEqual(0);
      const inside = inExcluded(frame);
      if (inside === null) {
        continue;
      }
      const png = decodePng(fs.readFileSync(file));
      expect([png.width, png.height]).toEqual([video!.width, video!.height]);
      const black = png.rgb.every((b) => b === 0);
      expect(black, `${path.basename(file)} (frame ${frame})`).toBe(inside);
      seen[inside ? 'inside' : 'outside'] += 1;
    }
    // the click on the plain xmessage is keyed inside the excluded xmessage's interval, the
    // terminate frame after every interval
    expect(seen.inside).toBeGreaterThanOrEqual(1);
    expect(seen.outside).toBeGreaterThanOrEqual(1);
  });

  it('agentnet-raw: the video is black inside the excluded intervals, with the library rate and frame count', () => {
    const episode = path.join(out, 'agentnet-raw');
    const mp4s = filesUnder(episode).filter((f) => f.endsWith('.mp4'));
    expect(mp4s).toHaveLength(1);
    const exported = mp4s[0]!;
    const probed = probe(exported);
    expect(probed).toEqual(probe(video!.path));
    expect(probed.frames).toBe(video!.frameCount);
    const { width, height } = video!;
    const frames = grayFrames(exported, width, height);
    expect(frames.length).toBe(video!.frameCount);
    const seen = { inside: 0, outside: 0 };
    frames.forEach((f, n) => {
      const inside = inExcluded(n);
      if (inside === null) {
        return;
      }
      let max = 0;
      let sum = 0;
      for (let i = 0; i < f.length; i += 1) {
        const b = f[i]!;
        sum += b;
        if (b > max) {
          max = b;
        }
      }
      const stats = `frame ${n}: mean ${(sum / (width * height)).toFixed(2)}, max ${max}`;
      if (inside) {
        expect(sum / (width * height), stats).toBeLessThanOrEqual(1);
        expect(max, stats).toBeLessThanOrEqual(20);
      } else {
        expect(max, stats).toBeGreaterThan(100);
      }
      seen[inside ? 'inside' : 'outside'] += 1;
    });
    expect(seen.inside).toBeGreaterThanOrEqual(3);
    expect(seen.outside).toBeGreaterThanOrEqual(3);
  });

  it('agentnet-raw: no pointer move over an excluded window while it had focus; the others kept', () => {
    // over the window (inside its bounds) during its interval
    const overExcluded = (m: { tMs: number; x: number; y: number }) =>
      marks.some((k) => {
        const b = k.data.bounds as { x: number; y: number; width: number; height: number };
        return (
          m.tMs >= k.tMs &&
          m.tMs < (k.endMs ?? Infinity) &&
          m.x >= b.x &&
          m.x < b.x + b.width &&
          m.y >= b.y &&
          m.y < b.y + b.height
        );
      });
    // the library keeps them (the move onto the form's entry), the export does not
    expect(moves.filter(overExcluded).length).toBeGreaterThanOrEqual(1);
    const file = filesUnder(path.join(out, 'agentnet-raw')).find((f) =>
      f.endsWith('/events.jsonl'),
    )!;
    const exported = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; time_stamp: number; x: number; y: number })
      .filter((r) => r.action === 'move')
      .map((r) => ({ tMs: r.time_stamp * 1000, x: r.x, y: r.y }));
    expect(exported.filter(overExcluded)).toEqual([]);
    expect(exported.length).toBe(moves.filter((m) => !overExcluded(m)).length);
    expect(exported.length).toBeGreaterThanOrEqual(1);
  });

  it('no exported byte holds a key, title, application or widget name of the excluded windows', () => {
    const hidden = [
      'hunter2',
      'swordfish',
      'CUA Test Form',
      'Top Secret',
      'Press Me',
      'Password',
      'Item 1',
    ];
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(10);
    const kept = new Set<string>();
    for (const file of files) {
      let bytes = fs.readFileSync(file);
      if (file.endsWith('.gz')) {
        bytes = zlib.gunzipSync(bytes);
      }
      expect(file.endsWith('.zip'), `${file}: a zip archive, not searched`).toBe(false);
      const text = bytes.toString('latin1');
      // what was not excluded is there (the task, the plain window's application in
      // top_window.jsonl): the search reads the text the files hold
      for (const s of ['Type into excluded windows', 'Xmessage']) {
        if (text.includes(s)) {
          kept.add(s);
        }
      }
      for (const s of hidden) {
        expect(text.includes(s), `${path.relative(out, file)} holds ${s}`).toBe(false);
      }
      // the application, whatever its case (the rule `app:gtk-form.py` would name it)
      expect(text.toLowerCase().includes('gtk-form'), `${path.relative(out, file)}: gtk-form`).toBe(
        false,
      );
    }
    expect([...kept].sort()).toEqual(['Type into excluded windows', 'Xmessage']);
  });
});

/** Frame count and rates of a video (packets, not decoded frames). */
function probe(file: string): { frames: number; rate: string } {
  const json = execFileSync('ffprobe', [
    ...['-v', 'error', '-count_packets', '-select_streams', 'v:0'],
    ...['-show_entries', 'stream=nb_read_packets,r_frame_rate,avg_frame_rate', '-of', 'json', file],
  ]).toString();
  const s = (
    JSON.parse(json) as {
      streams: { nb_read_packets: string; r_frame_rate: string; avg_frame_rate: string }[];
    }
  ).streams[0]!;
  return { frames: Number(s.nb_read_packets), rate: `${s.r_frame_rate} ${s.avg_frame_rate}` };
}

/** Every decoded frame of a width×height video as 8-bit gray (full range), in order. */
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
  expect(raw.length % size).toBe(0);
  const frames: Buffer[] = [];
  for (let o = 0; o < raw.length; o += size) {
    frames.push(raw.subarray(o, o + size));
  }
  return frames;
}
