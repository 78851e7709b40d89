// Fault suite for the recorder's input (issue 26, items 11 and 12): the recorder the services
// drive (`recorder:*`) on a real Xvfb desktop with the real X RECORD input hook, ffmpeg and
// SQLite, typed into and clicked with xdotool.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../src/services/create-services';
import type { RecorderStatusDto } from '../../src/shared/contract';
import { APP_RECORDING_TITLE } from '../../src/services/recording/app-input';
import { listMarks, readEvents, resolveRecordingSeq } from '../../src/store';
import { readRecordingWarnings } from '../../src/store/queries/recording-warnings';
import { launchGtkForm, type GtkForm } from '../fixtures/apps/gtk-form';
import { startDesktop, type Desktop } from '../helpers/desktop';
import { tempLibrary } from '../helpers/library';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `count` characters of mixed case, digits and spaces (shifted and unshifted keys). */
function burstText(count: number): string {
  const pattern = 'The Quick Brown Fox jumps over 13 Lazy Dogs and 42 Cats ';
  return pattern.repeat(Math.ceil(count / pattern.length)).slice(0, count);
}

describe('recorder input faults (issue 26)', { timeout: 300_000 }, () => {
  let desktop: Desktop;
  const t = tempLibrary();
  let services: Services;
  let form: GtkForm;
  /** A window that stands for the app's own (its id is declared the app's to the services). */
  let appForm: GtkForm;

  const call = async <T>(method: string, payload: unknown = {}): Promise<T> => {
    const r = await services.dispatch(method, payload);
    if (!r.ok) {
      throw new Error(`${method}: [${r.error.code}] ${r.error.message}`);
    }
    return r.value as T;
  };

  beforeAll(async () => {
    desktop = await startDesktop();
    form = await launchGtkForm(desktop);
    appForm = await launchGtkForm(desktop, { x: 700, y: 100, title: 'Stands for the app' });
    services = createServices(t.lib, {
      appVersion: 'test',
      env: desktop.env,
      log: () => undefined,
      // declared by process: windows declared by id are also kept out of the recording
      // altogether (the HUD, capture-exclusion.ts isOwnWindow), which would hide the gesture
      appWindows: () => ({ pids: [appForm.ready.pid] }),
    });
  }, 60_000);

  afterAll(async () => {
    await services?.close();
    await form?.close();
    await appForm?.close();
    await desktop?.stop();
    t.cleanup();
  });

  const x = (...args: string[]) => desktop.run('xdotool', args);
  const clickAt = async (p: { cx: number; cy: number }) => {
    await x('mousemove', String(p.cx), String(p.cy));
    await sleep(150);
    await x('click', '1');
    await sleep(400);
  };
  /** The stored steps' code, the marks and a trace of the presses of a recording. */
  const outcome = (id: string) => {
    const seq = resolveRecordingSeq(t.lib.db, id).seq;
    const events = readEvents(t.lib.db, seq);
    const marks = listMarks(t.lib.db, seq);
    const codes = services.showRecording(id).steps.map((step) => step.code);
    const trace = [
      ...codes,
      ...events
        .filter((e) => e.kind === 'down' || e.kind === 'keydown' || e.kind === 'wheel')
        .map((e) => `${e.tMs.toFixed(0)} ${e.kind} ${e.char ?? ''} ${e.x ?? ''},${e.y ?? ''}`),
      ...marks.map((m) => `${m.tMs.toFixed(0)}..${m.endMs?.toFixed(0)} mark ${m.kind}`),
    ].join('\n');
    return { events, marks, codes, trace };
  };

  it('item 39: the app page and the recorder agree on the title that marks the app’s window', () => {
    const renderer = fs.readFileSync(
      path.join(import.meta.dirname, '../../src/renderer/hooks/use-recorder-status.ts'),
      'utf8',
    );
    expect(renderer).toContain(`RECORDING_TITLE = '${APP_RECORDING_TITLE}'`);
  });

  it('item 39: a pause and a stop asked for by a script keep the last key typed into another window and the scroll before the stop', async () => {
    const w = form.ready.widgets;
    const started = await call<RecorderStatusDto>('recorder:start', {
      task: 'Type a name, then scroll the list',
      fps: 5,
      a11y: false,
    });
    await sleep(500);
    await clickAt(w.entry);
    await x('type', '--delay', '80', 'name-1234');
    // no click anywhere: a script (or a click the hook cannot see) pauses
    await call('recorder:pause');
    await call('recorder:resume');
    await sleep(300);
    // a key, then a scroll, then a stop from a script: the scroll is a step of its own
    await x('type', '--delay', '80', 'ok');
    await x('mousemove', String(w.list.cx), String(w.list.cy));
    await sleep(300);
    await x('click', '--repeat', '3', '--delay', '60', '5');
    await sleep(200);
    await call('recorder:stop');
    const { marks, codes, trace } = outcome(started.recordingId!);
    expect(
      marks.filter((m) => m.kind === 'app-input'),
      trace,
    ).toEqual([]);
    // nothing was lost on the way either (the X RECORD hook's cross-check finds no gap)
    const seq = resolveRecordingSeq(t.lib.db, started.recordingId!).seq;
    expect(readRecordingWarnings(t.lib.db, seq).filter((w) => w.startsWith('INPUT_LOST'))).toEqual(
      [],
    );
    // every key typed (the reducer joins the typing on both sides of the pause)
    expect(codes, trace).toContain("pyautogui.write(message='name-1234ok')");
    expect(codes.at(-1), trace).toMatch(/^pyautogui\.scroll\(-3\)$/m);
  });

  it('item 39: a click on the app’s own window that pauses or stops is still left out', async () => {
    const w = form.ready.widgets;
    const own = appForm.ready.widgets;
    const started = await call<RecorderStatusDto>('recorder:start', {
      task: 'Press the button',
      fps: 5,
      a11y: false,
    });
    await sleep(500);
    await clickAt(w.button);
    // the click on "Pause" in the app's window, then the request it makes
    await clickAt(own.button);
    await call('recorder:pause');
    await call('recorder:resume');
    await sleep(300);
    await clickAt(w.entry);
    await x('type', '--delay', '80', 'ok');
    await sleep(300);
    await clickAt(own.button);
    await call('recorder:stop');
    const { marks, codes, events, trace } = outcome(started.recordingId!);
    expect(
      marks.filter((m) => m.kind === 'app-input'),
      trace,
    ).toHaveLength(2);
    expect(
      events.filter((e) => e.kind === 'down'),
      trace,
    ).toHaveLength(4); // stored raw
    expect(codes, trace).toHaveLength(3);
    expect(codes[2], trace).toBe("pyautogui.write(message='ok')");
    const points = codes.slice(0, 2).map((code) => /click\(x=([\d.]+), y=([\d.]+)\)/.exec(code));
    const view = services.showRecording(started.recordingId!);
    for (const [m, target] of [
      [points[0], w.button],
      [points[1], w.entry],
    ] as const) {
      expect(m, trace).not.toBeNull();
      expect(Math.abs(Number(m![1]) * view.screen.width - target.cx), trace).toBeLessThan(4);
      expect(Math.abs(Number(m![2]) * view.screen.height - target.cy), trace).toBeLessThan(4);
    }
  });

  it('item 40: 10,000 characters typed 2 ms apart under a full CPU load, the hook child starved twice for 1 s, are all stored or the recording warns of the loss', async () => {
    const text = burstText(10_000);
    const started = await call<RecorderStatusDto>('recorder:start', {
      task: 'Type a long text fast',
      fps: 5,
    });
    expect(started.state).toBe('recording');
    const entry = form.ready.widgets.entry;
    await desktop.run('xdotool', ['mousemove', String(entry.cx), String(entry.cy), 'click', '1']);
    await sleep(800);
    // busy loops on every core (and one more) for the length of the burst, bounded
    const hogs: ChildProcess[] = [];
    for (let i = 0; i < 4; i += 1) {
      hogs.push(
        spawn(
          process.execPath,
          ['-e', 'const end = Date.now() + 120000; while (Date.now() < end) {}'],
          {
            stdio: 'ignore',
          },
        ),
      );
    }
    // the hook child (this process's child): starved outright twice in the burst, as a loaded
    // machine starves it now and then (SIGSTOP for 1 s, well inside the watchdog's stall limit)
    const hookPid = Number(
      execFileSync('pgrep', ['-P', String(process.pid), '-f', 'hook-child'], { encoding: 'utf8' })
        .trim()
        .split('\n')[0],
    );
    expect(hookPid).toBeGreaterThan(0);
    let isStopped = false;
    const starve = (async () => {
      for (let i = 0; i < 2; i += 1) {
        await sleep(4000);
        process.kill(hookPid, 'SIGSTOP');
        isStopped = true;
        await sleep(1000);
        process.kill(hookPid, 'SIGCONT');
        isStopped = false;
      }
    })();
    try {
      await desktop.run('xdotool', ['type', '--delay', '2', text], 200_000);
      await starve;
    } finally {
      if (isStopped) {
        process.kill(hookPid, 'SIGCONT');
      }
      hogs.forEach((h) => h.kill('SIGKILL'));
    }
    await sleep(1000);
    const stopped = await call<RecorderStatusDto>('recorder:stop');
    const id = stopped.lastRecordingId!;
    const seq = resolveRecordingSeq(t.lib.db, id).seq;
    const typed = readEvents(t.lib.db, seq)
      .filter((e) => e.kind === 'keydown' && e.char !== null)
      .map((e) => e.char)
      .join('');
    const warnings = readRecordingWarnings(t.lib.db, seq);
    const lost = text.length - typed.length;
    if (typed !== text) {
      const xlog = fs.readFileSync(path.join(desktop.runDir, 'xvfb.log'), 'utf8');
      console.log(`xvfb.log:\n${xlog.slice(-3000)}`);
      const firstBad = [...text].findIndex((c, i) => typed[i] !== c);
      console.log(
        `first difference at ${firstBad}: ${JSON.stringify(text.slice(firstBad, firstBad + 120))} vs ${JSON.stringify(typed.slice(firstBad, firstBad + 120))}`,
      );
    }
    console.log(
      `item 40: stored ${typed.length}/${text.length} characters; warnings: ${JSON.stringify(warnings)}`,
    );
    if (typed !== text) {
      // a loss is allowed only when the recording says so: naming at least as many key presses,
      // or an input gap (the watchdog restarted a hook child that stalled past its limit)
      const hasGap = warnings.some((w) => w.startsWith('no keyboard or mouse input from'));
      const named = warnings
        .map((w) => /^INPUT_LOST: .*?(\d+) key press/.exec(w)?.[1])
        .filter((n) => n !== undefined)
        .reduce((sum, n) => sum + Number(n), 0);
      expect(
        hasGap ? Infinity : named,
        `lost ${lost} characters; warnings: ${warnings.join('\n')}`,
      ).toBeGreaterThanOrEqual(lost);
    } else {
      expect(typed).toBe(text);
    }
  }, 300_000);
});
