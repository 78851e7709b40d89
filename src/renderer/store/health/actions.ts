// Health store actions: `system:health` (the doctor's checks with their fixes).
import type { StateCreator } from 'zustand';
import { ApiError, getApiClient } from '../../api';
import type { HealthState } from './initialState';

/** Health store actions. */
export type HealthActions = {
  /** Runs the checks (again). */
  check: () => Promise<void>;
};

/** The health store type. */
export type HealthStore = HealthState & HealthActions;

// The actions slice of the health store.
export const createHealthActions: StateCreator<HealthStore, [], [], HealthActions> = (
  set,
  get,
) => ({
  check: async () => {
    if (get().status === 'loading') {
      return;
    }
    set({ status: 'loading', error: null });
    try {
      const health = await getApiClient().call('system:health', {});
      set({ health, status: 'ready', checkedAtMs: Date.now() });
    } catch (e) {
      set({
        status: 'error',
        error:
          e instanceof ApiError
            ? { code: e.code, message: e.message, fix: e.fix ?? null }
            : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null },
      });
    }
  },
});
