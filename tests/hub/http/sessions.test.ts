// Sign-in by password on the hub's HTTP layer (PGlite, one per file): the session cookie's
// attributes, the one-time password gate, logout revoking at once, an expired session, the
// Host/Origin/CSRF guards, the sign-in rate limit (a fake clock: nothing waits), and the audit
// rows with the client's address and user agent.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../../src/hub/db';
import { cookieOf, startHubFixture, type HubFixture } from './hub-fixture';

let hub: HubFixture;
let clock = 1_000_000;
let origin: string;
const NEW_PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  hub = await startHubFixture({
    now: () => clock,
    loginLimits: { perAccount: 3, perAddress: 6, windowMs: 60_000 },
  });
  origin = hub.server.url;
}, 120_000);

afterAll(async () => {
  await hub?.close();
});

describe('hub sessions', () => {
  it('login sets an HttpOnly SameSite=Strict cookie (no Secure over plain HTTP); a one-time password allows only change-password until changed', async () => {
    const login = await hub.call(
      'auth:login',
      { user: 'rev', password: hub.passwords.rev },
      { origin, headers: { 'user-agent': 'hub-test/1' } },
    );
    expect(login.status).toBe(200);
    expect(login.body.value).toMatchObject({
      user: 'rev',
      roles: ['reviewer'],
      mustChangePassword: true,
    });
    const setCookie = login.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/^cua_hub_session=cuas_[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+/);
    expect(setCookie).toContain('; HttpOnly');
    expect(setCookie).toContain('; SameSite=Strict');
    expect(setCookie).not.toContain('Secure');
    const cookie = cookieOf(login);

    const blocked = await hub.call('tokens:create', { name: 'laptop' }, { cookie, origin });
    expect([blocked.status, blocked.body.error?.code]).toEqual([403, 'PASSWORD_CHANGE_REQUIRED']);
    const me = await hub.call('auth:whoami', {}, { cookie, origin });
    expect(me.body.value).toEqual({
      user: 'rev',
      roles: ['reviewer'],
      mustChangePassword: true,
      via: 'session',
    });
    const short = await hub.call(
      'auth:change-password',
      { current: hub.passwords.rev, next: 'short' },
      { cookie, origin },
    );
    expect([short.status, short.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);
    const wrong = await hub.call(
      'auth:change-password',
      { current: 'not-it', next: NEW_PASSWORD },
      { cookie, origin },
    );
    expect([wrong.status, wrong.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    const changed = await hub.call(
      'auth:change-password',
      { current: hub.passwords.rev, next: NEW_PASSWORD },
      { cookie, origin },
    );
    expect(changed.body).toEqual({ ok: true, value: { user: 'rev' } });
    const created = await hub.call('tokens:create', { name: 'laptop' }, { cookie, origin });
    expect(created.status).toBe(200);
    expect(created.body.value.token).toMatch(/^cuah_/);
    // the old one-time password no longer signs in
    const old = await hub.call('auth:login', { user: 'rev', password: hub.passwords.rev });
    expect(old.status).toBe(401);

    const audit = await listAudit(hub.hub.db, { limit: 50 });
    const loginRow = audit.find((a) => a.action === 'auth.login' && a.actor === 'rev');
    expect(loginRow?.details).toMatchObject({ user: 'rev', userAgent: 'hub-test/1' });
    expect(String(loginRow?.details.address)).toMatch(/127\.0\.0\.1/);
    expect(loginRow?.client).toBe('web');
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['user.password-change', 'token.create', 'auth.login-failed']),
    );
    // neither password nor token in any audit row
    const dump = JSON.stringify(audit);
    expect(dump).not.toContain(NEW_PASSWORD);
    expect(dump).not.toContain(hub.passwords.rev);
    expect(dump).not.toContain(created.body.value.token as string);
  });

  it('logout revokes the session at once; an expired session is refused', async () => {
    const login = await hub.call('auth:login', { user: 'rev', password: NEW_PASSWORD }, { origin });
    const cookie = cookieOf(login);
    expect((await hub.call('auth:whoami', {}, { cookie, origin })).status).toBe(200);
    const out = await hub.call('auth:logout', {}, { cookie, origin });
    expect(out.body).toEqual({ ok: true, value: { revoked: true } });
    expect(out.headers['set-cookie']?.[0]).toContain('Max-Age=0');
    const after = await hub.call('auth:whoami', {}, { cookie, origin });
    expect([after.status, after.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);

    const second = cookieOf(
      await hub.call('auth:login', { user: 'rev', password: NEW_PASSWORD }, { origin }),
    );
    expect((await hub.call('auth:whoami', {}, { cookie: second, origin })).status).toBe(200);
    // its expiry passes (moved in the database: no waiting)
    await sql`UPDATE hub_sessions SET expires_at = now() - interval '1 second'
              WHERE revoked_at IS NULL`.execute(hub.hub.db);
    const expired = await hub.call('auth:whoami', {}, { cookie: second, origin });
    expect([expired.status, expired.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('Host, Origin and CSRF guards: a foreign Host or Origin is 403; a cookie call without Origin is 403; a form post is 400', async () => {
    const cookie = cookieOf(
      await hub.call('auth:login', { user: 'rev', password: NEW_PASSWORD }, { origin }),
    );
    const rebinding = await hub.call('auth:whoami', {}, { cookie, origin, host: 'evil.example' });
    expect([rebinding.status, rebinding.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    const foreign = await hub.call('auth:whoami', {}, { cookie, origin: 'http://evil.example' });
    expect([foreign.status, foreign.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    const foreignLogin = await hub.call(
      'auth:login',
      { user: 'rev', password: NEW_PASSWORD },
      { origin: 'http://evil.example' },
    );
    expect(foreignLogin.status).toBe(403);
    expect(foreignLogin.headers['set-cookie']).toBeUndefined();
    const noOrigin = await hub.call('auth:whoami', {}, { cookie });
    expect([noOrigin.status, noOrigin.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    const form = await hub.call('auth:whoami', undefined, {
      cookie,
      origin,
      contentType: 'application/x-www-form-urlencoded',
      rawBody: 'a=1',
    });
    expect([form.status, form.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);
    const get = await hub.call('auth:whoami', undefined, { cookie, origin, method: 'GET' });
    expect(get.status).toBe(405);
    const notJson = await hub.call('auth:whoami', undefined, { cookie, origin, rawBody: '{' });
    expect([notJson.status, notJson.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);
    const unknownField = await hub.call('auth:whoami', { admin: true }, { cookie, origin });
    expect([unknownField.status, unknownField.body.error?.code]).toEqual([400, 'INVALID_PAYLOAD']);
    const huge = await hub.call('auth:whoami', undefined, {
      cookie,
      origin,
      rawBody: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }),
    });
    expect([huge.status, huge.body.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    // the same session from its own origin works: the refusals above were the guards
    expect((await hub.call('auth:whoami', {}, { cookie, origin })).status).toBe(200);
  });

  it('sign-in is rate-limited per account and per address (RATE_LIMITED, Retry-After), and the window frees it', async () => {
    for (let i = 0; i < 3; i += 1) {
      const bad = await hub.call('auth:login', { user: 'ann', password: `wrong-${i}` });
      expect(bad.status).toBe(401);
    }
    // the right password too: the limit is checked before the password
    const limited = await hub.call('auth:login', { user: 'ann', password: hub.passwords.ann });
    expect([limited.status, limited.body.error?.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.body.error?.details).toEqual({ retryAfterSeconds: 60, limit: 'account' });
    expect(limited.headers['retry-after']).toBe('60');
    // another account from the same address still signs in (until the address limit)
    expect((await hub.call('auth:login', { user: 'rev', password: NEW_PASSWORD })).status).toBe(
      200,
    );
    clock += 30_000;
    const still = await hub.call('auth:login', { user: 'ann', password: hub.passwords.ann });
    expect(still.headers['retry-after']).toBe('30');
    clock += 30_001;
    const freed = await hub.call('auth:login', { user: 'ann', password: hub.passwords.ann });
    expect(freed.status).toBe(200);

    // per address: failures spread over names (none reaching its own limit) add up to 6
    for (const name of ['x1', 'x2', 'x3', 'x4', 'x5', 'x6']) {
      expect((await hub.call('auth:login', { user: name, password: 'nope' })).status).toBe(401);
    }
    const byAddress = await hub.call('auth:login', { user: 'rev', password: NEW_PASSWORD });
    expect([byAddress.status, byAddress.body.error?.details?.limit]).toEqual([429, 'address']);
    clock += 60_001;
    expect((await hub.call('auth:login', { user: 'rev', password: NEW_PASSWORD })).status).toBe(
      200,
    );
  });
});
