// API tokens for the app and the CLI: 256 random bits, shown once, stored as SHA-256 only (a
// database leak gives no usable token; a fast hash suffices for random secrets of that size).
// Every request looks the token up again, so a revoked token stops working at once.
// docs/team-mode.md §5.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors';
import {
  findTokenBySha256,
  inTransaction,
  insertToken,
  revokeToken,
  touchToken,
  writeAudit,
  type AuditActor,
  type HubDb,
  type HubRootDb,
  type UserWithRoles,
} from '../db';

/** Every token starts with this, so secret scanners and people can tell what it is. */
export const API_TOKEN_PREFIX = 'cuah_';
const TOKEN_BYTES = 32;

/** Lower-case hex SHA-256 of a token: what the database keeps. */
export function tokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new random token (not stored anywhere). */
export function generateApiToken(): string {
  return API_TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Creates a token for `userId` and audits it; the returned token is shown once, never again. */
export async function createApiToken(
  db: HubRootDb,
  input: { userId: number; userName: string; name: string; by: AuditActor },
): Promise<{ id: number; token: string }> {
  const token = generateApiToken();
  const id = await inTransaction(db, async (trx) => {
    const tokenId = await insertToken(trx, {
      userId: input.userId,
      name: input.name,
      sha256: tokenSha256(token),
    });
    await writeAudit(trx, {
      ...input.by,
      action: 'token.create',
      target: `token:${tokenId}`,
      details: { user: input.userName, name: input.name },
    });
    return tokenId;
  });
  return { id, token };
}

/** Revokes a token and audits it; false when it was already revoked or does not exist. */
export async function revokeApiToken(
  db: HubRootDb,
  tokenId: number,
  by: AuditActor,
): Promise<boolean> {
  return await inTransaction(db, async (trx) => {
    const revoked = await revokeToken(trx, tokenId);
    if (revoked) {
      await writeAudit(trx, { ...by, action: 'token.revoke', target: `token:${tokenId}` });
    }
    return revoked;
  });
}

/** How stale a token's recorded last use may get, ms. */
export const TOKEN_TOUCH_INTERVAL_MS = 60_000;

function unauthorized(message: string): AppError {
  return new AppError(
    'UNAUTHORIZED',
    message,
    undefined,
    'Sign in again (cua-annotator login URL --user NAME) to get a new token.',
  );
}

/** The account a token belongs to, or UNAUTHORIZED (unknown, revoked, or its account removed). */
export async function verifyApiToken(
  db: HubDb,
  token: string,
): Promise<{ tokenId: number; user: UserWithRoles }> {
  if (!token.startsWith(API_TOKEN_PREFIX)) {
    throw unauthorized('not a hub API token');
  }
  const found = await findTokenBySha256(db, tokenSha256(token));
  if (!found) {
    throw unauthorized('unknown API token');
  }
  if (found.revokedAtMs !== null) {
    throw unauthorized(`the API token "${found.tokenName}" was revoked`);
  }
  if (found.user.disabledAtMs !== null) {
    throw unauthorized(`the account "${found.user.name}" was removed`);
  }
  // last use to the minute: a write on every call would cost each request a round trip
  if (found.lastUsedAtMs === null || Date.now() - found.lastUsedAtMs >= TOKEN_TOUCH_INTERVAL_MS) {
    await touchToken(db, found.tokenId);
  }
  return { tokenId: found.tokenId, user: found.user };
}
