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
import { DAY, expected, load, OSES, synthesize, T0 } from './synthetic';

// the SQL's answer in the shape of expected() (floats rounded to 9 digits)
function actual(s: Awaited<ReturnType<typeof hubStats>>) {
  const r9 = (x: number | null) => (x === null ? null : Math.round(x * 1e9) / 1e9);
  return {
    accepted: {
      ...s.accepted,
      byTask: s.accepted.byTask.map(({ instruction, count }) => ({ instruction, count })),
    },
    steps: { mean: r9(s.steps.mean), histogram: s.steps.histogram },
    actions: { counts: s.actions.counts, meanEntropyBits: r9(s.actions.meanEntropyBits) },
    videoHours: r9(s.video.hours),
    keyframes: s.keyframes.count,
    annotators: s.team.annotators,
    perDay: s.team.perDay,
    perWeek: s.team.perWeek,
    grades: s.team.grades,
    turnaround: {
      count: s.team.turnaround.count,
      meanSeconds: r9(s.team.turnaround.meanSeconds),
      medianSeconds: r9(s.team.turnaround.medianSeconds),
    },
    reasons: s.team.reasons,
    reviewers: s.team.reviewers,
  };
}

function rounded(e: ReturnType<typeof expected>) {
  const r9 = (x: number | null) => (x === null ? null : Math.round(x * 1e9) / 1e9);
  return {
    ...e,
    steps: { ...e.steps, mean: r9(e.steps.mean) },
    actions: { ...e.actions, meanEntropyBits: r9(e.actions.meanEntropyBits) },
    videoHours: r9(e.videoHours),
    turnaround: {
      count: e.turnaround.count,
      meanSeconds: r9(e.turnaround.meanSeconds),
      medianSeconds: r9(e.turnaround.medianSeconds),
    },
  };
}

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
