import '../helpers/setup';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RecorderStatusDto } from '../../../src/shared/contract';
import {
  applyStatus,
  COUNTDOWN_TICK_MS,
  recorderSelectors,
  useRecorderStore,
} from '../../../src/renderer/store/recorder';
import { FakeFailure, flush, installFakeApi, type FakeApi } from '../helpers/fake-api';

const state = () => useRecorderStore.getState();

function status(patch: Partial<RecorderStatusDto> = {}): RecorderStatusDto {
  return {
    state: 'idle',
    recordingId: null,
    task: null,
    elapsedMs: 0,
    frames: 0,
    droppedFrames: 0,
    events: 0,
    accessibility: 'ok',
    warnings: [],
    lastRecordingId: null,
    error: null,
    ...patch,
  };
}

const running = (patch: Partial<RecorderStatusDto> = {}) =>
  status({ state: 'recording', recordingId: 'rec-1', task: 'Open the settings', ...patch });

/** A fake recorder service: start, pause, resume, stop, discard move one status along. */
function fakeRecorder(api: FakeApi, settings: { countdownS: number } = { countdownS: 0 }) {
  let current = status({ lastRecordingId: 'old' });
  api.on('recorder:get-status', () => current);
  api.on('settings:get', () => ({ countdownS: settings.countdownS }));
  api.on('recorder:start', (p) => {
    current = running({ task: (p as { task: string }).task, lastRecordingId: 'old' });
    return current;
  });
  api.on('recorder:pause', () => (current = { ...current, state: 'paused' }));
  api.on('recorder:resume', () => (current = { ...current, state: 'recording' }));
  api.on(
    'recorder:stop',
    () => (current = status({ lastRecordingId: current.recordingId, elapsedMs: 5000 })),
  );
  api.on('recorder:discard', () => (current = status()));
  return { get: () => current, set: (s: RecorderStatusDto) => (current = s) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('applyStatus', () => {
  const empty = { status: null, statusAtMs: 0, endedIds: [], savedRecordingId: null };

  it('takes the first status without opening anything', () => {
    const s = applyStatus(empty, status({ lastRecordingId: 'old' }), 5);
    expect(s).toMatchObject({ statusAtMs: 5, savedRecordingId: null, endedIds: [] });
  });

  it('a running recording seen saved becomes the one to open; later news of it is dropped', () => {
    let s = applyStatus(empty, running({ lastRecordingId: 'old' }), 1)!;
    s = applyStatus(s, status({ lastRecordingId: 'rec-1' }), 2)!;
    expect(s.savedRecordingId).toBe('rec-1');
    expect(s.endedIds).toEqual(['rec-1']);
    // an event sent before the stop answered, arriving after it
    expect(applyStatus(s, running({ state: 'stopping' }), 3)).toBeNull();
  });

  it('a discard (lastRecordingId back to null) opens nothing', () => {
    let s = applyStatus(empty, running({ lastRecordingId: 'old' }), 1)!;
    s = applyStatus(s, status({ lastRecordingId: null }), 2)!;
    expect(s.savedRecordingId).toBeNull();
    expect(s.endedIds).toEqual(['rec-1']);
  });

  it('an idle status keeping the older lastRecordingId opens nothing (failed start)', () => {
    let s = applyStatus(empty, status({ state: 'starting', lastRecordingId: 'old' }), 1)!;
    s = applyStatus(s, status({ lastRecordingId: 'old' }), 2)!;
    expect(s.savedRecordingId).toBeNull();
  });
});

describe('recorder store', () => {
  it('loads the status and the countdown setting; a reload finds a recording going', async () => {
    const api = installFakeApi();
    const rec = fakeRecorder(api, { countdownS: 3 });
    rec.set(running({ elapsedMs: 61_000, frames: 1830 }));
    await state().load();
    expect(state().loadStatus).toBe('ready');
    expect(state().countdownS).toBe(3);
    expect(recorderSelectors.state(state())).toBe('recording');
    expect(recorderSelectors.isActive(state())).toBe(true);
    expect(recorderSelectors.canStart(state())).toBe(false);
    expect(recorderSelectors.canPause(state())).toBe(true);
  });

  it('a load that fails shows the code, message and fix', async () => {
    const api = installFakeApi();
    api.on('recorder:get-status', () => {
      throw new FakeFailure(
        'PERMISSION_DENIED',
        'recorder:get-status is served to loopback clients only',
        undefined,
        'Open the app on the machine being recorded.',
      );
    });
    api.on('settings:get', () => {
      throw new FakeFailure('PERMISSION_DENIED', 'no');
    });
    await state().load();
    expect(state().loadStatus).toBe('error');
    expect(state().error).toEqual({
      code: 'PERMISSION_DENIED',
      message: 'recorder:get-status is served to loopback clients only',
      fix: 'Open the app on the machine being recorded.',
    });
    expect(state().countdownS).toBe(0);
  });

  it('start needs a task; then pause, resume and stop, and the stop opens the recording', async () => {
    const api = installFakeApi();
    fakeRecorder(api);
    await state().load();
    expect(recorderSelectors.canStart(state())).toBe(false);
    await state().start();
    expect(api.methods()).not.toContain('recorder:start');
    state().setTask('   ');
    expect(recorderSelectors.canStart(state())).toBe(false);
    state().setTask('  Open the settings ');
    expect(recorderSelectors.canStart(state())).toBe(true);
    await state().start();
    expect(api.calls.find((c) => c.method === 'recorder:start')?.payload).toEqual({
      task: 'Open the settings',
    });
    expect(recorderSelectors.state(state())).toBe('recording');
    await state().pause();
    expect(recorderSelectors.state(state())).toBe('paused');
    expect(recorderSelectors.canPause(state())).toBe(false);
    expect(recorderSelectors.canResume(state())).toBe(true);
    await state().resume();
    expect(recorderSelectors.state(state())).toBe('recording');
    expect(state().savedRecordingId).toBeNull();
    await state().stop();
    expect(recorderSelectors.state(state())).toBe('idle');
    expect(state().savedRecordingId).toBe('rec-1');
    state().clearSaved();
    expect(state().savedRecordingId).toBeNull();
  });

  it('marks the call in flight and refuses a second one meanwhile', async () => {
    const api = installFakeApi();
    const rec = fakeRecorder(api);
    rec.set(running());
    await state().load();
    api.hold();
    const stopping = state().stop();
    expect(state().busy).toBe('stop');
    expect(recorderSelectors.canStop(state())).toBe(false);
    expect(recorderSelectors.canPause(state())).toBe(false);
    await state().pause();
    await api.release();
    await stopping;
    expect(api.methods().filter((m) => m === 'recorder:pause')).toEqual([]);
    expect(state().busy).toBeNull();
  });

  it('follows pushed status events; a late event of an ended recording is dropped', async () => {
    const api = installFakeApi();
    fakeRecorder(api);
    await state().load();
    api.emit('recorder:status-changed', running({ frames: 30, events: 4 }));
    // the store subscribes through the page hook; the action is what the hook calls
    state().onStatus(running({ frames: 30, events: 4, droppedFrames: 2, warnings: ['low disk'] }));
    expect(state().status).toMatchObject({ frames: 30, droppedFrames: 2, warnings: ['low disk'] });
    state().onStatus(status({ lastRecordingId: 'rec-1' }));
    expect(state().savedRecordingId).toBe('rec-1');
    state().onStatus(running({ state: 'stopping' }));
    expect(recorderSelectors.state(state())).toBe('idle');
  });

  it('discards only after the confirmation and says nothing was kept', async () => {
    const api = installFakeApi();
    const rec = fakeRecorder(api);
    rec.set(running());
    await state().load();
    state().askDiscard();
    expect(state().isConfirmingDiscard).toBe(true);
    state().cancelDiscard();
    expect(state().isConfirmingDiscard).toBe(false);
    expect(api.methods()).not.toContain('recorder:discard');
    state().askDiscard();
    await state().discard();
    expect(api.methods()).toContain('recorder:discard');
    expect(state().isConfirmingDiscard).toBe(false);
    expect(recorderSelectors.state(state())).toBe('idle');
    expect(state().savedRecordingId).toBeNull();
    expect(state().notice).toMatch(/discarded/);
  });

  it('a claimed team task fills the task and starts with its id; "not for a task" drops the id', async () => {
    const api = installFakeApi();
    fakeRecorder(api);
    await state().load();
    state().setTeamTask({ id: 7, instruction: 'Empty the trash', expiresAtMs: 1_000 });
    expect(state().task).toBe('Empty the trash');
    await state().start();
    expect(api.calls.find((c) => c.method === 'recorder:start')?.payload).toEqual({
      task: 'Empty the trash',
      teamTaskId: 7,
    });
    await state().stop();
    state().setTeamTask(null);
    expect(state().task).toBe('Empty the trash');
    await state().start();
    expect(api.calls.filter((c) => c.method === 'recorder:start').at(-1)?.payload).toEqual({
      task: 'Empty the trash',
    });
  });

  it('a refused start shows the error and leaves the recorder idle', async () => {
    const api = installFakeApi();
    fakeRecorder(api);
    api.on('recorder:start', () => {
      throw new FakeFailure(
        'RECORDING_ACTIVE',
        'A recording is already running in another window',
        undefined,
        'Stop it first.',
      );
    });
    await state().load();
    state().setTask('x');
    await state().start();
    expect(state().error).toEqual({
      code: 'RECORDING_ACTIVE',
      message: 'A recording is already running in another window',
      fix: 'Stop it first.',
    });
    expect(state().busy).toBeNull();
    expect(recorderSelectors.canStart(state())).toBe(true);
    state().dismissError();
    expect(state().error).toBeNull();
  });

  it('counts down 3, 2, 1 before starting, and a cancelled countdown starts nothing', async () => {
    vi.useFakeTimers();
    const api = installFakeApi();
    fakeRecorder(api, { countdownS: 3 });
    await state().load();
    state().setTask('Open the settings');
    await state().start();
    expect(state().countdownLeft).toBe(3);
    expect(recorderSelectors.canStart(state())).toBe(false);
    vi.advanceTimersByTime(COUNTDOWN_TICK_MS);
    expect(state().countdownLeft).toBe(2);
    state().cancelCountdown();
    expect(state().countdownLeft).toBeNull();
    vi.advanceTimersByTime(10 * COUNTDOWN_TICK_MS);
    await flush();
    expect(api.methods()).not.toContain('recorder:start');

    await state().start();
    vi.advanceTimersByTime(COUNTDOWN_TICK_MS);
    expect(state().countdownLeft).toBe(2);
    vi.advanceTimersByTime(COUNTDOWN_TICK_MS);
    expect(state().countdownLeft).toBe(1);
    expect(api.methods()).not.toContain('recorder:start');
    vi.advanceTimersByTime(COUNTDOWN_TICK_MS);
    await flush();
    expect(state().countdownLeft).toBeNull();
    expect(api.methods().filter((m) => m === 'recorder:start')).toHaveLength(1);
    expect(recorderSelectors.state(state())).toBe('recording');
  });

  it('a re-read answered after a newer call is dropped', async () => {
    const api = installFakeApi();
    const rec = fakeRecorder(api);
    rec.set(running());
    await state().load();
    api.hold();
    const reread = state().refresh(); // answers "recording" from the state at call time
    const pausing = state().pause();
    await api.release('reversed');
    await Promise.all([reread, pausing]);
    expect(recorderSelectors.state(state())).toBe('paused');
  });

  it('the live clock counts on from the last status while recording, never while paused', () => {
    const s = { ...state(), status: running({ elapsedMs: 10_000 }), statusAtMs: 1000 };
    expect(recorderSelectors.elapsedMs(s, 3500)).toBe(12_500);
    // a silent service does not let the clock run away
    expect(recorderSelectors.elapsedMs(s, 60_000)).toBe(15_000);
    const paused = { ...s, status: running({ state: 'paused', elapsedMs: 10_000 }) };
    expect(recorderSelectors.elapsedMs(paused, 3500)).toBe(10_000);
    expect(recorderSelectors.elapsedMs({ ...s, status: null }, 3500)).toBe(0);
  });
});
