// Sign-in sessions (browser cookies) and the password sign-in itself: a session is 256 random bits
// sent as an HttpOnly cookie; the database keeps its SHA-256 only, with an expiry; logout revokes
// it at once. docs/team-mode.md §12.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';
import {
  findLiveSession,
  findPasswordHash,
  inTransaction,
  insertSession,
  listUsersWithRoles,
  revokeSession,
  revokeUserSessions,
  setPasswordHash,
  writeAudit,
  type AuditActor,
  type HubDb,
  type HubRootDb,
  type SessionWithOwner,
  type UserWithRoles,
} from '../db';
import { hashPassword, verifyPassword } from './passwords';

/** Every session value starts with this (tells it apart from an API token's `cuah_`). */
export const SESSION_PREFIX = 'cuas_';
/** Default session lifetime: 12 hours. */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

// verified when the account does not exist, so a missing account costs the same time as a wrong
// password (the name's existence does not leak through timing)
let dummyHash: Promise<string> | null = null;
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function unauthorized(message: string, fix: string): AppError {
  return new AppError('UNAUTHORIZED', message, undefined, fix);
}

/** Checks a name and password: the live account, or UNAUTHORIZED (wrong password, no such
 * account or a removed one: one message for all, so names cannot be probed). */
export async function checkPassword(
  db: HubDb,
  name: string,
  password: string,
): Promise<UserWithRoles> {
  const found = await findPasswordHash(db, name);
  const ok = await verifyPassword(found?.passwordHash ?? (await dummyPasswordHash()), password);
  const [user] = found && ok ? await listUsersWithRoles(db, { name }) : [];
  if (!user) {
    throw unauthorized(
      'wrong account name or password',
      'Check the name and password; a lost password is replaced by an admin ' +
        '(cua-annotator hub user password NAME).',
    );
  }
  return user;
}

/** Starts a session for `user`; the returned value goes into the cookie and nowhere else. */
export async function createSession(
  db: HubRootDb,
  input: { user: UserWithRoles; ttlMs: number; by: AuditActor },
): Promise<{ id: number; value: string; expiresAtMs: number }> {
  const value = SESSION_PREFIX + randomBytes(32).toString('base64url');
  const created = await inTransaction(db, async (trx) => {
    const row = await insertSession(trx, {
      userId: input.user.id,
      sha256: sha256(value),
      ttlMs: input.ttlMs,
      address: input.by.address ?? null,
      userAgent: input.by.userAgent ?? null,
    });
    await writeAudit(trx, {
      ...input.by,
      action: 'auth.login',
      target: `session:${row.id}`,
      details: { user: input.user.name },
    });
    return row;
  });
  return { id: created.id, value, expiresAtMs: created.expiresAtMs };
}

/** The live session of a cookie value, or UNAUTHORIZED (unknown, expired, revoked, removed). */
export async function verifySession(db: HubDb, value: string): Promise<SessionWithOwner> {
  const fix = 'Sign in again.';
  if (!value.startsWith(SESSION_PREFIX)) {
    throw unauthorized('not a hub session', fix);
  }
  const found = await findLiveSession(db, sha256(value));
  if (!found) {
    throw unauthorized('the session ended (signed out, expired or unknown)', fix);
  }
  if (found.user.disabledAtMs !== null) {
    throw unauthorized(`the account "${found.user.name}" was removed`, fix);
  }
  return found;
}

/** Ends a session (logout) and audits it; false when it had ended already. */
export async function endSession(
  db: HubRootDb,
  sessionId: number,
  by: AuditActor,
): Promise<boolean> {
  return await inTransaction(db, async (trx) => {
    const revoked = await revokeSession(trx, sessionId);
    if (revoked) {
      await writeAudit(trx, { ...by, action: 'auth.logout', target: `session:${sessionId}` });
    }
    return revoked;
  });
}

/** Changes an account's password after checking the current one; ends the account's other
 * sessions (the one making the change stays signed in). */
export async function changePassword(
  db: HubRootDb,
  input: {
    user: UserWithRoles;
    current: string;
    next: string;
    keepSessionId?: number;
    by: AuditActor;
  },
): Promise<void> {
  await checkPassword(db, input.user.name, input.current);
  if (input.current === input.next) {
    throw new AppError(
      'INVALID_PAYLOAD',
      'the new password is the same as the current one',
      { field: 'next' },
      'Choose a new password (at least 12 characters).',
    );
  }
  const passwordHash = await hashPassword(input.next);
  await inTransaction(db, async (trx) => {
    await setPasswordHash(trx, input.user.id, passwordHash, false);
    const sessionsEnded = await revokeUserSessions(trx, input.user.id, input.keepSessionId);
    await writeAudit(trx, {
      ...input.by,
      action: 'user.password-change',
      target: `user:${input.user.name}`,
      details: { sessionsEnded },
    });
  });
}
