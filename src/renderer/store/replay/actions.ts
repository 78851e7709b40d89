// Replay store actions: `replay:status` of the open recording when its page opens (the last
// report shows at once), `replay:start` on the settings' display, `replay:cancel`, and a poll of
// the status every {@link REPLAY_POLL_MS} while a run is under way.
import type { StateCreator } from 'zustand';
import type { ReplayStatusDto } from '../../../shared/contract';
import { ApiError, getApiClient } from '../../api';
import { initialReplayState, type ReplayError, type ReplayState } from './initialState';

/** How often the status is asked for while a replay runs, ms. */
export const REPLAY_POLL_MS = 500;

/** Replay store actions. */
export type ReplayActions = {
  /** Loads the replay status of recording `id` (another recording's state is dropped). */
  load: (id: string) => Promise<void>;
  /** Starts a replay of `id` at the chosen pace; progress is polled until it ends. */
  start: (id: string) => Promise<void>;
  /** Stops the replay of `id` under way. */
  cancel: (id: string) => Promise<void>;
  setSpeed: (speed: number) => void;
  /** Shows result `index` side by side (null: the first divergent one). */
  select: (index: number | null) => void;
  /** Stops polling and forgets everything (the page closed, tests). */
  clear: () => void;
};

/** The replay store type. */
export type ReplayStore = ReplayState & ReplayActions;

function shownError(e: unknown): ReplayError {
  return e instanceof ApiError
    ? { code: e.code, message: e.message, fix: e.fix ?? null }
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}

// The actions slice of the replay store.
export const createReplayActions: StateCreator<ReplayStore, [], [], ReplayActions> = (set, get) => {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stopPolling = () => {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
  };
  // takes an answer for `id` (if it is still the recording shown) and polls on while it runs
  const take = (id: string, status: ReplayStatusDto) => {
    if (get().recordingId !== id) {
      return;
    }
    const wasRunning = get().status?.running ?? false;
    set({
      status,
      loadStatus: 'ready',
      // a run that just ended shows its first divergent result
      ...(wasRunning && !status.running ? { selectedIndex: null } : {}),
    });
    stopPolling();
    if (status.running) {
      timer = setTimeout(() => {
        timer = null;
        void poll(id);
      }, REPLAY_POLL_MS);
    }
  };
  const poll = async (id: string) => {
    try {
      take(id, await getApiClient().call('replay:status', { id }));
    } catch (e) {
      if (get().recordingId === id) {
        set({ error: shownError(e) });
      }
    }
  };
  return {
    load: async (id) => {
      if (get().recordingId !== id) {
        stopPolling();
        set({ ...initialReplayState(), speed: get().speed, recordingId: id });
      }
      set({ loadStatus: 'loading' });
      try {
        take(id, await getApiClient().call('replay:status', { id }));
      } catch (e) {
        if (get().recordingId === id) {
          set({ loadStatus: 'error', error: shownError(e) });
        }
      }
    },
    start: async (id) => {
      if (get().busy !== null || get().recordingId !== id) {
        return;
      }
      set({ busy: 'starting', error: null, selectedIndex: null });
      try {
        const status = await getApiClient().call('replay:start', { id, speed: get().speed });
        take(id, status);
      } catch (e) {
        if (get().recordingId === id) {
          set({ error: shownError(e) });
          // the answer may name a setting changed meanwhile: show the status as it is now
          void poll(id);
        }
      } finally {
        set({ busy: null });
      }
    },
    cancel: async (id) => {
      if (get().busy !== null) {
        return;
      }
      set({ busy: 'cancelling' });
      try {
        take(id, await getApiClient().call('replay:cancel', { id }));
      } catch (e) {
        if (get().recordingId === id) {
          set({ error: shownError(e) });
        }
      } finally {
        set({ busy: null });
      }
    },
    setSpeed: (speed) => set({ speed }),
    select: (index) => set({ selectedIndex: index }),
    clear: () => {
      stopPolling();
      set(initialReplayState());
    },
  };
};
