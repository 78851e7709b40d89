// The one role table decides every request: a table-driven walk over every hub method × every
// caller (nobody, annotator, reviewer, admin) expecting exactly what HUB_ROLE_TABLE says —
// 401 for nobody on a signed-in method, 403 for a role the table does not name, and anything
// but 401/403 for the others. Every method of the contract must have a rule and a handler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUB_HANDLERS } from '../../../src/hub/http/methods';
import {
  HUB_METHOD_SCHEMAS,
  HUB_METHODS,
  HUB_ROLE_TABLE,
  HUB_ROLES,
  type HubRole,
} from '../../../src/shared/contract/hub';
import { startHubFixture, type HubFixture } from './hub-fixture';

let hub: HubFixture;

beforeAll(async () => {
  hub = await startHubFixture();
}, 120_000);

afterAll(async () => {
  await hub?.close();
});

type Caller = HubRole | 'none';
const CALLERS: Caller[] = ['none', ...HUB_ROLES];

function expected(method: keyof typeof HUB_ROLE_TABLE, caller: Caller): 401 | 403 | 'allowed' {
  const rule = HUB_ROLE_TABLE[method];
  if (rule === 'public') {
    return 'allowed';
  }
  if (caller === 'none') {
    return 401;
  }
  if (rule === 'any-signed-in') {
    return 'allowed';
  }
  return rule.includes(caller) ? 'allowed' : 403;
}

describe('hub authorisation', () => {
  it('every method of the contract has a rule in HUB_ROLE_TABLE and a handler, and nothing else has', () => {
    const methods = Object.keys(HUB_METHOD_SCHEMAS).sort();
    expect(HUB_METHODS.slice().sort()).toEqual(methods);
    expect(Object.keys(HUB_ROLE_TABLE).sort()).toEqual(methods);
    expect(Object.keys(HUB_HANDLERS).sort()).toEqual(methods);
    for (const m of methods) {
      const rule = HUB_ROLE_TABLE[m as keyof typeof HUB_ROLE_TABLE];
      expect(
        rule === 'public' ||
          rule === 'any-signed-in' ||
          (Array.isArray(rule) && rule.length > 0 && rule.every((r) => HUB_ROLES.includes(r))),
        `${m}: ${JSON.stringify(rule)}`,
      ).toBe(true);
    }
  });

  // each cell gets its own token, so a call that changes the caller (auth:logout revokes the
  // token it came with) cannot affect another cell; payloads are {}: allowed calls that need
  // input answer 400 INVALID_PAYLOAD, after the role check, and change nothing
  it('every method × caller answers exactly as HUB_ROLE_TABLE says', async () => {
    const seen: string[] = [];
    const wrong: string[] = [];
    for (const method of HUB_METHODS) {
      for (const caller of CALLERS) {
        const token = caller === 'none' ? undefined : await hub.token(caller);
        const reply = await hub.call(method, {}, { token });
        const want = expected(method, caller);
        const got = reply.status === 401 || reply.status === 403 ? reply.status : 'allowed';
        seen.push(`${method} ${caller} ${String(got)}`);
        if (got !== want) {
          wrong.push(
            `${method} as ${caller}: want ${String(want)}, got ${reply.status} ${JSON.stringify(reply.body)}`,
          );
        }
        if (want === 401) {
          expect(reply.body.error?.code).toBe('UNAUTHORIZED');
        } else if (want === 403) {
          expect(reply.body.error?.code).toBe('FORBIDDEN');
          expect(reply.body.error?.message).toContain(method);
        } else if (!reply.body.ok) {
          // allowed but refused for its input (or, for login, its wrong/missing password)
          expect(['INVALID_PAYLOAD', 'UNAUTHORIZED']).toContain(reply.body.error?.code);
          if (reply.body.error?.code === 'UNAUTHORIZED') {
            expect(method).toBe('auth:login');
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(seen).toHaveLength(HUB_METHODS.length * CALLERS.length);
    // the table is not trivially open: some cell is refused with each of 401 and 403
    expect(seen.some((s) => s.endsWith(' 401'))).toBe(true);
    expect(seen.some((s) => s.endsWith(' 403'))).toBe(true);
  }, 120_000);

  it('an unknown method is 404 UNKNOWN_METHOD, signed in or not', async () => {
    const anon = await hub.call('submissions:teleport', {});
    expect([anon.status, anon.body.error?.code]).toEqual([404, 'UNKNOWN_METHOD']);
    const admin = await hub.call('users:drop-all', {}, { token: await hub.token('admin') });
    expect([admin.status, admin.body.error?.code]).toEqual([404, 'UNKNOWN_METHOD']);
  });

  it('a bad or revoked credential is 401, never treated as anonymous', async () => {
    const forged = await hub.call(
      'auth:login',
      { user: 'ann', password: 'x' },
      {
        token: 'cuah_forged',
      },
    );
    expect([forged.status, forged.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    const token = await hub.token('annotator');
    const me = await hub.call('auth:whoami', {}, { token });
    expect(me.body).toEqual({
      ok: true,
      value: { user: 'ann', roles: ['annotator'], mustChangePassword: true, via: 'token' },
    });
    const list = await hub.call('tokens:list', {}, { token });
    const id = (list.body.value.tokens as { id: number; name: string }[])[0]!.id;
    const revoked = await hub.call('tokens:revoke', { id }, { token });
    expect(revoked.body).toEqual({ ok: true, value: { id, revoked: true } });
    // the very next request with it
    const after = await hub.call('auth:whoami', {}, { token });
    expect([after.status, after.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(after.body.error?.message).toContain('revoked');
  });

  it('tokens:revoke on another account’s token is NOT_FOUND and leaves it working', async () => {
    const annToken = await hub.token('annotator');
    const revToken = await hub.token('reviewer');
    const revList = await hub.call('tokens:list', {}, { token: revToken });
    const revId = (revList.body.value.tokens as { id: number; revokedAtMs: number | null }[]).find(
      (t) => t.revokedAtMs === null,
    )!.id;
    const refused = await hub.call('tokens:revoke', { id: revId }, { token: annToken });
    expect([refused.status, refused.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    const still = await hub.call('auth:whoami', {}, { token: revToken });
    expect(still.status).toBe(200);
  });
});
