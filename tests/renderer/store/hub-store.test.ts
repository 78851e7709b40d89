// The hub pages' store (src/renderer/store/hub) over a fake hub transport: the sign-in with the
// one-time password's forced change (the held password is the `current` one), RATE_LIMITED's
// wait, a session that ended moving the page to the sign-in form, the audit log's paging
// cursors, the pages a person's roles open, an annotator's own counts, and an answer of the
// wrong shape refused.
import '../helpers/setup';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHubClient,
  setHubClient,
  type HubTransport,
} from '../../../src/renderer/api/hub-client';
import { hubSelectors, resetHubStore, useHubStore } from '../../../src/renderer/store/hub';
import type { WireResult } from '../../../src/renderer/api';

type Handler = (payload: Record<string, unknown>) => WireResult;

function fakeHub(handlers: Record<string, Handler>) {
  const calls: { method: string; payload: Record<string, unknown> }[] = [];
  const transport: HubTransport = {
    kind: 'fake',
    invoke: (method, payload) => {
      calls.push({ method, payload: payload as Record<string, unknown> });
      const h = handlers[method];
      return Promise.resolve(
        h
          ? h(payload as Record<string, unknown>)
          : { ok: false, error: { code: 'UNKNOWN_METHOD', message: method } },
      );
    },
  };
  setHubClient(createHubClient(transport));
  return calls;
}

const ok = (value: unknown): WireResult => ({ ok: true, value });
const err = (code: string, message: string, extra: Record<string, unknown> = {}): WireResult => ({
  ok: false,
  error: { code, message, ...extra },
});
const state = () => useHubStore.getState();

afterEach(() => {
  resetHubStore();
  setHubClient(null);
});

