// What each hub method does, once the request passed the guards and the role table
// (server.ts). One handler per method of src/shared/contract/hub.ts; the record's type makes a
// method without a handler a compile error. docs/team-mode.md §12.
import type { HubInput, HubMethod, HubOutput } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import { addUser, listUsers, removeUser, resetPassword, setRoles } from '../accounts/accounts';
import { changePassword, checkPassword, createSession, endSession } from '../auth/sessions';
import { createApiToken, revokeApiToken } from '../auth/tokens';
import {
  listAudit,
  listUserTokens,
  writeAudit,
  type AuditActor,
  type HubRootDb,
  type UserWithRoles,
} from '../db';
import type { LoginLimiter } from './rate-limit';

/** The signed-in caller of a request. */
export type HubCallerInfo = {
  user: UserWithRoles;
  via: 'session' | 'token';
  /** The session's or the token's id. */
  credentialId: number;
};

/** What a handler gets besides its input. */
export type HubCallContext = {
  db: HubRootDb;
  caller: HubCallerInfo | null;
  /** Who the audit log names for this request (an anonymous sign-in: the name tried). */
  actor: AuditActor;
  address: string;
  limiter: LoginLimiter;
  sessionTtlMs: number;
  /** Adds a response header (the session cookie). */
  setCookie: (cookie: string) => void;
  /** The cookie that starts (value) or ends (null) a session on this connection. */
  sessionCookie: (value: string | null, maxAgeSeconds: number) => string;
};

type Handler<M extends HubMethod> = (
  ctx: HubCallContext,
  input: HubInput<M>,
) => Promise<HubOutput<M>>;

function signedIn(ctx: HubCallContext): HubCallerInfo {
  if (!ctx.caller) {
    // the role table already refused anonymous callers; this guards a wrong table entry
    throw new AppError('UNAUTHORIZED', 'sign in first');
  }
  return ctx.caller;
}

function userDto(u: UserWithRoles) {
  return {
    user: u.name,
    roles: u.roles,
    mustChangePassword: u.mustChangePassword,
    createdAtMs: u.createdAtMs,
    removedAtMs: u.disabledAtMs,
  };
}

/** Every hub method's handler. */
export const HUB_HANDLERS: { [M in HubMethod]: Handler<M> } = {
  'auth:login': async (ctx, input) => {
    const limited = ctx.limiter.check(input.user, ctx.address);
    if (limited) {
      const retryAfterSeconds = Math.ceil(limited.retryAfterMs / 1000);
      throw new AppError(
        'RATE_LIMITED',
        limited.limit === 'account'
          ? `too many failed sign-ins for "${input.user}"; try again in ${retryAfterSeconds} s`
          : `too many failed sign-ins from ${ctx.address}; try again in ${retryAfterSeconds} s`,
        { retryAfterSeconds, limit: limited.limit },
        'Wait and try again; a forgotten password is replaced by an admin (hub user password).',
      );
    }
    let user: UserWithRoles;
    try {
      user = await checkPassword(ctx.db, input.user, input.password);
    } catch (e) {
      ctx.limiter.fail(input.user, ctx.address);
      await writeAudit(ctx.db, {
        ...ctx.actor,
        action: 'auth.login-failed',
        target: `user:${input.user}`,
      });
      throw e;
    }
    ctx.limiter.succeed(input.user);
    const actor = { ...ctx.actor, actor: user.name, actorUserId: user.id };
    const session = await createSession(ctx.db, { user, ttlMs: ctx.sessionTtlMs, by: actor });
    ctx.setCookie(ctx.sessionCookie(session.value, Math.floor(ctx.sessionTtlMs / 1000)));
    return {
      user: user.name,
      roles: user.roles,
      mustChangePassword: user.mustChangePassword,
      expiresAtMs: session.expiresAtMs,
    };
  },
  'auth:logout': async (ctx) => {
    const caller = signedIn(ctx);
    if (caller.via === 'session') {
      ctx.setCookie(ctx.sessionCookie(null, 0));
      return { revoked: await endSession(ctx.db, caller.credentialId, ctx.actor) };
    }
    return { revoked: await revokeApiToken(ctx.db, caller.credentialId, ctx.actor) };
  },
  'auth:whoami': (ctx) => {
    const caller = signedIn(ctx);
    return Promise.resolve({
      user: caller.user.name,
      roles: caller.user.roles,
      mustChangePassword: caller.user.mustChangePassword,
      via: caller.via,
    });
  },
  'auth:change-password': async (ctx, input) => {
    const caller = signedIn(ctx);
    await changePassword(ctx.db, {
      user: caller.user,
      current: input.current,
      next: input.next,
      keepSessionId: caller.via === 'session' ? caller.credentialId : undefined,
      by: ctx.actor,
    });
    return { user: caller.user.name };
  },
  'tokens:create': async (ctx, input) => {
    const caller = signedIn(ctx);
    const created = await createApiToken(ctx.db, {
      userId: caller.user.id,
      userName: caller.user.name,
      name: input.name,
      by: ctx.actor,
    });
    return { id: created.id, name: input.name, token: created.token };
  },
  'tokens:list': async (ctx) => {
    const caller = signedIn(ctx);
    return { tokens: await listUserTokens(ctx.db, caller.user.id) };
  },
  'tokens:revoke': async (ctx, input) => {
    const caller = signedIn(ctx);
    // one's own tokens only: another account's token is "not found", not "forbidden"
    const own = await listUserTokens(ctx.db, caller.user.id);
    if (!own.some((t) => t.id === input.id)) {
      throw new AppError(
        'NOT_FOUND',
        `you have no API token ${input.id}`,
        { id: input.id },
        'List your tokens with tokens:list.',
      );
    }
    return { id: input.id, revoked: await revokeApiToken(ctx.db, input.id, ctx.actor) };
  },
  'users:list': async (ctx, input) => ({
    users: (await listUsers(ctx.db, { includeRemoved: input.includeRemoved ?? false })).map(
      userDto,
    ),
  }),
  'users:add': async (ctx, input) =>
    await addUser(ctx.db, { name: input.user, roles: input.roles, by: ctx.actor }),
  'users:set-roles': async (ctx, input) =>
    await setRoles(ctx.db, { name: input.user, roles: input.roles, by: ctx.actor }),
  'users:reset-password': async (ctx, input) =>
    await resetPassword(ctx.db, { name: input.user, by: ctx.actor }),
  'users:remove': async (ctx, input) =>
    await removeUser(ctx.db, { name: input.user, by: ctx.actor }),
  'audit:list': async (ctx, input) => ({
    entries: (await listAudit(ctx.db, { limit: input.limit ?? 100 })).map((e) => ({
      id: e.id,
      atMs: e.atMs,
      actor: e.actor,
      action: e.action,
      target: e.target,
      client: e.client,
      details: e.details,
    })),
  }),
};
