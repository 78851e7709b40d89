// Hub store actions: sign-in (with the one-time password's forced change), sign-out, and the
// loads and changes of the hub pages, each one hub method (src/shared/contract/hub.ts).
import type { StateCreator } from 'zustand';
import { ApiError, shownError } from '../../api/api-error';
import { getHubClient } from '../../api/hub-client';
import {
  HUB_PASSWORD_MIN,
  type HubInput,
  type HubMethod,
  type HubOutput,
  type HubRole,
} from '../../../shared/contract/hub';
import {
  AUDIT_PAGE_SIZE,
  initialHubState,
  type HubState,
  type Loadable,
  type ShownSecret,
} from './initialState';

/** Hub store actions. */
export type HubActions = {
  /** Asks the hub who this page's session is (on load). */
  check: () => Promise<void>;
  signIn: (user: string, password: string) => Promise<void>;
  /** Changes the password: the one-time one held from sign-in, or `current` when given. */
  changePassword: (next: string, repeat: string, current?: string) => Promise<void>;
  signOut: () => Promise<void>;
  loadMine: () => Promise<void>;
  loadQueue: () => Promise<void>;
  loadUsers: () => Promise<void>;
  loadTokens: () => Promise<void>;
  /** The audit log's newest page, the next older one, or back to the newer one. */
  loadAudit: (page?: 'newest' | 'older' | 'newer') => Promise<void>;
  setAuditFilter: (filter: { actor: string; action: string }) => Promise<void>;
  addUser: (user: string, roles: HubRole[]) => Promise<boolean>;
  setRoles: (user: string, roles: HubRole[]) => Promise<boolean>;
  resetPassword: (user: string) => Promise<boolean>;
  removeUser: (user: string) => Promise<boolean>;
  createToken: (name: string) => Promise<boolean>;
  revokeToken: (id: number) => Promise<boolean>;
  dismissSecret: () => void;
  dismissTeamMessage: () => void;
};

/** The hub store type. */
export type HubStore = HubState & HubActions;

// The hub's own fixes name CLI flags; on this page the sign-in form is the way
const SIGNED_OUT_NOTICE = 'Your session ended (signed out elsewhere, expired, or removed).';

