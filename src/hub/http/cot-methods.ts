// The hub's CoT job switch (docs/cot.md "In team mode"): `cot:settings` (admins, HUB_ROLE_TABLE)
// reads or changes whether accepted submissions get their CoT, from which endpoint and model, at
// what cost at most; the API key is no setting (the workers read it from their environment). An
// accepting verdict enqueues `cot:<id>@<version>` when the switch is on and the hub runs jobs.
import type { HubInput, HubOutput } from '../../shared/contract/hub';
import { writeAudit } from '../db';
import { readCotSettings, writeCotSettings } from '../jobs/handlers';
import { jobKeys } from '../jobs/queues';
import type { HubCallContext } from './methods';

/** `cot:settings`: the settings, changed first when the input has any. */
export async function cotSettingsMethod(
  ctx: HubCallContext,
  input: HubInput<'cot:settings'>,
): Promise<HubOutput<'cot:settings'>> {
  if (!Object.keys(input).length) {
    return await readCotSettings(ctx.db);
  }
  const next = await writeCotSettings(ctx.db, input);
  await writeAudit(ctx.db, {
    ...ctx.actor,
    action: 'cot.settings',
    target: 'hub:cot',
    details: { ...input },
  });
  return next;
}

/** After a verdict: enqueues the accepted version's CoT when an admin turned it on. */
export async function enqueueCotOnAccept(
  ctx: HubCallContext,
  r: { submissionId: number; version: number; status: string },
): Promise<void> {
  if (r.status !== 'accepted' || !ctx.jobs || !(await readCotSettings(ctx.db)).enabled) {
    return;
  }
  const payload = { submissionId: r.submissionId, version: r.version };
  await ctx.jobs.enqueue('cot', payload, { key: jobKeys.cot(r.submissionId, r.version) });
}
