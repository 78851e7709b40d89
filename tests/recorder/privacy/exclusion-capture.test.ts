// Exclusion at capture end to end: the real `cua-annotator record` under Xvfb + D-Bus + AT-SPI +
// openbox with the GTK form and two xmessage windows, real xdotool input, real ffmpeg and a real
// library. The form is excluded by application (its WM_CLASS instance), one xmessage by title:
// keys typed into them and the click into the form are not stored, nor their titles or the
// form's accessibility tree (which the session would otherwise snapshot as the window in front at
// the start); each interval is marked with its rule, start and end; keys typed after focusing the
// other xmessage are stored.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLibrary } from '../../../src/services/library/library';
import {
  listAxRecords,
  listMarks,
  listWindows,
  readEvents,
  resolveRecordingSeq,
} from '../../../src/store';
import { launchGtkForm, type GtkForm } from '../../fixtures/apps/gtk-form';
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
let buttons: { tMs: number; kind: string }[] = [];
let windows: ReturnType<typeof listWindows> = [];
let marks: ReturnType<typeof listMarks> = [];
let ax: { tMs: number; text: string }[] = [];

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
  // a window no rule matches
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
    buttons = events
      .filter((e) => e.kind === 'down' || e.kind === 'up')
      .map((e) => ({ tMs: e.tMs, kind: e.kind }));
    windows = listWindows(library.db, seq);
    marks = listMarks(library.db, seq).filter((m) => m.kind === 'excluded');
    ax = [
      ...listAxRecords(library.db, seq, 'window'),
      ...listAxRecords(library.db, seq, 'element'),
    ].map((r) => ({ tMs: r.tMs, text: `${r.rootName ?? ''} ${r.treeJson}` }));
  } finally {
    library.close();
  }
}, 90_000);

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
  fs.rmSync(lib, { recursive: true, force: true });
});

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
    // the click into the form was aimed at an excluded window: not stored
    expect(buttons.filter((b) => b.tMs < title.endMs!)).toEqual([]);
  });

  it('stores "excluded" in the timeline instead of the titles and apps', () => {
    const end = marks[1]!.endMs!;
    const during = windows.filter((w) => w.tMs < end);
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
