// Privacy store actions: `privacy:scan` of the open recording, the newest scan winning.
import type { StateCreator } from 'zustand';
import { ApiError, getApiClient } from '../../api';
import { initialPrivacyState, type PrivacyError, type PrivacyState } from './initialState';

/** Privacy store actions. */
export type PrivacyActions = {
  /** Scans the recording (again); findings of another recording are dropped at once. */
  scan: (id: string) => Promise<void>;
  /** Forgets everything (another recording opened, tests). */
  clear: () => void;
};

/** The privacy store type. */
export type PrivacyStore = PrivacyState & PrivacyActions;

function shownError(e: unknown): PrivacyError {
  return e instanceof ApiError
    ? { code: e.code, message: e.message, fix: e.fix ?? null }
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}

// The actions slice of the privacy store.
export const createPrivacyActions: StateCreator<PrivacyStore, [], [], PrivacyActions> = (
  set,
  get,
) => ({
  scan: async (id) => {
    const seq = get().scanSeq + 1;
    set((s) => ({
      ...(s.recordingId === id ? s : { ...initialPrivacyState(), recordingId: id }),
      status: 'scanning',
      error: null,
      scanSeq: seq,
    }));
    try {
      const { findings } = await getApiClient().call('privacy:scan', { id });
      if (get().scanSeq === seq) {
        set({ status: 'done', findings, error: null, scannedAtMs: Date.now() });
      }
    } catch (e) {
      if (get().scanSeq === seq) {
        set({ status: 'error', findings: [], error: shownError(e) });
      }
    }
  },
  clear: () => set((s) => ({ ...initialPrivacyState(), scanSeq: s.scanSeq + 1 })),
});
