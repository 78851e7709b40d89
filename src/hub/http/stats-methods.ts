// The hub method of the admin dashboard (docs/team-mode.md §18): `stats:get` answers every
// figure for the filters given. Admins only (HUB_ROLE_TABLE); the figures are SQL in
// src/hub/db/queries/stats.ts.
import type { HubInput, HubOutput } from '../../shared/contract/hub';
import { hubStats } from '../db';
import type { HubCallContext } from './methods';

/** `stats:get`. */
export async function statsGetMethod(
  ctx: HubCallContext,
  input: HubInput<'stats:get'>,
): Promise<HubOutput<'stats:get'>> {
  return await hubStats(ctx.db, input);
}
