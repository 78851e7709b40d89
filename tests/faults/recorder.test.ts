// Fault suite for the recorder (issue 10, items 1, 2, 3, 5, 6, 7 and the `record` part of 23):
// the real `cua-annotator record` CLI on an Xvfb desktop with real ffmpeg, the real input hook,
// AT-SPI and SQLite, hit by the faults a user meets (Ctrl+C to the process group, ffmpeg killed,
// the hook killed repeatedly, a filling disk, a click that closes its window).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDisplayInfo } from '../../src/recorder/display-info';
import { createPlatform } from '../../src/recorder/platform';
import { RecordingSession, type RecordingSink } from '../../src/recorder/session';
import { openLibrary } from '../../src/services/library/library';
import { getRecordingDto } from '../../src/services/review-service';
import { runCli } from '../helpers/cli';
import { untilExited } from '../helpers/wait';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { REPO_ROOT } from '../helpers/paths';
import { launchGtkForm, SYSTEM_PYTHON } from '../fixtures/apps/gtk-form';
import { probeStream } from '../recorder/screen/helpers/media';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Resolves with `value` after `ms` (a race's losing side). */
const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms));
const SUMMARY =
  /recorded [0-9a-f-]{36}: (\d+:\d\d\.\d), (\d+) frames, \d+ events, \d+ steps \(([^)]*)\)/;
// a JavaScript stack frame as Node prints it
const STACK_LINE = /^\s+at .+[(:]\d+/m;

type Recorder = {
  child: ChildProcess;
  pid: number;
  id: Promise<string>;
  exit: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stderr matches `re` (rejects after `timeoutMs` or when the recorder exits). */
  waitForStderr: (re: RegExp, timeoutMs?: number) => Promise<void>;
  /** Stops it for sure (test clean-up). */
  kill: () => void;
};

function startRecorder(
  desktop: Desktop,
  lib: string,
  extra: string[] = [],
  options: { detached?: boolean; env?: NodeJS.ProcessEnv } = {},
): Recorder {
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'),
      'record',
      '--task',
      'fault test',
      '--library',
      lib,
      ...extra,
    ],
    {
      env: { ...desktop.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    },
  );
  let out = '';
  let err = '';
  let isExited = false;
  const wakers = new Set<() => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    wakers.forEach((w) => w());
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    wakers.forEach((w) => w());
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      isExited = true;
      wakers.forEach((w) => w());
      resolve(code);
    }),
  );
  const waitFor = (check: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        wakers.delete(wake);
        reject(new Error(`timed out waiting for ${what}; stderr:\n${err}`));
      }, timeoutMs);
      const wake = () => {
        if (check()) {
          clearTimeout(timer);
          wakers.delete(wake);
          resolve();
        } else if (isExited) {
          clearTimeout(timer);
          wakers.delete(wake);
          reject(new Error(`recorder exited before ${what}; stderr:\n${err}`));
        }
      };
      wakers.add(wake);
      wake();
    });
  const id = (async () => {
    await waitFor(() => /^[0-9a-f-]{36}$/m.test(out), 'the recording id', 30_000);
    return /^([0-9a-f-]{36})$/m.exec(out)![1]!;
  })();
  id.catch(() => undefined);
  return {
    child,
    pid: child.pid!,
    id,
    exit,
    stdout: () => out,
    stderr: () => err,
    waitForStderr: (re, timeoutMs = 20_000) => waitFor(() => re.test(err), String(re), timeoutMs),
    kill: () => {
      if (!isExited) {
        try {
          if (options.detached) {
            process.kill(-child.pid!, 'SIGKILL');
          } else {
            child.kill('SIGKILL');
          }
        } catch {
          // already gone
        }
      }
    },
  };
}

/** Child processes of `pid` whose command line contains `needle`. */
function childPids(pid: number, needle: string): number[] {
  let list: string;
  try {
    list = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' });
  } catch {
    return [];
  }
  return list
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    });
}

/**
 * Waits until the recording's first fragment (1 s of video: ffmpeg writes one per keyframe) is on
 * disk, instead of sleeping for it: a recorder killed or stopped before has no video to keep.
 */