describe('hub store', () => {
  it('signs in with a one-time password, must change it (the held one is sent as current), then is signed in', async () => {
    let changed = false;
    const calls = fakeHub({
      'auth:login': () =>
        ok({ user: 'alice', roles: ['annotator'], mustChangePassword: true, expiresAtMs: 1 }),
      'auth:change-password': () => {
        changed = true;
        return ok({ user: 'alice' });
      },
      'auth:whoami': () =>
        ok({ user: 'alice', roles: ['annotator'], mustChangePassword: !changed, via: 'session' }),
    });
    await state().signIn(' alice ', 'abcd-efgh');
    expect(state().session).toEqual({ phase: 'must-change', user: 'alice', roles: ['annotator'] });
    expect(state().form.hasCurrentPassword).toBe(true);
    // the password is held in memory, never in the state
    expect(JSON.stringify(state())).not.toContain('abcd-efgh');

    await state().changePassword('one long password', 'another long password');
    expect(state().form.error).toMatchObject({
      code: 'USAGE',
      message: 'The two new passwords differ.',
    });
    await state().changePassword('short', 'short');
    expect(state().form.error?.fix).toContain('at least 12 characters');
    expect(calls.map((c) => c.method)).toEqual(['auth:login']);

    await state().changePassword('one long password', 'one long password');
    expect(calls.find((c) => c.method === 'auth:change-password')?.payload).toEqual({
      current: 'abcd-efgh',
      next: 'one long password',
    });
    expect(calls[0]?.payload).toEqual({ user: 'alice', password: 'abcd-efgh' });
    expect(state().session).toEqual({ phase: 'signed-in', user: 'alice', roles: ['annotator'] });
    expect(state().form).toMatchObject({ error: null, hasCurrentPassword: false });
  });

  it('RATE_LIMITED keeps its wait; a wrong password shows the hub’s error and fix', async () => {
    let limited = false;
    fakeHub({
      'auth:login': () =>
        limited
          ? err('RATE_LIMITED', 'too many failed sign-ins for "ghost"; try again in 30 s', {
              details: { retryAfterSeconds: 30, limit: 'account' },
              fix: 'Wait and try again.',
            })
          : err('UNAUTHORIZED', 'wrong name or password'),
    });
    await state().signIn('ghost', 'x');
    expect(state().form.error).toEqual({
      code: 'UNAUTHORIZED',
      message: 'wrong name or password',
      fix: 'Check the name (lower-case) and the password; an admin can give you a new one-time password.',
    });
    expect(state().form.retryAtMs).toBeNull();
    limited = true;
    const before = Date.now();
    await state().signIn('ghost', 'x');
    expect(state().form.error).toMatchObject({ code: 'RATE_LIMITED', fix: 'Wait and try again.' });
    expect(hubSelectors.waitSeconds(state(), before)).toBe(30);
    expect(hubSelectors.waitSeconds(state(), before + 31_000)).toBe(0);
  });

  it('a session that ended sends the page back to the sign-in form, its data cleared', async () => {
    let alive = true;
    fakeHub({
      'auth:whoami': () =>
        ok({ user: 'rob', roles: ['reviewer'], mustChangePassword: false, via: 'session' }),
      'review:queue': () =>
        alive
          ? ok({ waiting: { total: 2, own: 0, oldestSinceMs: 5 }, mine: [], done: [] })
          : err('UNAUTHORIZED', 'the session has ended'),
    });
    await state().check();
    await state().loadQueue();
    expect(state().queue.data?.waiting.total).toBe(2);
    alive = false;
    await state().loadQueue();
    expect(state().session).toMatchObject({ phase: 'signed-out' });
    expect(state().queue.data).toBeNull();
  });

  it('pages the audit log: one more than shown tells whether older rows exist; older and newer move the cursor', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => ({
      id: 60 - i,
      atMs: 1,
      actor: 'boss',
      action: 'user.add',
      target: null,
      client: 'web',
      details: {},
    }));
    const calls = fakeHub({
      'audit:list': (p) => {
        const before = typeof p.before === 'number' ? p.before : Infinity;
        return ok({ entries: rows.filter((r) => r.id < before).slice(0, p.limit as number) });
      },
    });
    await state().loadAudit('newest');
    expect(
      state()
        .audit.data?.map((r) => r.id)
        .slice(0, 2),
    ).toEqual([60, 59]);
    expect(state().audit.data).toHaveLength(25);
    expect(state().audit.hasOlder).toBe(true);
    await state().loadAudit('older');
    expect(calls.at(-1)?.payload).toEqual({ limit: 26, before: 36 });
    expect(state().audit.data?.[0]?.id).toBe(35);
    await state().loadAudit('older');
    expect(state().audit.data?.map((r) => r.id)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(state().audit.hasOlder).toBe(false);
    await state().loadAudit('newer');
    expect(state().audit.data?.[0]?.id).toBe(35);
    await state().setAuditFilter({ actor: ' boss ', action: 'user' });
    expect(calls.at(-1)?.payload).toEqual({ limit: 26, actor: 'boss', action: 'user' });
    expect(state().audit.cursors).toEqual([null]);
  });

  it('the pages a person’s roles open, and the one a hash shows', () => {
    const session = { phase: 'signed-in', user: 'x', roles: ['admin', 'annotator'] } as const;
    const s = { session: { ...session, roles: [...session.roles] } };
    expect(hubSelectors.pages(s).map((p) => p.page)).toEqual([
      'submissions',
      'team',
      'tasks',
      'dashboard',
    ]);
    // the Dashboard is the admins' alone
    expect(
      hubSelectors
        .pages({ session: { ...session, roles: ['annotator'] } })
        .some((p) => p.page === 'dashboard'),
    ).toBe(false);
    // Tasks opens for annotators and admins alike, once
    for (const roles of [['annotator'], ['admin']] as const) {
      const one = { session: { ...session, roles: [...roles] } };
      expect(hubSelectors.pages(one).filter((p) => p.page === 'tasks')).toHaveLength(1);
    }
    expect(
      hubSelectors.pages({ session: { ...session, roles: ['reviewer'] } }).map((p) => p.page),
    ).toEqual(['review']);
    expect(hubSelectors.pageOf(s, '#/team')).toBe('team');
    // a page the roles do not open falls back to the first one they do
    expect(hubSelectors.pageOf(s, '#/review')).toBe('submissions');
    expect(hubSelectors.pageOf({ session: { phase: 'checking' } }, '#/team')).toBeNull();
  });

  it('an annotator’s own counts: submissions by status and the acceptance rate of the final verdicts', async () => {
    const row = (id: number, status: string) => ({
      id,
      recording: `rec-${id}`,
      task: 't',
      taskId: null,
      version: 1,
      status,
      grade: null,
      feedback: null,
      reviewer: null,
      verdictVersion: null,
      updatedAtMs: 1_764_000_000_000 + id,
    });
    fakeHub({
      'submissions:mine': () =>
        ok({
          submissions: [
            row(1, 'accepted'),
            row(2, 'accepted'),
            row(3, 'accepted'),
            row(4, 'rejected'),
            row(5, 'changes'),
            row(6, 'submitted'),
          ],
        }),
    });
    await state().loadMine();
    expect(hubSelectors.mySummary(state().mine.data!)).toEqual({
      total: 6,
      byStatus: { accepted: 3, rejected: 1, changes: 1, submitted: 1 },
      accepted: 3,
      rejected: 1,
      // changes and waiting ones are no final verdict: 3 of 4
      acceptanceRate: 0.75,
    });
    // before any final verdict there is no rate (not 0 %)
    expect(hubSelectors.mySummary([{ status: 'changes' }, { status: 'submitted' }])).toMatchObject({
      accepted: 0,
      rejected: 0,
      acceptanceRate: null,
    });
    expect(hubSelectors.mySummary([])).toEqual({
      total: 0,
      byStatus: {},
      accepted: 0,
      rejected: 0,
      acceptanceRate: null,
    });
  });

  it('two sign-in checks at once ask once (main.tsx checks before mount, the shell on mount); a later one asks again', async () => {
    let roles = ['admin'];
    const calls = fakeHub({
      'auth:whoami': () => ok({ user: 'boss', roles, mustChangePassword: false, via: 'session' }),
    });
    await Promise.all([state().check(), state().check()]);
    expect(calls.filter((c) => c.method === 'auth:whoami')).toHaveLength(1);
    expect(state().session).toEqual({ phase: 'signed-in', user: 'boss', roles: ['admin'] });
    roles = ['admin', 'reviewer'];
    await state().check();
    expect(calls.filter((c) => c.method === 'auth:whoami')).toHaveLength(2);
    expect(state().session).toMatchObject({ roles: ['admin', 'reviewer'] });
  });

  it('an answer of another shape is BAD_RESPONSE, not data', async () => {
    fakeHub({ 'submissions:mine': () => ok({ submissions: [{ id: 'one' }] }) });
    await state().loadMine();
    expect(state().mine).toMatchObject({ status: 'error', data: null });
    expect(state().mine.error?.code).toBe('BAD_RESPONSE');
  });
});