// The actions slice of the hub store.
export const createHubActions: StateCreator<HubStore, [], [], HubActions> = (set, get) => {
  // the one-time password between sign-in and its change: memory only, never in state
  let oneTimePassword: string | null = null;

  const call = <M extends HubMethod>(method: M, input: HubInput<M>): Promise<HubOutput<M>> =>
    getHubClient().call(method, input);

  // a call that found the session gone or still on its one-time password moves the page there
  const sessionLost = (e: unknown): boolean => {
    if (e instanceof ApiError && e.code === 'UNAUTHORIZED') {
      oneTimePassword = null;
      set({ ...initialHubState(), session: { phase: 'signed-out', notice: SIGNED_OUT_NOTICE } });
      return true;
    }
    if (e instanceof ApiError && e.code === 'PASSWORD_CHANGE_REQUIRED') {
      void get().check();
      return true;
    }
    return false;
  };

  const load = async <K extends 'mine' | 'queue' | 'users' | 'tokens', T>(
    key: K,
    fetcher: () => Promise<T>,
  ) => {
    set({ [key]: { ...get()[key], status: 'loading', error: null } } as Partial<HubState>);
    try {
      const data = await fetcher();
      set({ [key]: { status: 'ready', data, error: null } as Loadable<T> } as Partial<HubState>);
    } catch (e) {
      if (!sessionLost(e)) {
        set({
          [key]: { ...get()[key], status: 'error', error: shownError(e) },
        } as Partial<HubState>);
      }
    }
  };

  // one Team change: busy while it runs, its error or notice after, then the lists again
  const change = async (
    run: () => Promise<{ notice: string; secret?: ShownSecret }>,
  ): Promise<boolean> => {
    set({ teamBusy: true, teamError: null, teamNotice: null });
    try {
      const done = await run();
      set({ teamBusy: false, teamNotice: done.notice, secret: done.secret ?? null });
      return true;
    } catch (e) {
      if (!sessionLost(e)) {
        set({ teamBusy: false, teamError: shownError(e) });
      }
      return false;
    }
  };
  // the lists again, and who I am (my own roles may have changed: the nav follows them)
  const afterPeopleChange = async () => {
    await Promise.all([get().loadUsers(), get().loadAudit('newest'), get().check()]);
  };

  // one whoami at a time: a check asked while one is under way takes its answer (main.tsx
  // checks before React mounts, the shell on mount)
  let checking: Promise<void> | null = null;
  const checkOnce = async () => {
    try {
      const me = await call('auth:whoami', {});
      set({
        session: me.mustChangePassword
          ? { phase: 'must-change', user: me.user, roles: me.roles }
          : { phase: 'signed-in', user: me.user, roles: me.roles },
      });
    } catch (e) {
      set({
        session: { phase: 'signed-out', notice: null },
        ...(e instanceof ApiError && e.code === 'UNAUTHORIZED'
          ? {}
          : { form: { ...get().form, error: shownError(e) } }),
      });
    }
  };

  return {
    check: async () => {
      checking ??= checkOnce().finally(() => {
        checking = null;
      });
      await checking;
    },

    signIn: async (user, password) => {
      if (get().form.busy) {
        return;
      }
      set({ form: { ...get().form, busy: true, error: null } });
      try {
        const me = await call('auth:login', { user: user.trim(), password });
        oneTimePassword = me.mustChangePassword ? password : null;
        set({
          form: {
            busy: false,
            error: null,
            retryAtMs: null,
            hasCurrentPassword: me.mustChangePassword,
          },
          session: me.mustChangePassword
            ? { phase: 'must-change', user: me.user, roles: me.roles }
            : { phase: 'signed-in', user: me.user, roles: me.roles },
        });
      } catch (e) {
        const wait =
          e instanceof ApiError && e.code === 'RATE_LIMITED' ? e.details?.retryAfterSeconds : null;
        const error = shownError(e);
        set({
          form: {
            ...get().form,
            busy: false,
            // a wrong name or password comes without a fix from the hub: say what to do
            error:
              error.code === 'UNAUTHORIZED' && !error.fix
                ? {
                    ...error,
                    fix:
                      'Check the name (lower-case) and the password; an admin can give you a ' +
                      'new one-time password.',
                  }
                : error,
            retryAtMs: typeof wait === 'number' ? Date.now() + wait * 1000 : null,
          },
        });
      }
    },

    changePassword: async (next, repeat, current) => {
      const fail = (message: string, fix: string) =>
        set({ form: { ...get().form, busy: false, error: { code: 'USAGE', message, fix } } });
      if (next !== repeat) {
        fail('The two new passwords differ.', 'Type the same new password twice.');
        return;
      }
      if (next.length < HUB_PASSWORD_MIN) {
        fail(
          `The new password is too short (${next.length} characters).`,
          `Use at least ${HUB_PASSWORD_MIN} characters; a few unrelated words work well.`,
        );
        return;
      }
      const held = current ?? oneTimePassword;
      if (!held) {
        fail('The current password is needed.', 'Type the one-time password you signed in with.');
        return;
      }
      set({ form: { ...get().form, busy: true, error: null } });
      try {
        await call('auth:change-password', { current: held, next });
        oneTimePassword = null;
        set({ form: { ...initialHubState().form } });
        await get().check();
      } catch (e) {
        set({ form: { ...get().form, busy: false, error: shownError(e) } });
      }
    },

    signOut: async () => {
      try {
        await call('auth:logout', {});
      } catch {
        // an ended session is signed out either way
      }
      oneTimePassword = null;
      set({ ...initialHubState(), session: { phase: 'signed-out', notice: 'Signed out.' } });
    },

    loadMine: () => load('mine', async () => (await call('submissions:mine', {})).submissions),
    loadQueue: () => load('queue', () => call('review:queue', {})),
    loadUsers: () =>
      load('users', async () => (await call('users:list', { includeRemoved: true })).users),
    loadTokens: () => load('tokens', async () => (await call('tokens:list', {})).tokens),

    loadAudit: async (page = 'newest') => {
      const audit = get().audit;
      const cursors =
        page === 'newest'
          ? [null]
          : page === 'older'
            ? [...audit.cursors, audit.data?.[audit.data.length - 1]?.id ?? null]
            : audit.cursors.slice(0, Math.max(1, audit.cursors.length - 1));
      const before = cursors[cursors.length - 1] ?? null;
      set({ audit: { ...audit, status: 'loading', error: null } });
      try {
        const { actor, action } = audit.filter;
        const { entries } = await call('audit:list', {
          // one more than shown tells whether an older page exists
          limit: AUDIT_PAGE_SIZE + 1,
          ...(actor.trim() ? { actor: actor.trim() } : {}),
          ...(action.trim() ? { action: action.trim() } : {}),
          ...(before !== null ? { before } : {}),
        });
        set({
          audit: {
            ...get().audit,
            status: 'ready',
            data: entries.slice(0, AUDIT_PAGE_SIZE),
            error: null,
            cursors,
            hasOlder: entries.length > AUDIT_PAGE_SIZE,
          },
        });
      } catch (e) {
        if (!sessionLost(e)) {
          set({ audit: { ...get().audit, status: 'error', error: shownError(e) } });
        }
      }
    },

    setAuditFilter: async (filter) => {
      set({ audit: { ...get().audit, filter } });
      await get().loadAudit('newest');
    },

    addUser: async (user, roles) => {
      const ok = await change(async () => {
        const added = await call('users:add', { user: user.trim(), roles });
        return {
          notice: `${added.user} added (${added.roles.join(', ')}).`,
          secret: {
            kind: 'password',
            label: `One-time password of ${added.user}`,
            value: added.password,
          },
        };
      });
      await afterPeopleChange();
      return ok;
    },
    setRoles: async (user, roles) => {
      const ok = await change(async () => {
        const r = await call('users:set-roles', { user, roles });
        return { notice: `${r.user}: ${r.before.join(', ')} → ${r.roles.join(', ')}.` };
      });
      await afterPeopleChange();
      return ok;
    },
    resetPassword: async (user) => {
      const ok = await change(async () => {
        const r = await call('users:reset-password', { user });
        return {
          notice: `${r.user} has a new one-time password.`,
          secret: { kind: 'password', label: `One-time password of ${r.user}`, value: r.password },
        };
      });
      await afterPeopleChange();
      return ok;
    },
    removeUser: async (user) => {
      const ok = await change(async () => {
        const r = await call('users:remove', { user });
        return {
          notice: `${r.user} removed; ${r.tokensRevoked} token${r.tokensRevoked === 1 ? '' : 's'} revoked.`,
        };
      });
      await afterPeopleChange();
      return ok;
    },
    createToken: async (name) => {
      const ok = await change(async () => {
        const r = await call('tokens:create', { name: name.trim() });
        return {
          notice: `Token “${r.name}” created.`,
          secret: { kind: 'token', label: `API token “${r.name}”`, value: r.token },
        };
      });
      await Promise.all([get().loadTokens(), get().loadAudit('newest')]);
      return ok;
    },
    revokeToken: async (id) => {
      const ok = await change(async () => {
        await call('tokens:revoke', { id });
        return { notice: `Token ${id} revoked.` };
      });
      await Promise.all([get().loadTokens(), get().loadAudit('newest')]);
      return ok;
    },
    dismissSecret: () => set({ secret: null }),
    dismissTeamMessage: () => set({ teamError: null, teamNotice: null }),
  };
};
