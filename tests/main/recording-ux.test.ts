// The tray/hotkey/HUD state machine: start, pause, resume, stop, a crash, refused commands; and
// the shell that runs it against recorder controls and a screen.
import type { Menu, MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import {
  formatElapsed,
  INITIAL_UX_STATE,
  reduceUx,
  viewUx,
  type RecorderPhase,
  type RecorderSnapshot,
  type UxInput,
  type UxState,
} from '../../src/main/recording-ux';
import {
  createViewApplier,
  RecordingShell,
  trayMenuTemplate,
  type RecorderControls,
} from '../../src/main/recording-shell';
import { dispatchRecorderControls, toRecorderSnapshot } from '../../src/main/recorder-controls';

function status(
  state: RecorderPhase,
  extra: Partial<RecorderSnapshot> = {},
): Extract<UxInput, { type: 'status' }> {
  return {
    type: 'status',
    atMs: extra.elapsedMs ?? 0,
    status: {
      state,
      task: state === 'idle' ? null : 'Open settings',
      elapsedMs: 0,
      lastRecordingId: null,
      error: null,
      ...extra,
    },
  };
}

/** Runs inputs through the machine, collecting the commands. */
function run(inputs: UxInput[], from: UxState = INITIAL_UX_STATE) {
  let state = from;
  const commands: string[] = [];
  for (const input of inputs) {
    const step = reduceUx(state, input);
    state = step.state;
    commands.push(...step.commands.map((c) => (c.kind === 'start' ? `start:${c.task}` : c.kind)));
  }
  return { state, commands };
}

const item = (state: UxState, id: string) => viewUx(state, 0).tray.items.find((i) => i.id === id)!;

describe('recording UX state machine', () => {
  it('goes through start, pause, resume and stop, with tray, HUD and main window following', () => {
    let s = INITIAL_UX_STATE;
    let v = viewUx(s, 0);
    expect(v.mainWindowVisible).toBe(true);
    expect(v.hud.visible).toBe(false);
    expect(item(s, 'toggle-recording')).toMatchObject({ label: 'Start recording…', enabled: true });
    expect(item(s, 'toggle-pause').enabled).toBe(false);

    const started = run([{ type: 'start', task: '  Open settings ' }], s);
    expect(started.commands).toEqual(['start:Open settings']);
    s = started.state;
    expect(s.phase).toBe('starting');
    expect(item(s, 'toggle-recording')).toMatchObject({ label: 'Starting…', enabled: false });
    expect(viewUx(s, 0).mainWindowVisible).toBe(false);

    s = run([status('recording', { elapsedMs: 1000 })], s).state;
    expect(s.phase).toBe('recording');
    v = viewUx(s, 6000);
    expect(v.hud).toMatchObject({
      visible: true,
      task: 'Open settings',
      elapsedText: '0:06',
      isPaused: false,
      canPause: true,
      canStop: true,
      status: 'Recording',
    });
    expect(v.tray.tooltip).toBe('cua-annotator: recording — Open settings (0:06)');
    expect(item(s, 'toggle-recording')).toMatchObject({ label: 'Stop recording', enabled: true });
    expect(item(s, 'show').enabled).toBe(false);
    expect(v.mainWindowVisible).toBe(false);

    const paused = run([{ type: 'toggle-pause' }], s);
    expect(paused.commands).toEqual(['pause']);
    s = run([status('paused', { elapsedMs: 7000 })], paused.state).state;
    expect(s.phase).toBe('paused');
    // a paused clock does not run
    expect(viewUx(s, 60_000).hud).toMatchObject({ elapsedText: '0:07', isPaused: true });
    expect(item(s, 'toggle-pause')).toMatchObject({ label: 'Resume', enabled: true });

    const resumed = run([{ type: 'toggle-pause' }], s);
    expect(resumed.commands).toEqual(['resume']);
    expect(resumed.state.phase).toBe('recording');
    s = run([status('recording', { elapsedMs: 7000 })], resumed.state).state;

    const stopped = run([{ type: 'toggle-recording' }], s);
    expect(stopped.commands).toEqual(['stop']);
    expect(stopped.state.phase).toBe('stopping');
    expect(item(stopped.state, 'toggle-recording')).toMatchObject({
      label: 'Saving…',
      enabled: false,
    });
    s = run([status('idle', { lastRecordingId: 'rec-1' })], stopped.state).state;
    expect(s).toMatchObject({ phase: 'idle', notice: null, lastRecordingId: 'rec-1' });
    v = viewUx(s, 0);
    expect(v.hud.visible).toBe(false);
    expect(v.mainWindowVisible).toBe(true);
    // the next hotkey start reuses the task
    expect(item(s, 'toggle-recording').label).toBe('Start recording');
    expect(run([{ type: 'toggle-recording' }], s).commands).toEqual(['start:Open settings']);
  });

  it('a crash (the recorder ends on its own) returns to idle with a notice of what was kept', () => {
    const recording = run([{ type: 'start', task: 'T' }, status('recording')]).state;
    const crashed = run(
      [
        status('idle', {
          lastRecordingId: 'rec-9',
          error: { code: 'INPUT_HOOK_FAILED', message: 'the input hook died 5 times' },
        }),
      ],
      recording,
    ).state;
    expect(crashed.phase).toBe('idle');
    expect(crashed.notice).toBe(
      'The recording stopped on its own: the input hook died 5 times. What was captured is saved as recording rec-9.',
    );
    const view = viewUx(crashed, 0);
    expect(view.notice).toBe(crashed.notice);
    expect(view.hud.visible).toBe(false);
    expect(view.mainWindowVisible).toBe(true);
    expect(run([{ type: 'dismiss-notice' }], crashed).state.notice).toBeNull();

    // the recorder process itself dies while paused
    const paused = run([{ type: 'toggle-pause' }, status('paused')], recording).state;
    const died = run([{ type: 'recorder-died', message: 'exit 134' }], paused).state;
    expect(died.phase).toBe('idle');
    expect(died.notice).toMatch(/stopped unexpectedly \(exit 134\).*kept/);
  });

  it('a refused or failed start is back to idle with the reason', () => {
    const refused = run([
      { type: 'start', task: 'T' },
      { type: 'command-failed', command: 'start', message: 'DISPLAY is not set' },
    ]).state;
    expect(refused).toMatchObject({ phase: 'idle', notice: 'Could not start: DISPLAY is not set' });
    const failed = run([
      { type: 'start', task: 'T' },
      status('idle', { error: { code: 'FFMPEG_FAILED', message: 'x11grab refused' } }),
    ]).state;
    expect(failed).toMatchObject({ phase: 'idle' });
    expect(failed.notice).toBe('The recording could not start: x11grab refused');
  });

  it('undoes an optimistic pause the recorder refused; ignores actions that do not apply', () => {
    const recording = run([{ type: 'start', task: 'T' }, status('recording')]).state;
    const refused = run(
      [{ type: 'toggle-pause' }, { type: 'command-failed', command: 'pause', message: 'busy' }],
      recording,
    ).state;
    expect(refused).toMatchObject({ phase: 'recording', notice: 'Could not pause: busy' });
    // nothing to pause, stop or discard when idle; no second start while starting
    expect(run([{ type: 'toggle-pause' }, { type: 'stop' }, { type: 'discard' }]).commands).toEqual(
      [],
    );
    expect(
      run([
        { type: 'start', task: 'A' },
        { type: 'start', task: 'B' },
      ]).commands,
    ).toEqual(['start:A']);
    expect(run([{ type: 'start', task: '   ' }]).commands).toEqual([]);
    // a hotkey start without a task asks for one
    expect(run([{ type: 'toggle-recording' }]).commands).toEqual(['ask-task']);
    expect(run([{ type: 'hotkey', action: 'startStop' }]).commands).toEqual(['ask-task']);
    expect(run([{ type: 'discard' }], recording)).toMatchObject({
      commands: ['discard'],
      state: { phase: 'stopping' },
    });
  });

  it('leaves hotkeys to the recorder while it records: no double stop, no pause-and-resume', () => {
    const recording = run([{ type: 'start', task: 'T' }, status('recording')]).state;
    for (const action of ['startStop', 'pause'] as const) {
      const step = reduceUx(recording, { type: 'hotkey', action });
      expect(step).toEqual({ state: recording, commands: [] });
    }
    // the recorder's own hotkey pause and stop arrive as its status
    const paused = run([status('paused')], recording).state;
    expect(paused.phase).toBe('paused');
    expect(reduceUx(paused, { type: 'hotkey', action: 'pause' }).commands).toEqual([]);
    const stopped = run([status('stopping'), status('idle', { lastRecordingId: 'r' })], paused);
    expect(stopped.state).toMatchObject({ phase: 'idle', notice: null });
    // also when its 'stopping' report was missed: an end without an error is no crash
    expect(run([status('idle', { lastRecordingId: 'r' })], paused).state).toMatchObject({
      phase: 'idle',
      notice: null,
    });
    // idle: the start/stop hotkey starts with the last task, the pause hotkey does nothing
    expect(run([{ type: 'hotkey', action: 'startStop' }], stopped.state).commands).toEqual([
      'start:Open settings',
    ]);
    expect(run([{ type: 'hotkey', action: 'pause' }], stopped.state).commands).toEqual([]);
  });

  it('formats elapsed time', () => {
    expect(formatElapsed(0)).toBe('0:00');
    expect(formatElapsed(61_999)).toBe('1:01');
    expect(formatElapsed(3_723_000)).toBe('1:02:03');
  });
});

/** Recorder controls over a scripted recorder. */
function fakeRecorder() {
  let snap: RecorderSnapshot = {
    state: 'idle',
    task: null,
    elapsedMs: 0,
    lastRecordingId: null,
    error: null,
  };
  const calls: string[] = [];
  const set = (patch: Partial<RecorderSnapshot>) => (snap = { ...snap, ...patch });
  const answer = (call: string, patch: Partial<RecorderSnapshot>) => {
    calls.push(call);
    return Promise.resolve(set(patch));
  };
  const controls: RecorderControls = {
    start: (task) => answer(`start:${task}`, { state: 'recording', task }),
    pause: () => answer('pause', { state: 'paused' }),
    resume: () => answer('resume', { state: 'recording' }),
    stop: () => answer('stop', { state: 'idle', task: null, lastRecordingId: 'r1' }),
    discard: () => answer('discard', { state: 'idle', task: null }),
    status: () => Promise.resolve(snap),
  };
  return { controls, calls, set };
}

describe('recording shell', () => {
  it('drives the recorder from tray and hotkeys and renders tray, HUD and main window', async () => {
    const recorder = fakeRecorder();
    const tooltips: string[] = [];
    const menus: MenuItemConstructorOptions[][] = [];
    const screen = { hud: false, main: true, notices: [] as string[] };
    let asked = 0;
    const apply = createViewApplier({
      tray: { setToolTip: (t) => tooltips.push(t), setContextMenu: () => undefined },
      buildMenu: (template) => (menus.push(template), {} as Menu),
      hud: () => ({
        isVisible: () => screen.hud,
        showInactive: () => (screen.hud = true),
        hide: () => (screen.hud = false),
      }),
      main: {
        isVisible: () => screen.main,
        show: () => (screen.main = true),
        hide: () => (screen.main = false),
      },
      onTrayItem: () => undefined,
      notify: (text) => screen.notices.push(text),
    });
    const shell = new RecordingShell({
      controls: recorder.controls,
      render: apply,
      askTask: () => (asked += 1),
      hotkeys: { startStop: 'CommandOrControl+Alt+Shift+R' },
      now: () => 0,
    });
    await shell.sync();
    shell.send({ type: 'toggle-recording' });
    expect(asked).toBe(1);
    shell.send({ type: 'start', task: 'Change the wallpaper' });
    expect(screen).toMatchObject({ hud: true, main: false });
    await shell.settled();
    expect(shell.state.phase).toBe('recording');
    shell.onTrayItem('toggle-pause');
    await shell.settled();
    expect(shell.state.phase).toBe('paused');
    shell.onTrayItem('toggle-pause');
    await shell.settled();
    shell.onTrayItem('toggle-recording');
    await shell.settled();
    expect(recorder.calls).toEqual(['start:Change the wallpaper', 'pause', 'resume', 'stop']);
    expect(shell.state).toMatchObject({ phase: 'idle', lastRecordingId: 'r1' });
    expect(screen).toMatchObject({ hud: false, main: true, notices: [] });
    expect(tooltips.at(-1)).toBe('cua-annotator: ready');
    const lastMenu = menus.at(-1)!;
    expect(lastMenu.find((i) => i.id === 'toggle-recording')).toMatchObject({
      label: 'Start recording',
      accelerator: 'CommandOrControl+Alt+Shift+R',
      registerAccelerator: false,
    });

    // a crash pushed by the recorder's status event: one notice, the main window back
    shell.send({ type: 'start', task: 'Again' });
    await shell.settled();
    shell.onStatus({
      state: 'idle',
      task: null,
      elapsedMs: 3000,
      lastRecordingId: 'r2',
      error: { code: 'DISK_SPACE_LOW', message: 'the disk is nearly full' },
    });
    shell.refresh();
    expect(screen.notices).toHaveLength(1);
    expect(screen.notices[0]).toMatch(/nearly full.*r2/);
    expect(screen).toMatchObject({ hud: false, main: true });
  });

  it('keeps a main window the user hid hidden after a recording', async () => {
    const recorder = fakeRecorder();
    const screen = { main: false, shows: 0 };
    const apply = createViewApplier({
      tray: { setToolTip: () => undefined, setContextMenu: () => undefined },
      buildMenu: () => ({}) as Menu,
      hud: () => null,
      main: {
        isVisible: () => screen.main,
        show: () => ((screen.main = true), (screen.shows += 1)),
        hide: () => (screen.main = false),
      },
      onTrayItem: () => undefined,
      notify: () => undefined,
    });
    const shell = new RecordingShell({
      controls: recorder.controls,
      render: apply,
      askTask: () => undefined,
    });
    shell.send({ type: 'start', task: 'x' });
    await shell.settled();
    shell.send({ type: 'stop' });
    await shell.settled();
    expect(screen.shows).toBe(0);
  });

  it('turns a rejected command into a notice and a refused start into idle', async () => {
    const recorder = fakeRecorder();
    recorder.controls.start = () => Promise.reject(new Error('PLATFORM_UNSUPPORTED here'));
    const shell = new RecordingShell({
      controls: recorder.controls,
      render: () => undefined,
      askTask: () => undefined,
    });
    shell.send({ type: 'start', task: 'x' });
    await shell.settled();
    expect(shell.state).toMatchObject({
      phase: 'idle',
      notice: 'Could not start: PLATFORM_UNSUPPORTED here',
    });
  });

  it('builds the tray menu with every item and a disabled state line', () => {
    const clicked: string[] = [];
    const template = trayMenuTemplate(viewUx(INITIAL_UX_STATE, 0), (id) => clicked.push(id));
    const ids = template.filter((i) => i.id !== undefined).map((i) => i.id);
    expect(ids).toEqual(['toggle-recording', 'toggle-pause', 'discard', 'show', 'quit']);
    expect(template[0]).toMatchObject({ label: 'State: ready', enabled: false });
    for (const entry of template) {
      (entry.click as (() => void) | undefined)?.();
    }
    expect(clicked).toEqual(ids);
  });
});

describe('recorder controls over the dispatcher', () => {
  it('calls the contract recorder methods and unwraps their status', async () => {
    const seen: [string, unknown][] = [];
    const controls = dispatchRecorderControls({
      dispatch: (method, payload) => {
        seen.push([method, payload]);
        return Promise.resolve(
          method === 'recorder:stop'
            ? {
                ok: false as const,
                error: { code: 'INVALID_STATE' as const, message: 'not recording' },
              }
            : {
                ok: true as const,
                // a whole status, as the contract's schema wants it
                value: {
                  state: 'recording',
                  recordingId: 'r1',
                  task: 'T',
                  elapsedMs: 5,
                  frames: 0,
                  droppedFrames: 0,
                  events: 0,
                  accessibility: 'ok',
                  warnings: [],
                  lastRecordingId: null,
                  error: null,
                },
              },
        );
      },
    });
    await expect(controls.start('T')).resolves.toMatchObject({ state: 'recording', task: 'T' });
    await controls.pause();
    await controls.resume();
    await controls.discard();
    await controls.status();
    await expect(controls.stop()).rejects.toMatchObject({ code: 'INVALID_STATE' });
    expect(seen).toEqual([
      ['recorder:start', { task: 'T' }],
      ['recorder:pause', {}],
      ['recorder:resume', {}],
      ['recorder:discard', {}],
      ['recorder:get-status', {}],
      ['recorder:stop', {}],
    ]);
    expect(toRecorderSnapshot({ state: 'flying' })).toBeNull();
    expect(toRecorderSnapshot(null)).toBeNull();
  });
});
