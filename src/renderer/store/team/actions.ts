// Team store actions over the `team:*` contract methods (src/shared/contract/team.ts).
import type { StateCreator } from 'zustand';
import type { ApiEvents, ApiMethods } from '../../../shared/contract';
import { getApiClient } from '../../api';
import { shownError } from '../../api/api-error';
import { initialTeamState, type TeamState } from './initialState';

/** Team store actions. */
export type TeamActions = {
  loadStatus: () => Promise<void>;
  /** First step of the sign-in; an account with a one-time password goes to the second. */
  signIn: (input: { url: string; user: string; password: string }) => Promise<void>;
  /** Second step: the one-time password replaced by `newPassword`. */
  changePassword: (newPassword: string) => Promise<void>;
  /** Back to the first step of the sign-in. */
  resetSignIn: () => void;
  signOut: () => Promise<void>;
  loadSubmissions: () => Promise<void>;
  /** Submits recordings; each one's state in `submits`. */
  submit: (ids: string[]) => Promise<void>;
  cancelPending: (id: string) => Promise<void>;
  /** Takes the next submission for review; answers its recording id (null: none waits). */
  takeNext: () => Promise<string | null>;
  sendVerdict: (input: ApiMethods['team:verdict']['input']) => Promise<void>;
  /** A `team:changed` push: what the page shows is read again. */
  onChanged: (event: ApiEvents['team:changed']) => void;
};

/** The team store type. */
export type TeamStore = TeamState & TeamActions;

// An error as the team pages show it (with the service's fix).
export { shownError };

// The actions.
export const createTeamActions: StateCreator<TeamStore, [], [], TeamActions> = (set, get) => ({
  loadStatus: async () => {
    set({ statusLoad: 'loading' });
    try {
      const status = await getApiClient().call('team:status', {});
      set({ status, statusLoad: 'ready', statusError: null });
    } catch (e) {
      set({ statusLoad: 'ready', statusError: shownError(e) });
    }
  },
  signIn: async (input) => {
    set({ signInForm: { ...get().signInForm, busy: true, error: null } });
    try {
      const r = await getApiClient().call('team:sign-in', input);
      set({
        signInForm: r.mustChangePassword
          ? { stage: 'new-password', busy: false, error: null, pending: input }
          : initialTeamState().signInForm,
      });
      if (!r.mustChangePassword) {
        await get().loadStatus();
      }
    } catch (e) {
      set({ signInForm: { ...get().signInForm, busy: false, error: shownError(e) } });
    }
  },
  changePassword: async (newPassword) => {
    const pending = get().signInForm.pending;
    if (!pending) {
      return;
    }
    set({ signInForm: { ...get().signInForm, busy: true, error: null } });
    try {
      await getApiClient().call('team:change-password', { ...pending, newPassword });
      set({ signInForm: initialTeamState().signInForm });
      await get().loadStatus();
    } catch (e) {
      set({ signInForm: { ...get().signInForm, busy: false, error: shownError(e) } });
    }
  },
  resetSignIn: () => set({ signInForm: initialTeamState().signInForm }),
  signOut: async () => {
    try {
      await getApiClient().call('team:sign-out', {});
      set({ submissions: null, submissionsLoad: 'idle' });
      await get().loadStatus();
    } catch (e) {
      set({ statusError: shownError(e) });
    }
  },
  loadSubmissions: async () => {
    set({ submissionsLoad: 'loading' });
    try {
      const submissions = await getApiClient().call('team:submissions', {});
      set({ submissions, submissionsLoad: 'ready' });
    } catch (e) {
      set({
        submissionsLoad: 'ready',
        submissions: { submissions: [], pending: [], hubError: shownErrorDto(e) },
      });
    }
  },
  submit: async (ids) => {
    set({
      submits: {
        ...get().submits,
        ...Object.fromEntries(ids.map((id) => [id, { phase: 'submitting' as const }])),
      },
    });
    try {
      const { submissions } = await getApiClient().call('team:submit', { ids });
      set({
        submits: {
          ...get().submits,
          ...Object.fromEntries(
            submissions.map((o) => [o.recording, { phase: 'done' as const, outcome: o }]),
          ),
        },
      });
    } catch (e) {
      const error = shownError(e);
      set({
        submits: {
          ...get().submits,
          ...Object.fromEntries(ids.map((id) => [id, { phase: 'error' as const, error }])),
        },
      });
    }
    await Promise.all([get().loadStatus(), get().loadSubmissions()]);
  },
  cancelPending: async (id) => {
    try {
      await getApiClient().call('team:cancel-pending', { id });
    } catch (e) {
      set({ statusError: shownError(e) });
    }
    await Promise.all([get().loadStatus(), get().loadSubmissions()]);
  },
  takeNext: async () => {
    set({ review: { busy: true, error: null, taken: null } });
    try {
      const taken = await getApiClient().call('team:review-next', {});
      set({ review: { busy: false, error: null, taken } });
      void get().loadStatus();
      return taken.submission?.recording ?? null;
    } catch (e) {
      set({ review: { busy: false, error: shownError(e), taken: null } });
      return null;
    }
  },
  sendVerdict: async (input) => {
    set({ verdict: { busy: true, error: null, sent: null } });
    try {
      const sent = await getApiClient().call('team:verdict', input);
      set({ verdict: { busy: false, error: null, sent } });
      void get().loadStatus();
    } catch (e) {
      set({ verdict: { busy: false, error: shownError(e), sent: null } });
    }
  },
  onChanged: () => {
    void get().loadStatus();
    if (get().submissionsLoad !== 'idle') {
      void get().loadSubmissions();
    }
  },
});

// shownError in the contract's error shape (fix optional instead of null).
function shownErrorDto(e: unknown): { code: string; message: string; fix?: string } {
  const s = shownError(e);
  return { code: s.code, message: s.message, ...(s.fix ? { fix: s.fix } : {}) };
}
