// Exclusion at capture end to end: the real `cua-annotator record` under Xvfb + D-Bus + AT-SPI +
// openbox with the GTK form and xmessage, real xdotool input, real ffmpeg and a real library. An
// excluded window (by title, then by application): keys typed into it and clicks on it are not
// stored, nor its title or accessibility tree; the interval is marked with start and end; keys
// typed after focusing xmessage are stored.
import { spawn, type ChildProcess } from 'node:child_process';
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
let xmessageId = '';
const libs: string[] = [];

/** What one recording stored. */
type Stored = {
  chars: string[];
  keyTimes: Map<string, number>;
  buttons: { tMs: number; kind: string; x: number | null; y: number | null }[];
  windows: ReturnType<typeof listWindows>;
  marks: ReturnType<typeof listMarks>;
  ax: string[];
};

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop);
  desktop.spawn('xmessage', ['-geometry', '+700+450', 'second window']);
  for (let i = 0; i < 100 && !xmessageId; i += 1) {
    xmessageId = (
      await desktop.run('xdotool', ['search', '--class', 'Xmessage']).catch(() => '')
    ).trim();
    if (!xmessageId) {
      await sleep(50);
    }
  }
  expect(xmessageId).not.toBe('');
}, 60_000);

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
  libs.forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

// Records: the form in front (excluded by `args`), a click on its entry and `secret` typed into
// it, then xmessage activated and `ok` typed; reads back what the library stored.
async function recordExcluded(args: string[], secret: string): Promise<Stored> {
  const lib = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-exclude-'));
  libs.push(lib);
  const x = (...a: string[]) => desktop.run('xdotool', a);
  await x('windowactivate', '--sync', form.ready.xid);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'record',
      '--task',
      'Type into the excluded window',
      '--fps',
      '10',
      '--library',
      lib,
      ...args,
    ],
    { env: desktop.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', resolve));
  const id = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^([0-9a-f-]{36})$/m.exec(out);
      if (m) {
        resolve(m[1]!);
      }
    });
    child.once('close', () => reject(new Error(`recorder exited before starting: ${err}`)));
  });
  await sleep(500);
  const entry = form.ready.widgets.entry;
  await x('mousemove', String(entry.cx), String(entry.cy));
  await x('click', '1');
  await sleep(200);
  await x('type', '--delay', '40', secret);
  await sleep(300);
  await x('windowactivate', '--sync', xmessageId);
  await sleep(300);
  await x('type', '--delay', '40', 'ok');
  await sleep(500);
  child.kill('SIGINT');
  expect(await exit, err).toBe(0);

  const library = openLibrary(lib);
  try {
    const { seq } = resolveRecordingSeq(library.db, id);
    const events = readEvents(library.db, seq);
    const keys = events.filter((e) => e.kind === 'keydown' && e.char !== null);
    return {
      chars: keys.map((e) => e.char as string),
      keyTimes: new Map(keys.map((e) => [e.char as string, e.tMs])),
      buttons: events
        .filter((e) => e.kind === 'down' || e.kind === 'up')
        .map((e) => ({ tMs: e.tMs, kind: e.kind, x: e.x, y: e.y })),
      windows: listWindows(library.db, seq),
      marks: listMarks(library.db, seq),
      ax: [
        ...listAxRecords(library.db, seq, 'window'),
        ...listAxRecords(library.db, seq, 'element'),
      ].map((r) => `${r.rootName ?? ''} ${r.treeJson}`),
    };
  } finally {
    library.close();
  }
}

function expectExcluded(stored: Stored, rule: string, hidden: string[]): void {
  // keys typed into the excluded window: none; after focusing xmessage: stored
  expect(stored.chars.join('')).toBe('ok');
  // the interval, with its rule and the window's bounds, ended when xmessage came to the front
  const excluded = stored.marks.filter((m) => m.kind === 'excluded');
  expect(excluded).toHaveLength(1);
  const mark = excluded[0]!;
  expect(mark.data).toEqual({ rule, bounds: form.ready.client });
  expect(mark.endMs).not.toBeNull();
  expect(mark.endMs!).toBeGreaterThan(mark.tMs);
  expect(stored.keyTimes.get('o')!).toBeGreaterThanOrEqual(mark.endMs!);
  // the click on the form's entry was aimed at the excluded window: not stored
  expect(stored.buttons.filter((b) => b.tMs >= mark.tMs && b.tMs < mark.endMs!)).toEqual([]);
  // the timeline: "excluded" with no app, then xmessage
  const first = stored.windows[0]!;
  expect(first).toMatchObject({ title: 'excluded', app: null, pid: null });
  expect(stored.windows.some((w) => w.app === 'Xmessage' && w.tMs >= mark.endMs!)).toBe(true);
  expect(stored.windows.some((w) => w.app === 'Gtk-form.py')).toBe(false);
  // neither the title nor anything of the form's accessibility tree
  const text = JSON.stringify(stored.windows) + stored.ax.join('\n');
  for (const h of [...hidden, 'Press Me', 'Password', 'Item 1']) {
    expect(text).not.toContain(h);
  }
}

describe('exclusion at capture (Xvfb, GTK form, xmessage)', () => {
  it('by title: nothing of the window is stored and the interval is marked', async () => {
    await form.setTitle('Top Secret Form');
    const stored = await recordExcluded(['--exclude-title', '^top secret'], 'hunter2');
    expectExcluded(stored, 'title:/^top secret/', ['Top Secret', 'hunter']);
  }, 60_000);

  it('by application (WM_CLASS instance)', async () => {
    await form.setTitle('CUA Test Form');
    const stored = await recordExcluded(['--exclude-app', 'gtk-form.py'], 'swordfish');
    expectExcluded(stored, 'app:gtk-form.py', ['CUA Test Form', 'swordfish']);
  }, 60_000);
});
