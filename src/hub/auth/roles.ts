// The role check every hub method goes through: the method → roles table (HUB_ROLE_TABLE in
// src/shared/contract/hub.ts) names who may call it; src/hub/http/server.ts applies it to every
// request with requireRole.
import type { HubRole } from '../../shared/contract/hub';
import { AppError } from '../../shared/errors';

/** The caller as the role check sees it (null: not signed in). */
export type HubCaller = { name: string; roles: readonly HubRole[]; disabledAtMs?: number | null };

/** A method → roles table: which roles may call each method (an empty list: nobody). */
export type RoleTable<M extends string> = Readonly<Record<M, readonly HubRole[]>>;

/** Returns the caller when they hold one of `roles`; UNAUTHORIZED without a (live) caller,
 * FORBIDDEN when they hold none of the roles. */
export function requireRole<C extends HubCaller>(
  caller: C | null | undefined,
  roles: readonly HubRole[],
  what = 'this',
): C {
  if (!caller || (caller.disabledAtMs ?? null) !== null) {
    throw new AppError(
      'UNAUTHORIZED',
      `sign in to do ${what}`,
      undefined,
      'Sign in to the hub (cua-annotator login URL --user NAME) and try again.',
    );
  }
  if (!roles.some((r) => caller.roles.includes(r))) {
    const needed = roles.length ? roles.join(' or ') : 'a role nobody has';
    throw new AppError(
      'FORBIDDEN',
      `${caller.name} may not do ${what}: it needs ${needed} (has ${caller.roles.join(', ') || 'no role'})`,
      { user: caller.name, roles: [...caller.roles], needed: [...roles] },
      'Ask a hub admin for the role (cua-annotator hub user roles NAME --set …).',
    );
  }
  return caller;
}

/** Checks `caller` against the table's entry for `method`. */
export function requireMethodRole<M extends string, C extends HubCaller>(
  table: RoleTable<M>,
  method: M,
  caller: C | null | undefined,
): C {
  return requireRole(caller, table[method], method);
}
