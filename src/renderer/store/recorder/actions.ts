// Recorder store actions: `recorder:get-status` on load, `recorder:start` (after the optional
// countdown), pause, resume, stop, discard (after a confirmation), and `recorder:status-changed`
// events. The service owns the recorder; this store is a view of its status.
import type { StateCreator } from 'zustand';
import type { RecorderStatusDto } from '../../../shared/contract';
import { getApiClient } from '../../api';
import type { RecorderCall, RecorderViewState } from './initialState';
import { applyStatus, recorderError } from './reducers';

/** Recorder store actions. */
export type RecorderActions = {
  /** Reads the recorder's status and the countdown setting (a reload finds a recording going). */
  load: () => Promise<void>;
  /** Re-reads the status (a failure keeps what is shown: the next event or load tells). */
  refresh: () => Promise<void>;
  setTask: (task: string) => void;
  /** Records for a claimed team task (its instruction becomes the task), or for none. */
  setTeamTask: (task: { id: number; instruction: string; expiresAtMs: number } | null) => void;
  /** Starts a recording of the typed task, after the countdown when one is set. */
  start: () => Promise<void>;
  /** Stops the countdown before the recording starts. */
  cancelCountdown: () => void;
  pause: () => Promise<void>;
  resume: () => Promise<void>;
  stop: () => Promise<void>;
  /** Opens the discard confirmation. */
  askDiscard: () => void;
  /** Closes the discard confirmation, keeping the recording. */
  cancelDiscard: () => void;
  /** Throws the running recording away (after the confirmation). */
  discard: () => Promise<void>;
  /** Applies a pushed `recorder:status-changed`. */
  onStatus: (status: RecorderStatusDto) => void;
  /** Forgets the saved recording once the page has opened it. */
  clearSaved: () => void;
  dismissError: () => void;
  /** Stops the countdown timer (store reset). */
  dispose: () => void;
};

/** The recorder store type. */
export type RecorderStore = RecorderViewState & RecorderActions;

/** One countdown tick, ms. */
export const COUNTDOWN_TICK_MS = 1000;

const CALL_METHODS = {
  start: 'recorder:start',
  pause: 'recorder:pause',
  resume: 'recorder:resume',
  stop: 'recorder:stop',
  discard: 'recorder:discard',
} as const satisfies Record<RecorderCall, string>;

// The actions slice of the recorder store.
export const createRecorderActions: StateCreator<RecorderStore, [], [], RecorderActions> = (
  set,
  get,
) => {
  let countdownTimer: ReturnType<typeof setTimeout> | null = null;
  // bumped by every recorder call: a re-read sent before one answers an older question
  let callCount = 0;
  const clearCountdown = () => {
    if (countdownTimer !== null) {
      clearTimeout(countdownTimer);
      countdownTimer = null;
    }
  };
  const take = (status: RecorderStatusDto) => {
    const merged = applyStatus(get(), status, Date.now());
    if (merged) {
      set(merged);
    }
  };
  // one recorder call: busy while it runs, its answer merged, its failure shown
  const call = async (which: RecorderCall): Promise<boolean> => {
    if (get().busy !== null) {
      return false;
    }
    callCount += 1;
    set({ busy: which, error: null, notice: null });
    try {
      const status =
        which === 'start'
          ? await getApiClient().call(CALL_METHODS.start, {
              task: get().task.trim(),
              ...(get().teamTask ? { teamTaskId: get().teamTask!.id } : {}),
            })
          : await getApiClient().call(CALL_METHODS[which], {});
      take(status);
      return true;
    } catch (e) {
      set({ error: recorderError(e) });
      return false;
    } finally {
      set({ busy: null });
    }
  };
  const tick = () => {
    const left = (get().countdownLeft ?? 0) - 1;
    if (left > 0) {
      set({ countdownLeft: left });
      countdownTimer = setTimeout(tick, COUNTDOWN_TICK_MS);
      return;
    }
    countdownTimer = null;
    set({ countdownLeft: null });
    void call('start');
  };
  return {
    load: async () => {
      set({ loadStatus: 'loading' });
      const api = getApiClient();
      const [status, settings] = await Promise.allSettled([
        api.call('recorder:get-status', {}),
        api.call('settings:get', {}),
      ]);
      if (settings.status === 'fulfilled') {
        set({ countdownS: settings.value.countdownS });
      }
      if (status.status === 'fulfilled') {
        take(status.value);
        set({ loadStatus: 'ready' });
      } else {
        set({ loadStatus: 'error', error: recorderError(status.reason) });
      }
    },
    refresh: async () => {
      const asked = callCount;
      try {
        const status = await getApiClient().call('recorder:get-status', {});
        if (asked === callCount && get().busy === null) {
          take(status);
        }
      } catch {
        // shown state stays; load() and the actions report failures
      }
    },
    setTask: (task) => set({ task }),
    setTeamTask: (t) =>
      set(
        t
          ? { task: t.instruction, teamTask: { id: t.id, expiresAtMs: t.expiresAtMs } }
          : { teamTask: null },
      ),
    start: async () => {
      const s = get();
      if (
        s.task.trim() === '' ||
        s.busy !== null ||
        s.countdownLeft !== null ||
        (s.status !== null && s.status.state !== 'idle')
      ) {
        return;
      }
      set({ error: null, notice: null, savedRecordingId: null });
      if (s.countdownS > 0) {
        set({ countdownLeft: s.countdownS });
        countdownTimer = setTimeout(tick, COUNTDOWN_TICK_MS);
        return;
      }
      await call('start');
    },
    cancelCountdown: () => {
      clearCountdown();
      set({ countdownLeft: null });
    },
    pause: async () => {
      await call('pause');
    },
    resume: async () => {
      await call('resume');
    },
    stop: async () => {
      await call('stop');
    },
    askDiscard: () => set({ isConfirmingDiscard: true }),
    cancelDiscard: () => set({ isConfirmingDiscard: false }),
    discard: async () => {
      set({ isConfirmingDiscard: false });
      if (await call('discard')) {
        set({ notice: 'The recording was discarded: nothing of it was kept.' });
      }
    },
    onStatus: (status) => take(status),
    clearSaved: () => set({ savedRecordingId: null }),
    dismissError: () => set({ error: null }),
    dispose: () => clearCountdown(),
  };
};
