// The active-window timeline against a real X server with openbox, a GTK window and xmessage.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActiveWindowEntry } from '../../../src/recorder/windows/active-window';
import { ActiveWindowTracker } from '../../../src/recorder/windows/active-window';
import { isAppError } from '../../../src/shared/errors';
import type { GtkForm } from '../../fixtures/apps/gtk-form';
import { launchGtkForm } from '../../fixtures/apps/gtk-form';
import type { Desktop } from '../../helpers/desktop';
import { startDesktop } from '../../helpers/desktop';
import { REPO_ROOT } from '../../helpers/paths';

const now = (): number => Number(process.hrtime.bigint()) / 1e6;

let desktop: Desktop;
let form: GtkForm;

async function waitForEntry(
  tracker: ActiveWindowTracker,
  predicate: (e: ActiveWindowEntry) => boolean,
  timeoutMs = 5000,
): Promise<ActiveWindowEntry> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = tracker.timeline().find(predicate);
    if (found) {
      return found;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no matching entry; timeline: ${JSON.stringify(tracker.timeline(), null, 1)}`);
}

async function waitForFile(file: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(file)) {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${file} did not appear within ${timeoutMs} ms`);
}

// Writes an xprop stand-in into `dir`: bash lines `body`, then the real xprop for anything else.
async function xpropWrapper(dir: string, body: string[]): Promise<string> {
  const file = path.join(dir, 'xprop');
  await writeFile(file, ['#!/bin/bash', ...body, 'exec xprop "$@"', ''].join('\n'), {
    mode: 0o755,
  });
  return file;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Size from xdotool and the decoration offsets from openbox: readings independent of xwininfo
// (xdotool's own position adds the frame offset twice under a reparenting window manager).
async function sizeOf(windowId: string): Promise<{ width: number; height: number }> {
  const out = await desktop.run('xdotool', ['getwindowgeometry', '--shell', windowId]);
  const value = (key: string): number => Number(new RegExp(`^${key}=(\\d+)$`, 'm').exec(out)?.[1]);
  return { width: value('WIDTH'), height: value('HEIGHT') };
}

async function frameOffset(windowId: string): Promise<{ left: number; top: number }> {
  const out = await desktop.run('xprop', ['-id', windowId, '_NET_FRAME_EXTENTS']);
  const [left = NaN, , top = NaN] = (/= (.*)$/m.exec(out)?.[1] ?? '').split(',').map(Number);
  return { left, top };
}

beforeAll(async () => {
  desktop = await startDesktop();
  form = await launchGtkForm(desktop);
});

afterAll(async () => {
  await form?.close();
  await desktop?.stop();
});

describe('ActiveWindowTracker', () => {
  it('records activations and title changes with title, WM_CLASS, pid and bounds', async () => {
    const tracker = new ActiveWindowTracker({ env: desktop.env, now });
    const t0 = now();
    try {
      const first = await tracker.start();
      expect(first.change).toBe('initial');

      // 1. the form (openbox activates newly mapped windows)
      await desktop.run('xdotool', ['windowactivate', '--sync', form.ready.xid]);
      const formEntry = await waitForEntry(tracker, (e) => e.windowId === form.ready.xid);
      expect(formEntry).toMatchObject({
        title: 'CUA Test Form',
        app: 'Gtk-form.py',
        appInstance: 'gtk-form.py',
        pid: form.ready.pid,
        bounds: form.ready.client,
      });

      // 2. xmessage: a legacy client with WM_NAME only and no _NET_WM_PID
      const xmessage = desktop.spawn('xmessage', ['-geometry', '+700+450', 'second window']);
      const xmEntry = await waitForEntry(tracker, (e) => e.app === 'Xmessage');
      expect(xmEntry).toMatchObject({
        change: 'activated',
        title: 'xmessage',
        appInstance: 'xmessage',
        pid: null,
      });
      // the frame goes where -geometry asked; the client area sits inside the decorations
      const offset = await frameOffset(xmEntry.windowId as string);
      expect(xmEntry.bounds).toEqual({
        x: 700 + offset.left,
        y: 450 + offset.top,
        ...(await sizeOf(xmEntry.windowId as string)),
      });

      // 3. back to the form
      const before = tracker.timeline().length;
      await desktop.run('xdotool', ['windowactivate', '--sync', form.ready.xid]);
      const back = await waitForEntry(
        tracker,
        (e) => tracker.timeline().indexOf(e) >= before && e.windowId === form.ready.xid,
      );
      expect(back).toMatchObject({
        change: 'activated',
        title: 'CUA Test Form',
        pid: form.ready.pid,
      });

      // 4. a title change of the active window (non-ASCII and quotes survive xprop's escaping)
      const title = 'Café "Form" \\ ☃';
      await form.setTitle(title);
      const retitled = await waitForEntry(tracker, (e) => e.change === 'title');
      expect(retitled).toMatchObject({
        windowId: form.ready.xid,
        title,
        app: 'Gtk-form.py',
        pid: form.ready.pid,
        bounds: form.ready.client,
      });

      // the timeline is ordered on the session clock and has no duplicate neighbours
      const timeline = tracker.timeline();
      const times = timeline.map((e) => e.tMs);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(times[0]).toBeGreaterThanOrEqual(t0);
      expect(times[times.length - 1]).toBeLessThanOrEqual(now());
      timeline.slice(1).forEach((e, i) => {
        const prev = timeline[i] as ActiveWindowEntry;
        expect([e.windowId, e.title]).not.toEqual([prev.windowId, prev.title]);
      });
      xmessage.kill('SIGTERM');
    } finally {
      await tracker.stop();
    }
  });

  // xprop -spy reads the current values before it subscribes to changes. A wrapper widens that
  // gap on purpose (read, wait for the test to change the title, print, then subscribe without
  // repeating the values): the title set in the gap must still reach the timeline.
  it('keeps a title set while the title spy is still subscribing (its first re-read failing)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aw-slow-spy-'));
    const gate = path.join(dir, 'gate');
    const wrapper = await xpropWrapper(dir, [
      'if [[ "$1" == -id && "$3" == -spy ]]; then',
      '  values=$(xprop -id "$2" "${@:4}")',
      `  touch ${JSON.stringify(`${gate}.open`)}`,
      `  while [[ ! -e ${JSON.stringify(`${gate}.done`)} ]]; do sleep 0.02; done`,
      '  printf "%s\\n" "$values"',
      '  skip=$(printf "%s\\n" "$values" | wc -l)',
      '  stdbuf -oL xprop "$@" 2>/dev/null | while IFS= read -r line; do',
      '    if (( skip > 0 )); then',
      '      skip=$(( skip - 1 ))',
      // the inner spy has printed its own reading: it is subscribed from here on
      `      (( skip == 0 )) && touch ${JSON.stringify(`${gate}.subscribed`)}`,
      '    else printf "%s\\n" "$line"; fi',
      '  done &',
      // the pipeline holds the tracker's pipes: take it down with the wrapper
      "  trap 'kill $(jobs -p) $! 2>/dev/null; exit 0' TERM",
      '  wait',
      '  exit 0',
      'fi',
      // the first plain reading after the gap fails (a loaded machine's time-out): the
      // tracker must read again
      `if [[ -e ${JSON.stringify(`${gate}.done`)} && ! -e ${JSON.stringify(`${gate}.failed`)} ]]; then`,
      `  touch ${JSON.stringify(`${gate}.failed`)}`,
      '  exit 1',
      'fi',
    ]);
    const tracker = new ActiveWindowTracker({ env: desktop.env, now, xpropPath: wrapper });
    try {
      await form.setTitle('Before the spy');
      await tracker.start();
      await desktop.run('xdotool', ['windowactivate', '--sync', form.ready.xid]);
      await waitForEntry(tracker, (e) => e.windowId === form.ready.xid);
      await waitForFile(`${gate}.open`);
      const title = 'Set in the gap';
      await form.setTitle(title);
      await writeFile(`${gate}.done`, '');
      const retitled = await waitForEntry(tracker, (e) => e.change === 'title', 10_000);
      expect(existsSync(`${gate}.failed`)).toBe(true);
      expect(retitled).toMatchObject({ windowId: form.ready.xid, title, pid: form.ready.pid });
      // the subscription itself works: a later change comes through the spy (the wrapper's own
      // spy starts only now: wait until it has read, then change the title)
      // (xprop subscribes right after its reading: a change in that instant is missed, so the
      // title changes again until one comes through)
      await waitForFile(`${gate}.subscribed`);
      let seen: ActiveWindowEntry | null = null;
      for (let k = 1; k <= 10 && !seen; k += 1) {
        await form.setTitle(`After the gap ${k}`);
        seen = await waitForEntry(
          tracker,
          (e) => e.title?.startsWith('After the gap') ?? false,
          500,
        ).catch(() => null);
      }
      expect(seen).toMatchObject({ windowId: form.ready.xid, change: 'title' });
    } finally {
      await tracker.stop();
      await form.setTitle('CUA Test Form');
      await rm(dir, { recursive: true, force: true });
    }
  });

  // The spy's first reading may reach the tracker in pieces, and a WM_NAME change may follow it
  // (GTK writes _NET_WM_NAME and WM_NAME in turn): neither is a newer title, so neither may
  // cancel the second reading that recovers the title set in the gap. A wrapper plays the spy
  // (its reading, then the extra line; it never subscribes) and holds the second reading until
  // the spy has printed everything, so the order is fixed.
  it.each([
    ['its reading arrives in two pieces', 'split'],
    ['a WM_NAME change arrives while the title is read again', 'late-wm-name'],
  ])('keeps a title set in the gap when %s', async (_name, mode) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aw-spy-lines-'));
    const gate = path.join(dir, 'gate');
    const q = (suffix: string): string => JSON.stringify(`${gate}.${suffix}`);
    const wrapper = await xpropWrapper(dir, [
      'if [[ "$1" == -id && "$3" == -spy ]]; then',
      '  values=$(xprop -id "$2" "${@:4}")',
      `  touch ${q('open')}`,
      `  while [[ ! -e ${q('done')} ]]; do sleep 0.02; done`,
      mode === 'split'
        ? [
            '  printf "%s\\n" "$(head -n 1 <<<"$values")"',
            '  sleep 0.3',
            '  printf "%s\\n" "$(tail -n +2 <<<"$values")"',
          ].join('\n')
        : [
            '  printf "%s\\n" "$values"',
            `  while [[ ! -e ${q('reading')} ]]; do sleep 0.02; done`,
            '  printf \'WM_NAME(STRING) = "late"\\n\'',
          ].join('\n'),
      `  touch ${q('printed')}`,
      '  exec sleep 600',
      'fi',
      // the second reading of the title (after the gap): waits until the spy has printed all
      `if [[ $# -eq 4 && -e ${q('done')} ]]; then`,
      `  touch ${q('reading')}`,
      `  while [[ ! -e ${q('printed')} ]]; do sleep 0.02; done`,
      'fi',
    ]);
    const tracker = new ActiveWindowTracker({ env: desktop.env, now, xpropPath: wrapper });
    try {
      await form.setTitle('Before the spy');
      await desktop.run('xdotool', ['windowactivate', '--sync', form.ready.xid]);
      await tracker.start();
      await waitForEntry(tracker, (e) => e.windowId === form.ready.xid);
      await waitForFile(`${gate}.open`);
      const title = `Set in the gap (${mode})`;
      await form.setTitle(title);
      await writeFile(`${gate}.done`, '');
      const retitled = await waitForEntry(tracker, (e) => e.change === 'title', 10_000);
      expect(existsSync(`${gate}.reading`)).toBe(true);
      expect(retitled).toMatchObject({ windowId: form.ready.xid, title, pid: form.ready.pid });
      await tracker.settled();
      expect(tracker.current()?.title).toBe(title);
    } finally {
      await tracker.stop();
      await form.setTitle('CUA Test Form');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('notifies listeners and stops its xprop children', async () => {
    const tracker = new ActiveWindowTracker({ env: desktop.env, now });
    const seen: ActiveWindowEntry[] = [];
    tracker.onChange((e) => seen.push(e));
    await tracker.start();
    await desktop.run('xdotool', ['windowactivate', '--sync', form.ready.xid]);
    await waitForEntry(tracker, (e) => e.windowId === form.ready.xid);
    const pids = tracker.spyPids();
    expect(pids).toHaveLength(2); // root spy + title spy of the active window
    await tracker.stop();
    // every change, but not the first reading: start() answered with it
    expect(seen).toEqual(tracker.timeline().slice(1));
    expect(pids.filter(isAlive)).toEqual([]);
    await tracker.stop(); // idempotent
  });

  it('takes its xprop children down when the host process is SIGKILLed', async () => {
    const script = path.join(REPO_ROOT, 'tests/fixtures/bin/active-window-host.ts');
    const host = desktop.spawn(process.execPath, [path.join(REPO_ROOT, 'bin/run-ts.mjs'), script]);
    const pids = await new Promise<number[]>((resolve, reject) => {
      let out = '';
      host.stdout?.setEncoding('utf8');
      host.stdout?.on('data', (chunk: string) => {
        out += chunk;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) {
          resolve((JSON.parse(line) as { pids: number[] }).pids);
        }
      });
      host.once('close', (code) => reject(new Error(`host exited early (${code})`)));
    });
    expect(pids.length).toBeGreaterThan(0);
    expect(pids.every(isAlive)).toBe(true);
    host.kill('SIGKILL');
    const deadline = Date.now() + 3000;
    while (pids.some(isAlive) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(pids.filter(isAlive)).toEqual([]);
  });

  it('needs DISPLAY', async () => {
    const env = { ...desktop.env };
    delete env.DISPLAY;
    const error: unknown = await new ActiveWindowTracker({ env, now })
      .start()
      .catch((e: unknown) => e);
    expect(isAppError(error, 'ACTIVE_WINDOW_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/DISPLAY is not set/);
  });

  it('reports a missing xprop as ACTIVE_WINDOW_UNAVAILABLE with the fix', async () => {
    const tracker = new ActiveWindowTracker({
      env: desktop.env,
      now,
      xpropPath: '/nonexistent/xprop',
    });
    const error: unknown = await tracker.start().catch((e: unknown) => e);
    expect(isAppError(error, 'ACTIVE_WINDOW_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/x11-utils/);
  });

  it('reports a display without an X server', async () => {
    const env = { ...desktop.env, DISPLAY: ':4999' };
    const error: unknown = await new ActiveWindowTracker({ env, now })
      .start()
      .catch((e: unknown) => e);
    expect(isAppError(error, 'ACTIVE_WINDOW_UNAVAILABLE')).toBe(true);
    expect((error as Error).message).toMatch(/xprop -root -spy exited.*unable to open display/is);
  });
});
