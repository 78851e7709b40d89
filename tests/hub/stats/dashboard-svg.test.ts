// The dashboard's charts: the Vega-Lite specs of src/shared/dashboard-charts.ts for a fixed
// answer equal their golden files (tests/hub/stats/golden/NAME.vl.json), each renders to SVG in
// Node with one bar mark per row of its table, the CSV quotes what needs quoting; and
// `hub stats --data DIR --json --svg OUT` on a folder of 200 synthetic submissions prints the
// figures (the same as stats:get's SQL) and writes the SVG, CSV and spec files (QA's too).
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hubStats, openHubDb } from '../../../src/hub/db';
import { specToSvg } from '../../../src/hub/dashboard/svg';
import type { HubStats } from '../../../src/shared/contract/hub-stats';
import { dashboardFigures, figureCsv } from '../../../src/shared/dashboard-charts';
import { runCli } from '../../helpers/cli';
import { load, synthesize } from './synthetic';

const GOLDEN = path.join(import.meta.dirname, 'golden');

// a fixed answer with every figure non-empty
const FIXED: HubStats = {
  filter: {},
  accepted: {
    total: 6,
    byOs: { darwin: 1, linux: 2, win32: 3 },
    byDomain: [
      { key: 'web', count: 4 },
      { key: 'os', count: 2 },
    ],
    byApp: [
      { key: 'firefox', count: 4 },
      { key: 'files', count: 2 },
    ],
    byTask: [{ taskId: 1, instruction: 'Book a flight', count: 4 }],
  },
  steps: {
    mean: 17.5,
    agentnetMean: 18.6,
    histogram: [
      { from: 0, to: 5, count: 1 },
      { from: 5, to: 10, count: 2 },
      { from: 10, to: null, count: 3 },
    ],
  },
  actions: { counts: { click: 60, write: 30, hotkey: 15 }, meanEntropyBits: 1.25 },
  video: { hours: 0.5 },
  keyframes: { count: 105 },
  team: {
    annotators: [
      { user: 'ann', submitted: 8, accepted: 6, rejected: 1, changes: 1, acceptanceRate: 6 / 7 },
    ],
    perDay: [{ user: 'ann', day: '2026-11-02', submitted: 8 }],
    perWeek: [{ user: 'ann', week: '2026-W45', submitted: 8 }],
    grades: { good: 6 },
    turnaround: { count: 8, meanSeconds: 3600, medianSeconds: 1800 },
    reasons: [{ verdict: 'reject', reason: 'blurry, "video"', count: 1 }],
    reviewers: [{ reviewer: 'rev', verdicts: 8, accept: 6, reject: 1, changes: 1 }],
  },
  qa: {
    sampled: 4,
    reviewed: 3,
    agreed: 2,
    agreementRate: 2 / 3,
    unsettled: 1,
    disagreements: [
      {
        submissionId: 5,
        recording: 'rec-5',
        annotator: 'ann',
        version: 1,
        firstReviewer: 'rev',
        firstVerdict: 'accept',
        secondReviewer: 'rev2',
        secondVerdict: 'reject',
        secondGrade: null,
        secondFeedback: 'misses the last step',
        atMs: 1_764_000_000_000,
        settledStatus: null,
      },
    ],
  },
};

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('dashboard charts', () => {
  it('the specs equal their golden files; each SVG parses with one bar per table row', async () => {
    const figures = dashboardFigures(FIXED);
    for (const f of figures) {
      const golden = JSON.parse(
        await readFile(path.join(GOLDEN, `${f.name}.vl.json`), 'utf8'),
      ) as unknown;
      expect(f.spec, f.name).toEqual(golden);
      const svg = await specToSvg(f.spec);
      expect(svg.startsWith('<svg'), f.name).toBe(true);
      expect(svg.trimEnd().endsWith('</svg>'), f.name).toBe(true);
      // the bars: one <path> per datum in the rect mark group
      const group = /<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/s.exec(svg)?.[1] ?? '';
      expect((group.match(/<path /g) ?? []).length, f.name).toBe(f.rows.length);
      expect(svg).toContain(String(f.spec.title));
    }
    expect(figures.map((f) => f.name)).toEqual([
      'accepted-by-os',
      'steps-histogram',
      'action-mix',
      'accepted-by-domain',
      'accepted-by-app',
      'annotators',
      'submissions-per-day',
      'reviewers',
      'reasons',
      'qa-agreement',
    ]);
    const qa = figures.find((f) => f.name === 'qa-agreement')!;
    expect(qa.title).toBe('QA second reviews (agreement 66.7% of 3; 1 to settle)');
    expect(qa.rows).toEqual([
      ['agreed', 2],
      ['disagreed', 1],
      ['waiting', 1],
    ]);
    const reasons = figures.find((f) => f.name === 'reasons')!;
    expect(figureCsv(reasons)).toBe('verdict,reason,count\r\nreject,"blurry, ""video""",1\r\n');
  }, 60_000);

  it('hub stats --data DIR --json --svg OUT prints the figures and writes the files', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-stats-cli-'));
    dirs.push(dir);
    const hub = await openHubDb({ data: path.join(dir, 'hub') });
    let want: HubStats;
    try {
      await load(hub.db, synthesize(200), '');
      want = await hubStats(hub.db, { os: 'linux' });
    } finally {
      await hub.close();
    }
    const outDir = path.join(dir, 'svg');
    const run = await runCli([
      'hub',
      'stats',
      '--data',
      path.join(dir, 'hub'),
      '--os',
      'linux',
      '--json',
      '--svg',
      outDir,
    ]);
    expect(run.stderr).toContain('wrote 10 figures');
    expect(run.code).toBe(0);
    const got = JSON.parse(run.stdout) as HubStats;
    expect(got).toEqual(want);
    expect(Object.keys(got.accepted.byOs)).toEqual(['linux']);
    expect(got.team.annotators[0]).toMatchObject({
      user: expect.any(String),
      submitted: expect.any(Number),
      accepted: expect.any(Number),
    });
    const files = (await readdir(outDir)).sort();
    expect(files).toHaveLength(30);
    expect(files.filter((f) => f.endsWith('.svg'))).toHaveLength(10);
    const csv = await readFile(path.join(outDir, 'accepted-by-os.csv'), 'utf8');
    expect(csv).toBe(`os,count\r\nlinux,${want.accepted.total}\r\n`);
    // a bad date is a usage error
    const bad = await runCli(['hub', 'stats', '--data', path.join(dir, 'hub'), '--from', 'soon']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--from must be a date');
  }, 120_000);
});
