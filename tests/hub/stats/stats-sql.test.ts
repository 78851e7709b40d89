// The dashboard's figures (src/hub/db/queries/stats.ts) against figures computed here, in
// TypeScript, from the same 200 synthetic submissions (known OS, length, action mix, verdicts,
// dates), on embedded PGlite and on Debian's PostgreSQL: every number equal, with and without
// each filter.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubStats, openHubDb, type HubDatabase, type StatsFilter } from '../../../src/hub/db';
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { actual, DAY, expected, load, OSES, rounded, synthesize, T0 } from './synthetic';

let pgServer: Postgres;
let pgliteDir: string;
beforeAll(async () => {
  [pgServer, pgliteDir] = await Promise.all([
    startPostgres(),
    mkdtemp(path.join(os.tmpdir(), 'hub-stats-')),
  ]);
}, 120_000);
afterAll(async () => {
  await pgServer?.stop();
  await rm(pgliteDir, { recursive: true, force: true });
});

const BACKENDS: { name: string; open: () => Promise<HubDatabase> }[] = [
  { name: 'PGlite (embedded)', open: () => openHubDb({ data: pgliteDir }) },
  {
    name: 'PostgreSQL',
    open: async () => await openHubDb({ url: await pgServer.createDatabase() }),
  },
];

describe.each(BACKENDS)('dashboard figures on $name', ({ open }) => {
  it('equal the figures computed from the 200 synthetic submissions, with every filter', async () => {
    const hub = await open();
    try {
      const data = synthesize(200);
      await load(hub.db, data, '');
      const filters: StatsFilter[] = [
        {},
        { os: 'win32' },
        { annotator: 'ann-b' },
        { tag: 'easy' },
        { fromMs: T0 + 7 * DAY, toMs: T0 + 14 * DAY },
        { os: 'linux', tag: 'mail', fromMs: T0 + 3 * DAY },
      ];
      for (const f of filters) {
        const got = await hubStats(hub.db, f);
        expect(actual(got), JSON.stringify(f)).toEqual(rounded(expected(data, f, '')));
      }
      // the data really spreads over what the figures show
      const all = await hubStats(hub.db);
      expect(all.accepted.total).toBeGreaterThan(50);
      expect(Object.keys(all.accepted.byOs).sort()).toEqual([...OSES].sort());
      expect(all.steps.histogram.every((b) => b.count > 0)).toBe(true);
      expect(all.team.reasons.length).toBeGreaterThan(3);
      const none = await hubStats(hub.db, { annotator: 'nobody' });
      expect(none.accepted.total).toBe(0);
      expect(none.steps.mean).toBeNull();
    } finally {
      await hub.close();
    }
  }, 120_000);
});
