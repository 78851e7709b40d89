// Accounts and roles: the SQL of the users and user_roles tables.
import { sql } from 'kysely';
import { HUB_ROLES, isHubRole, type HubRole } from '../../../shared/contract/hub';
import type { HubDb, UserRow } from '../schema';

// pg_advisory_xact_lock key of account changes: rules over several rows (the last admin) hold
// under concurrent changes from the hub and the CLI
const ACCOUNTS_LOCK_KEY = 2_741_028;

/** An account with its roles, as lists and checks use it. */
export type UserWithRoles = {
  id: number;
  name: string;
  roles: HubRole[];
  mustChangePassword: boolean;
  createdAtMs: number;
  /** Set when the account was removed (it can no longer sign in). */
  disabledAtMs: number | null;
};

/** Roles in HUB_ROLES order (stable output whatever the database returned). */
export function sortRoles(roles: readonly string[]): HubRole[] {
  return HUB_ROLES.filter((r) => roles.includes(r));
}

/** Serialises account changes until the end of the current transaction. */
export async function lockAccounts(db: HubDb): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(ACCOUNTS_LOCK_KEY)})`.execute(db);
}

/** Inserts an account; undefined when the name is taken (by a live or removed account). */
export async function insertUser(
  db: HubDb,
  user: { name: string; passwordHash: string },
): Promise<number | undefined> {
  const row = await db
    .insertInto('users')
    .values({ name: user.name, password_hash: user.passwordHash })
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** The account named `name` (live or removed), if any. */
export async function findUserByName(db: HubDb, name: string): Promise<UserRow | undefined> {
  return await db.selectFrom('users').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Every account with its roles, by name; removed ones only with `includeRemoved`. */
export async function listUsersWithRoles(
  db: HubDb,
  options: { includeRemoved?: boolean; name?: string } = {},
): Promise<UserWithRoles[]> {
  let query = db
    .selectFrom('users as u')
    .leftJoin('user_roles as r', 'r.user_id', 'u.id')
    .select([
      'u.id',
      'u.name',
      'u.must_change_password',
      'u.created_at',
      'u.disabled_at',
      sql<string[]>`coalesce(json_agg(r.role) FILTER (WHERE r.role IS NOT NULL), '[]'::json)`.as(
        'roles',
      ),
    ])
    .groupBy('u.id')
    .orderBy('u.name');
  if (!options.includeRemoved) {
    query = query.where('u.disabled_at', 'is', null);
  }
  if (options.name !== undefined) {
    query = query.where('u.name', '=', options.name);
  }
  const rows = await query.execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    roles: sortRoles(row.roles.filter(isHubRole)),
    mustChangePassword: row.must_change_password,
    createdAtMs: row.created_at.getTime(),
    disabledAtMs: row.disabled_at ? row.disabled_at.getTime() : null,
  }));
}

/** Makes `roles` the account's roles (adds the missing, removes the others). */
export async function setUserRoles(
  db: HubDb,
  userId: number,
  roles: readonly HubRole[],
): Promise<void> {
  let removal = db.deleteFrom('user_roles').where('user_id', '=', userId);
  if (roles.length) {
    removal = removal.where('role', 'not in', [...roles]);
  }
  await removal.execute();
  if (roles.length) {
    await db
      .insertInto('user_roles')
      .values(roles.map((role) => ({ user_id: userId, role })))
      .onConflict((oc) => oc.columns(['user_id', 'role']).doNothing())
      .execute();
  }
}

/** Replaces the account's password hash; `mustChange` for a one-time password. */
export async function setPasswordHash(
  db: HubDb,
  userId: number,
  passwordHash: string,
  mustChange: boolean,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ password_hash: passwordHash, must_change_password: mustChange })
    .where('id', '=', userId)
    .execute();
}

/** Marks the account removed (it keeps its name and history); false if it already was. */
export async function disableUser(db: HubDb, userId: number): Promise<boolean> {
  const res = await db
    .updateTable('users')
    .set({ disabled_at: sql<Date>`now()` })
    .where('id', '=', userId)
    .where('disabled_at', 'is', null)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** How many live accounts hold the admin role, not counting `exceptUserId`. */
export async function countActiveAdmins(db: HubDb, exceptUserId?: number): Promise<number> {
  let query = db
    .selectFrom('user_roles as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('r.role', '=', 'admin')
    .where('u.disabled_at', 'is', null);
  if (exceptUserId !== undefined) {
    query = query.where('u.id', '!=', exceptUserId);
  }
  const row = await query.executeTakeFirstOrThrow();
  return row.n;
}