async function untilFirstFragment(lib: string, id: string): Promise<void> {
  const video = path.join(lib, 'recordings', id, 'video-0.mp4');
  const deadline = Date.now() + 10_000;
  while (!(fs.existsSync(video) && fs.statSync(video).size > 20_000)) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for the first fragment of ${video}`);
    }
    await sleep(50);
  }
}

async function showJson(lib: string, id: string) {
  const r = await runCli(['show', id, '--json', '--library', lib]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    status: string;
    warnings: string[];
    video: { path: string; frameCount: number } | null;
  };
}

describe('recorder faults (issue 10)', () => {
  let desktop: Desktop;
  const libs: string[] = [];
  const recorders: Recorder[] = [];
  const newLib = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-fault-rec-'));
    libs.push(dir);
    return dir;
  };
  const record = (...args: Parameters<typeof startRecorder>) => {
    const r = startRecorder(...args);
    recorders.push(r);
    return r;
  };
  /** {@link record}, resolving once it says it is recording, with the recording's id. */
  const recording = async (...args: Parameters<typeof startRecorder>) => {
    const rec = record(...args);
    const id = await rec.id;
    await rec.waitForStderr(/recorder: recording/);
    return { rec, id };
  };

  beforeAll(async () => {
    desktop = await startDesktop();
  }, 60_000);

  afterAll(async () => {
    recorders.forEach((r) => r.kill());
    await desktop?.stop();
    for (const dir of libs) {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });
      } catch {
        // not a mount point
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('item 1: Ctrl+C to the whole process group ends record cleanly with a summary', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y'], { detached: true });
    await sleep(1500);
    // what a terminal does on Ctrl+C: SIGINT to every process of the foreground group
    process.kill(-rec.pid, 'SIGINT');
    const code = await rec.exit;
    expect(rec.stderr()).not.toMatch(STACK_LINE);
    expect(rec.stderr()).not.toContain('FFMPEG_FAILED');
    expect(code, rec.stderr()).toBe(0);
    expect(rec.stdout()).toMatch(SUMMARY);
    expect(SUMMARY.exec(rec.stdout())![3]).toBe('complete');
    const view = await showJson(lib, id);
    expect(view.status).toBe('complete');
    expect(view.video!.frameCount).toBeGreaterThan(20);
  }, 60_000);

  it('item 1: SIGTERM to the whole process group ends record cleanly too', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y'], { detached: true });
    await sleep(1500);
    process.kill(-rec.pid, 'SIGTERM');
    const code = await rec.exit;
    expect(rec.stderr()).not.toMatch(STACK_LINE);
    expect(rec.stderr()).not.toContain('FFMPEG_FAILED');
    expect(code, rec.stderr()).toBe(0);
    expect(SUMMARY.exec(rec.stdout())?.[3]).toBe('complete');
    expect((await showJson(lib, id)).status).toBe('complete');
  }, 60_000);

  it('item 23: record says how to stop and pause when recording starts', async () => {
    const lib = newLib();
    const rec = record(desktop, lib, ['--no-a11y', '--pause-hotkey', 'ctrl+alt+shift+k']);
    await rec.waitForStderr(/recorder: recording/);
    rec.child.kill('SIGINT');
    expect(await rec.exit, rec.stderr()).toBe(0);
    const err = rec.stderr();
    expect(err).toMatch(/Ctrl\+C/);
    expect(err).toContain('ctrl+alt+shift+r'); // the default stop chord
    expect(err).toContain('ctrl+alt+shift+k'); // the pause chord given
  }, 60_000);

  it('item 2: ffmpeg killed mid-recording ends the recording at once, saved, exit 2 with a fix', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y']);
    // at least one fragment (1 s of video) is on disk: a kill before it leaves nothing to save
    await untilFirstFragment(lib, id);
    const [ffmpegPid] = childPids(rec.pid, 'x11grab');
    expect(ffmpegPid).toBeDefined();
    process.kill(ffmpegPid!, 'SIGKILL');
    // the recorder notices by itself: nobody stops it here
    const code = await Promise.race([rec.exit, after(10_000, 'still running')]);
    const err = rec.stderr();
    expect(code, err).toBe(2);
    expect(err).not.toMatch(STACK_LINE);
    expect(err).not.toMatch(/unhandled/i);
    expect(err).toMatch(/error \[FFMPEG_FAILED\]/);
    expect(err).toMatch(/^fix: /m);
    expect(rec.stdout()).toMatch(SUMMARY);
    const view = await showJson(lib, id);
    expect(view.status).not.toBe('active');
    expect(view.status).not.toBe('complete');
    expect(view.warnings.join('\n')).toMatch(/screen capture .*ended/i);
    expect(view.video, JSON.stringify(view.warnings) + err).not.toBeNull();
    expect(view.video!.frameCount).toBeGreaterThan(10);
  }, 60_000);

  it('item 2: a recovered recording carries a warning saying why', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y']);
    // past the second keyframe: the first fragment (1 s) is on disk whatever ffmpeg manages
    // after its parent dies (a recorder killed within its first second keeps no video)
    await untilFirstFragment(lib, id);
    const ffmpegPids = childPids(rec.pid, 'x11grab');
    expect(ffmpegPids).toHaveLength(1);
    rec.child.kill('SIGKILL');
    await rec.exit;
    await untilExited(ffmpegPids); // ffmpeg (parent-death SIGTERM) finishes its file
    const list = await runCli(['list', '--library', lib]);
    expect(list.stderr).toContain(`recovered ${id}`);
    const view = await showJson(lib, id);
    expect(view.status, JSON.stringify(view.warnings)).toBe('recovered');
    expect(view.warnings.join('\n')).toMatch(/recorder .*ended without stopping/i);
  }, 60_000);

  it('item 3: an input hook that gives up stores the gap, warns and does not say complete', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y']);
    // kill the hook child every time it comes back until the recorder gives up on it
    for (let i = 0; i < 10 && !/gave up/.test(rec.stderr()); i += 1) {
      let pids: number[] = [];
      for (let t = 0; t < 200 && !pids.length && !/gave up/.test(rec.stderr()); t += 1) {
        pids = childPids(rec.pid, 'hook-child');
        if (!pids.length) {
          await sleep(50);
        }
      }
      pids.forEach((p) => process.kill(p, 'SIGKILL'));
    }
    await rec.waitForStderr(/gave up/, 15_000);
    // the recorder stops by itself; the SIGINT only ends the old code, which kept going
    const code = await Promise.race([rec.exit, after(5000, null)]);
    if (code === null) {
      rec.child.kill('SIGINT');
    }
    const final = code ?? (await rec.exit);
    expect(final, rec.stderr()).toBe(2);
    expect(rec.stderr()).toMatch(/error \[INPUT_HOOK_FAILED\]/);
    expect(rec.stderr()).toMatch(/^fix: /m);
    expect(SUMMARY.exec(rec.stdout())?.[3]).not.toBe('complete');
    const view = await showJson(lib, id);
    expect(view.status).not.toBe('complete');
    expect(view.warnings.join('\n')).toMatch(
      /no keyboard or mouse input from \d+:\d\d\.\d to \d+:\d\d\.\d/,
    );
    const shown = await runCli(['show', id, '--library', lib]);
    expect(shown.stdout).toMatch(/warnings: .*no keyboard or mouse input/);
  }, 90_000);

  it('item 5: the summary after pause/resume counts the frames of the stored video', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y']);
    await sleep(1000);
    await desktop.run('xdotool', ['key', 'ctrl+alt+shift+p']);
    await rec.waitForStderr(/recorder: paused/);
    await sleep(1000);
    await desktop.run('xdotool', ['key', 'ctrl+alt+shift+p']);
    await rec.waitForStderr(/recorder: paused[\s\S]*recorder: recording/);
    await sleep(1000);
    rec.child.kill('SIGINT');
    expect(await rec.exit, rec.stderr()).toBe(0);
    const summaryFrames = Number(SUMMARY.exec(rec.stdout())![2]);
    const view = await showJson(lib, id);
    const l = openLibrary(lib);
    try {
      const stored = (await probeStream(l.resolve(view.video!.path))).decodedFrames;
      expect(summaryFrames).toBe(stored);
      expect(view.video!.frameCount).toBe(stored);
    } finally {
      l.close();
    }
  }, 60_000);

  it('item 6: a click that closes its window gets the element and title of that window', async () => {
    const lib = newLib();
    // the window behind: the GTK form, its button right under the dialog's button
    const form = await launchGtkForm(desktop, { title: 'Filler Form', x: 100, y: 100 });
    const b = form.ready.widgets.button;
    const dialog = desktop.spawn(SYSTEM_PYTHON, [
      '-c',
      CLOSING_DIALOG,
      String(b.cx - 100),
      String(b.cy - 40),
    ]);
    let dialogOut = '';
    dialog.stdout!.on('data', (d: Buffer) => (dialogOut += d.toString()));
    for (let i = 0; i < 100 && !dialogOut.includes('ready'); i += 1) {
      await sleep(100);
    }
    const ready = JSON.parse(dialogOut.split('\n')[0]!) as { cx: number; cy: number };
    const dialogExited = new Promise((r) => dialog.once('close', r));
    try {
      const { rec, id } = await recording(desktop, lib, []);
      await desktop.run('xdotool', ['mousemove', String(ready.cx), String(ready.cy)]);
      await sleep(700);
      await desktop.run('xdotool', ['click', '1']);
      await dialogExited;
      await sleep(1000);
      rec.child.kill('SIGINT');
      expect(await rec.exit, rec.stderr()).toBe(0);
      const l = openLibrary(lib);
      try {
        const dto = getRecordingDto(l, id, { mediaUrl: () => '' });
        const click = dto.steps.find((s) => s.kind === 'click');
        expect(click, JSON.stringify(dto.steps)).toBeDefined();
        expect(click!.element?.at(-1)).toMatchObject({ role: 'push button', name: 'Close Me' });
        expect(click!.windowTitle).toBe('Closing Dialog');
      } finally {
        l.close();
      }
    } finally {
      dialog.kill();
      await form.close();
    }
  }, 90_000);

  it('item 7: a filling disk warns first, then stops and saves before it is full', async () => {
    const lib = newLib();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', lib]);
    const free = () => {
      const s = fs.statfsSync(lib);
      return s.bavail * s.bsize;
    };
    const fill = (name: string, leaveBytes: number) => {
      const size = free() - leaveBytes;
      if (size > 0) {
        execFileSync('fallocate', ['-l', String(size), path.join(lib, name)]);
      }
    };
    const { rec, id } = await recording(desktop, lib, ['--no-a11y'], {
      env: { CUA_RECORD_DISK_WARN_MB: '40', CUA_RECORD_DISK_FLOOR_MB: '16' },
    });
    await sleep(500);
    fill('filler-1', 28 * 1024 * 1024);
    await rec.waitForStderr(/warning: .*free/i, 8000);
    expect(await Promise.race([rec.exit, after(500, 'running')])).toBe('running');
    fill('filler-2', 10 * 1024 * 1024);
    const code = await Promise.race([rec.exit, after(10_000, 'still running')]);
    expect(code, rec.stderr()).toBe(2);
    expect(rec.stderr()).toMatch(/error \[DISK_SPACE_LOW\]/);
    expect(rec.stderr()).toMatch(/^fix: /m);
    expect(rec.stderr()).not.toMatch(STACK_LINE);
    const view = await showJson(lib, id);
    expect(view.status).not.toBe('active');
    expect(view.warnings.join('\n')).toMatch(/free/);
    const l = openLibrary(lib);
    try {
      expect((await probeStream(l.resolve(view.video!.path))).decodedFrames).toBeGreaterThan(10);
    } finally {
      l.close();
    }
  }, 60_000);

  it('item 1: a second Ctrl+C while saving is ignored; record still exits 0 with the summary', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y'], { detached: true });
    await sleep(1000);
    // an impatient user: Ctrl+C, then Ctrl+C again while the recorder is still saving
    process.kill(-rec.pid, 'SIGINT');
    // soon enough that the save (stopping ffmpeg alone takes longer) is surely still running: a
    // 300 ms gap let a quick save finish first, and the repeat then met no "still saving" state
    await sleep(30);
    let isRepeated = true;
    try {
      process.kill(-rec.pid, 'SIGINT');
    } catch {
      isRepeated = false; // the group already exited: nothing was left to interrupt
    }
    const code = await rec.exit;
    expect(rec.stderr()).not.toMatch(STACK_LINE);
    expect(code, rec.stderr()).toBe(0);
    if (isRepeated) {
      expect(rec.stderr().match(/still saving/g), rec.stderr()).toHaveLength(1);
    }
    expect(SUMMARY.exec(rec.stdout())?.[3]).toBe('complete');
    expect((await showJson(lib, id)).status).toBe('complete');
  }, 60_000);

  it('item 1: Ctrl+C pressed again and again while saving loses nothing', async () => {
    const lib = newLib();
    const { rec, id } = await recording(desktop, lib, ['--no-a11y'], { detached: true });
    await sleep(1000);
    // a user pressing Ctrl+C every 10 ms until the summary shows: each one reaches the whole
    // foreground group; ffmpeg, when it was in that group, hard-exited on its fourth ("Received
    // > 3 system signals") halfway through finishing the file, which then held no frames
    let presses = 0;
    while (!SUMMARY.test(rec.stdout())) {
      try {
        process.kill(-rec.pid, 'SIGINT');
      } catch {
        break; // the group is gone
      }
      presses += 1;
      await sleep(10);
    }
    const code = await rec.exit;
    expect(presses).toBeGreaterThan(4);
    expect(rec.stderr()).not.toMatch(STACK_LINE);
    expect(code, rec.stderr()).toBe(0);
    expect(rec.stderr().match(/still saving/g), rec.stderr()).toHaveLength(1);
    const summary = SUMMARY.exec(rec.stdout());
    expect(summary?.[3], rec.stderr()).toBe('complete');
    expect(Number(summary?.[2])).toBeGreaterThan(10);
    expect((await showJson(lib, id)).status).toBe('complete');
  }, 60_000);

  describe('item 1: stop() during a pause or resume transition (the session API, real ffmpeg)', () => {
    const sink: RecordingSink = {
      events: () => undefined,
      window: () => undefined,
      element: () => undefined,
      snapshot: () => undefined,
      mark: () => undefined,
      segmentStarted: () => undefined,
    };
    const newSession = async () =>
      new RecordingSession({
        outputDir: newLib(),
        display: await readDisplayInfo(desktop.env),
        platform: createPlatform('linux'),
        ffmpegPath: 'ffmpeg',
        fps: 10,
        accessibility: null,
        sink,
        env: desktop.env,
        inputHookOptions: { shouldCheckPreconditions: false },
      });
    const ffmpegChildren = () => childPids(process.pid, 'x11grab');
    /** Settles with null, or with the error `p` rejected with. */
    const outcome = async (p: Promise<unknown>) => {
      try {
        await p;
        return null;
      } catch (e) {
        return e;
      }
    };

    it('item 1: stop() right after resume() ends the new segment and the session stays done', async () => {
      const session = await newSession();
      await session.start();
      await session.pause();
      expect(ffmpegChildren()).toEqual([]);
      const resuming = outcome(session.resume());
      const result = await session.stop();
      await resuming;
      expect(result.state, String(result.error)).toBe('done');
      // nothing may bring the session back to recording after its stop resolved
      expect(session.state).toBe('done');
      expect(await session.done).toBe(result);
      expect(ffmpegChildren()).toEqual([]);
      // every segment that was started was also finished (its file flushed)
      expect(result.segments.length).toBeGreaterThan(0);
      expect(result.segments.every((s) => s.result !== null)).toBe(true);
    }, 30_000);

    it('item 1: stop() right after pause() waits for the paused segment to be flushed', async () => {
      const session = await newSession();
      await session.start();
      await sleep(500);
      const pausing = outcome(session.pause());
      const result = await session.stop();
      expect(result.state, String(result.error)).toBe('done');
      expect(ffmpegChildren()).toEqual([]);
      expect(result.segments).toHaveLength(1);
      expect(result.segments[0]!.result).not.toBeNull();
      expect(await pausing).toBeNull();
      expect(session.state).toBe('done');
    }, 30_000);
  });
});

// A GTK dialog whose one button closes it on click (argv: frame x, y).
const CLOSING_DIALOG = `
import json, sys
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk
w = Gtk.Window(title="Closing Dialog")
w.set_default_size(200, 80)
w.move(int(sys.argv[1]), int(sys.argv[2]))
b = Gtk.Button(label="Close Me")
w.add(b)
def clicked(_b):
    w.destroy()
    Gtk.main_quit()
b.connect("clicked", clicked)
def report():
    ox, oy = w.get_window().get_origin()[1:]
    a = b.get_allocation()
    bx, by = b.translate_coordinates(w, 0, 0)
    print(json.dumps({"type": "ready", "cx": ox + bx + a.width // 2, "cy": oy + by + a.height // 2}), flush=True)
    return False
w.connect("map-event", lambda *_: GLib.timeout_add(300, report))
w.show_all()
Gtk.main()
`;
