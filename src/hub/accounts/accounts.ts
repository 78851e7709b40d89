// Account administration: add, remove, change roles, list. One implementation for the CLI (`hub
// user …`, which works without a running hub) and, next, the hub's Team page; every change is
// one transaction with its audit entry. docs/team-mode.md §5.
import { hostname, userInfo } from 'node:os';
import { isHubRole, userNameProblem, type HubRole } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';
import { generateOneTimePassword, hashPassword } from '../auth/passwords';
import {
  countActiveAdmins,
  disableUser,
  findUserByName,
  inTransaction,
  insertUser,
  listUsersWithRoles,
  lockAccounts,
  revokeUserTokens,
  setPasswordHash,
  setUserRoles,
  sortRoles,
  writeAudit,
  type AuditActor,
  type HubDb,
  type HubRootDb,
  type UserWithRoles,
} from '../db';

/** What `hub user add` prints: the password is shown this once and stored only as a hash. */
export type AddedUser = { user: string; roles: HubRole[]; password: string };

/** The actor of a command run on the hub's machine: the operating-system account. */
export function localActor(client = 'cli'): AuditActor {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (some containers): keep "unknown"
  }
  return { actor: `os:${user}@${hostname()}`, actorUserId: null, client };
}

function checkName(name: string): void {
  const problem = userNameProblem(name);
  if (problem) {
    throw new AppError(
      'INVALID_PAYLOAD',
      problem,
      { name },
      'Choose a name of lower-case letters, digits, ".", "_" and "-" (e.g. alice or j.doe).',
    );
  }
}

function checkRoles(roles: readonly string[]): HubRole[] {
  const bad = roles.filter((r) => !isHubRole(r));
  if (bad.length || roles.length === 0) {
    throw new AppError(
      'INVALID_PAYLOAD',
      roles.length === 0
        ? 'an account needs at least one role'
        : `unknown role ${bad.map((b) => `"${b}"`).join(', ')}`,
      { roles: [...roles] },
      'Give one or more of --role annotator, --role reviewer, --role admin.',
    );
  }
  return sortRoles(roles);
}

async function liveUser(db: HubDb, name: string): Promise<UserWithRoles> {
  const [user] = await listUsersWithRoles(db, { name, includeRemoved: true });
  if (!user) {
    throw new AppError(
      'NOT_FOUND',
      `no account named "${name}"`,
      { name },
      'List the accounts with `cua-annotator hub user list`.',
    );
  }
  if (user.disabledAtMs !== null) {
    throw new AppError(
      'NOT_FOUND',
      `the account "${name}" was removed on ${new Date(user.disabledAtMs).toISOString()}`,
      { name },
      'A removed account stays removed (its history is kept); add the person under a new name.',
    );
  }
  return user;
}

async function keepAnAdmin(db: HubDb, user: UserWithRoles, what: string): Promise<void> {
  if (user.roles.includes('admin') && (await countActiveAdmins(db, user.id)) === 0) {
    throw new AppError(
      'HUB_LAST_ADMIN',
      `${what} would leave the hub without an admin ("${user.name}" is the last one)`,
      { name: user.name },
      'Add another admin first (cua-annotator hub user add NAME --role admin, or hub user ' +
        'roles NAME --set … --set admin), then try again.',
    );
  }
}

/** Adds an account with a new one-time password (returned once; only its hash is stored). */
export async function addUser(
  db: HubRootDb,
  input: { name: string; roles: readonly string[]; by: AuditActor },
): Promise<AddedUser> {
  checkName(input.name);
  const roles = checkRoles(input.roles);
  const password = generateOneTimePassword();
  const passwordHash = await hashPassword(password);
  await inTransaction(db, async (trx) => {
    await lockAccounts(trx);
    const id = await insertUser(trx, { name: input.name, passwordHash });
    if (id === undefined) {
      const existing = await findUserByName(trx, input.name);
      throw new AppError(
        'HUB_USER_EXISTS',
        existing?.disabled_at
          ? `the name "${input.name}" belongs to a removed account`
          : `an account named "${input.name}" exists already`,
        { name: input.name },
        existing?.disabled_at
          ? 'Names of removed accounts stay reserved (their history refers to them): choose ' +
              'another name.'
          : `Change its roles with \`cua-annotator hub user roles ${input.name} --set …\`, or ` +
              'choose another name.',
      );
    }
    await setUserRoles(trx, id, roles);
    await writeAudit(trx, {
      ...input.by,
      action: 'user.add',
      target: `user:${input.name}`,
      details: { roles },
    });
  });
  return { user: input.name, roles, password };
}

/** Removes an account: it can no longer sign in and its tokens stop working at once; its name
 * and history stay. The last admin cannot be removed. */
export async function removeUser(
  db: HubRootDb,
  input: { name: string; by: AuditActor },
): Promise<{ user: string; tokensRevoked: number }> {
  return await inTransaction(db, async (trx) => {
    await lockAccounts(trx);
    const user = await liveUser(trx, input.name);
    await keepAnAdmin(trx, user, `removing "${user.name}"`);
    await disableUser(trx, user.id);
    const tokensRevoked = await revokeUserTokens(trx, user.id);
    await writeAudit(trx, {
      ...input.by,
      action: 'user.remove',
      target: `user:${user.name}`,
      details: { roles: user.roles, tokensRevoked },
    });
    return { user: user.name, tokensRevoked };
  });
}

/** Replaces an account's roles; the last admin keeps the admin role. */
export async function setRoles(
  db: HubRootDb,
  input: { name: string; roles: readonly string[]; by: AuditActor },
): Promise<{ user: string; roles: HubRole[]; before: HubRole[] }> {
  const roles = checkRoles(input.roles);
  return await inTransaction(db, async (trx) => {
    await lockAccounts(trx);
    const user = await liveUser(trx, input.name);
    if (!roles.includes('admin')) {
      await keepAnAdmin(trx, user, `taking the admin role from "${user.name}"`);
    }
    await setUserRoles(trx, user.id, roles);
    await writeAudit(trx, {
      ...input.by,
      action: 'user.roles',
      target: `user:${user.name}`,
      details: { from: user.roles, to: roles },
    });
    return { user: user.name, roles, before: user.roles };
  });
}

/** Gives a live account a new one-time password (a lost or forgotten one); returned once, its
 * hash stored, to be changed at the next sign-in. The account's API tokens keep working. */
export async function resetPassword(
  db: HubRootDb,
  input: { name: string; by: AuditActor },
): Promise<{ user: string; password: string }> {
  const password = generateOneTimePassword();
  const passwordHash = await hashPassword(password);
  return await inTransaction(db, async (trx) => {
    await lockAccounts(trx);
    const user = await liveUser(trx, input.name);
    await setPasswordHash(trx, user.id, passwordHash, true);
    await writeAudit(trx, { ...input.by, action: 'user.password', target: `user:${user.name}` });
    return { user: user.name, password };
  });
}

/** The accounts, by name (removed ones with `includeRemoved`). */
export async function listUsers(
  db: HubDb,
  options: { includeRemoved?: boolean } = {},
): Promise<UserWithRoles[]> {
  return await listUsersWithRoles(db, options);
}
