// The team store over a scripted api: the two-step sign-in (a one-time password keeps the form
// on its second step, nothing else is asked of the hub until the new password is set), a submit
// the hub could not take shown as queued with the fix, and errors carrying their fix.
import '../helpers/setup';
import { describe, expect, it } from 'vitest';
import type { TeamStatusDto } from '../../../src/shared/contract';
import { useTeamStore } from '../../../src/renderer/store/team';
import { FakeFailure, installFakeApi } from '../helpers/fake-api';

const state = () => useTeamStore.getState();

function status(patch: Partial<TeamStatusDto> = {}): TeamStatusDto {
  return {
    signedIn: false,
    url: null,
    user: null,
    roles: [],
    tokenPlace: 'a file readable by you only',
    hub: { reachable: false, error: null },
    pending: [],
    reviews: [],
    ...patch,
  };
}

describe('team store', () => {
  it('a one-time password leads to the new-password step; the second step signs in', async () => {
    const api = installFakeApi();
    let signedIn = false;
    api.on('team:status', () =>
      signedIn
        ? status({ signedIn: true, url: 'http://h', user: 'ann', roles: ['annotator'] })
        : status(),
    );
    api.on('team:sign-in', () => ({
      mustChangePassword: true,
      url: 'http://h',
      user: 'ann',
      roles: [],
    }));
    api.on('team:change-password', () => {
      signedIn = true;
      return { mustChangePassword: false, url: 'http://h', user: 'ann', roles: ['annotator'] };
    });
    await state().signIn({ url: 'http://h', user: 'ann', password: 'otp' });
    expect(state().signInForm).toMatchObject({ stage: 'new-password', busy: false, error: null });
    expect(api.methods()).toEqual(['team:sign-in']);
    await state().changePassword('a long new password 42');
    expect(api.calls.find((c) => c.method === 'team:change-password')?.payload).toEqual({
      url: 'http://h',
      user: 'ann',
      password: 'otp',
      newPassword: 'a long new password 42',
    });
    // the password is not kept once signed in
    expect(state().signInForm).toMatchObject({ stage: 'password', pending: null });
    expect(state().status).toMatchObject({ signedIn: true, user: 'ann' });
  });

  it('a refused sign-in stays on the form with the code, message and fix', async () => {
    const api = installFakeApi();
    api.on('team:sign-in', () => {
      throw new FakeFailure(
        'HUB_UNREACHABLE',
        'cannot reach the hub',
        undefined,
        'Check the address.',
      );
    });
    await state().signIn({ url: 'http://h', user: 'ann', password: 'pw' });
    expect(state().signInForm.error).toEqual({
      code: 'HUB_UNREACHABLE',
      message: 'cannot reach the hub',
      fix: 'Check the address.',
    });
  });

  it('a submit the hub could not take is shown as queued, with its error and the pending list', async () => {
    const api = installFakeApi();
    const pending = {
      recording: 'rec-1',
      url: 'http://h',
      queuedAtMs: 1,
      attempts: 1,
      nextAttemptAtMs: 5_000,
      state: 'waiting' as const,
      lastError: { code: 'HUB_UNREACHABLE', message: 'down', fix: 'Check the hub.' },
    };
    api.on('team:submit', () => ({
      submissions: [
        {
          recording: 'rec-1',
          state: 'queued',
          submission: null,
          version: null,
          status: null,
          error: pending.lastError,
        },
      ],
    }));
    api.on('team:status', () => status({ signedIn: true, pending: [pending] }));
    api.on('team:submissions', () => ({
      submissions: [],
      pending: [pending],
      hubError: pending.lastError,
    }));
    await state().submit(['rec-1']);
    expect(state().submits['rec-1']).toMatchObject({ phase: 'done', outcome: { state: 'queued' } });
    expect(state().status?.pending).toHaveLength(1);
    expect(state().submissions?.hubError?.code).toBe('HUB_UNREACHABLE');
  });
});
