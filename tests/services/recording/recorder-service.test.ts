// The recorder a host drives through the contract (`recorder:*`), end to end in one process:
// real Xvfb + D-Bus + AT-SPI + openbox, a GTK form driven by xdotool, real ffmpeg and SQLite.
// Start, live status events, a pause whose input is left out, the click that stops it left out
// (the app's own gesture), a saved recording with the form's steps; a discard leaves nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServices, type Services } from '../../../src/services/create-services';
import { recordingTaskId } from '../../../src/services/team/tasks';
import type { RecorderStatusDto } from '../../../src/shared/contract';
import { listMarks, readEvents, resolveRecordingSeq } from '../../../src/store';
import { launchGtkForm, type GtkForm } from '../../fixtures/apps/gtk-form';
import { startDesktop, type Desktop } from '../../helpers/desktop';
import { tempLibrary } from '../../helpers/library';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('recorder:* through the services (Xvfb + AT-SPI + GTK form)', { timeout: 120_000 }, () => {
  let desktop: Desktop;
  let form: GtkForm;
  const t = tempLibrary();
  let services: Services;
  const statuses: RecorderStatusDto[] = [];

  const call = async <T>(method: string, payload: unknown = {}): Promise<T> => {
    const r = await services.dispatch(method, payload);
    if (!r.ok) {
      throw new Error(`${method}: [${r.error.code}] ${r.error.message}`);
    }
    return r.value as T;
  };
  const x = (...args: string[]) => desktop.run('xdotool', args);
  const click = async (cx: number, cy: number) => {
    await x('mousemove', String(cx), String(cy));
    await sleep(150);
    await x('click', '1');
    await sleep(500);
  };

  beforeAll(async () => {
    desktop = await startDesktop();
    form = await launchGtkForm(desktop);
    services = createServices(t.lib, {
      appVersion: 'test',
      env: desktop.env,
      log: () => undefined,
      recorderTickMs: 200,
      // the form stands for the app's own window: its clicks that pause and stop are the app's
      appWindows: () => ({ pids: [form.ready.pid] }),
      emit: (event, payload) => {
        if (event === 'recorder:status-changed') {
          statuses.push(payload as RecorderStatusDto);
        }
      },
    });
  }, 60_000);

  afterAll(async () => {
    await services?.close();
    await form?.close();
    await desktop?.stop();
    t.cleanup();
  });

  it('refuses an empty task by naming the field, and stop when idle', async () => {
    const empty = await services.dispatch('recorder:start', { task: '   ' });
    expect(empty.ok).toBe(false);
    expect(!empty.ok && empty.error.code).toBe('INVALID_PAYLOAD');
    expect(!empty.ok && empty.error.message).toContain('task');
    const stop = await services.dispatch('recorder:stop', {});
    expect(!stop.ok && stop.error.code).toBe('INVALID_STATE');
    expect((await call<RecorderStatusDto>('recorder:get-status')).state).toBe('idle');
  });

  it('records, pauses (input left out), resumes, stops (the stopping click left out)', async () => {
    const w = form.ready.widgets;
    const started = await call<RecorderStatusDto>('recorder:start', {
      task: 'Press the button, then type in the entry',
      fps: 10,
      // a team hub task (claimed on the Record page): its id goes into the recording
      teamTaskId: 42,
    });
    expect(started.state).toBe('recording');
    expect(started.recordingId).toMatch(/^[0-9a-f-]{36}$/);
    await sleep(700);
    await click(w.button.cx, w.button.cy);
    // a second start is refused while one runs
    const again = await services.dispatch('recorder:start', { task: 'another' });
    expect(!again.ok && again.error.code).toBe('INVALID_STATE');

    // the click on "Pause" in the app's window (the password field stands for it), then the call
    await click(w.password.cx, w.password.cy);
    const paused = await call<RecorderStatusDto>('recorder:pause');
    expect(paused.state).toBe('paused');
    // while paused: a click on the list is not kept
    await click(w.list.cx, w.list.cy);
    const resumed = await call<RecorderStatusDto>('recorder:resume');
    expect(resumed.state).toBe('recording');
    await sleep(300);
    await click(w.entry.cx, w.entry.cy);
    await x('type', '--delay', '60', 'hi');
    await sleep(800);
    const live = await call<RecorderStatusDto>('recorder:get-status');
    expect(live.frames).toBeGreaterThan(0);
    expect(live.events).toBeGreaterThan(0);
    expect(live.elapsedMs).toBeGreaterThan(1000);
    // the click on "Stop" in the app's window, right before the request
    await click(w.password.cx, w.password.cy);
    const stopped = await call<RecorderStatusDto>('recorder:stop');
    expect(stopped.state).toBe('idle');
    expect(stopped.lastRecordingId).toBe(started.recordingId);
    expect(stopped.error).toBeNull();

    // pushed while recording: live figures that grow, then idle
    const recording = statuses.filter((s) => s.state === 'recording');
    expect(recording.length).toBeGreaterThan(3);
    expect(recording.at(-1)!.elapsedMs).toBeGreaterThan(recording[0]!.elapsedMs);
    expect(statuses.some((s) => s.state === 'paused')).toBe(true);
    expect(statuses.at(-1)!.state).toBe('idle');

    const id = stopped.lastRecordingId!;
    const view = services.showRecording(id);
    expect(view.status).toBe('complete');
    expect(recordingTaskId(t.lib, id)).toBe(42);
    // the button click, then the entry click with the typing; not the list click made while
    // paused, not the clicks on the password field that stood for "Pause" and "Stop"
    const codes = view.steps.map((s) => s.code);
    expect(codes, codes.join('\n')).toHaveLength(3);
    const clickAt = (code: string | undefined) => {
      const m = /^pyautogui\.click\(x=([\d.]+), y=([\d.]+)\)$/.exec(code ?? '');
      expect(m, codes.join('\n')).not.toBeNull();
      return { x: Number(m![1]) * view.screen.width, y: Number(m![2]) * view.screen.height };
    };
    for (const [code, target] of [
      [codes[0], w.button],
      [codes[1], w.entry],
    ] as const) {
      const p = clickAt(code);
      expect(Math.abs(p.x - target.cx)).toBeLessThan(4);
      expect(Math.abs(p.y - target.cy)).toBeLessThan(4);
    }
    expect(codes[2]).toBe("pyautogui.write(message='hi')");
    // the stop click is stored raw but marked as the app's input
    const seq = resolveRecordingSeq(t.lib.db, id).seq;
    const app = listMarks(t.lib.db, seq).filter((m) => m.kind === 'app-input');
    expect(app).toHaveLength(2); // the pause click and the stop click
    const downs = readEvents(t.lib.db, seq).filter((e) => e.kind === 'down');
    expect(downs.length).toBe(4);
  });

  it('discard leaves no recording and no folder behind', async () => {
    const before = services.listRecordings().map((r) => r.id);
    const started = await call<RecorderStatusDto>('recorder:start', { task: 'A botched take' });
    await sleep(800);
    await click(form.ready.widgets.button.cx, form.ready.widgets.button.cy);
    const discarded = await call<RecorderStatusDto>('recorder:discard');
    expect(discarded.state).toBe('idle');
    expect(discarded.lastRecordingId).toBeNull();
    expect(services.listRecordings().map((r) => r.id)).toEqual(before);
    expect(fs.existsSync(path.join(t.dir, 'recordings', started.recordingId!))).toBe(false);
  });
});
