// The admin dashboard at scale (issue 28, docs/team-mode.md §18): 100,000 submissions whose
// current versions hold 2,000,000 steps (version_stats rows of migration 16: the hub keeps each
// version's OS, step count and action-kind counts, not the steps themselves), 50 annotators,
// 5 reviewers, 1,000 tasks, ~92,000 verdicts, written with INSERT … SELECT generate_series on
// Debian's PostgreSQL (started like the tests do, tests/helpers/postgres.ts). Measures:
//   1. each figure's query in hubStats (its `timings` argument), median of RUNS, unfiltered and
//      with each filter (OS, annotator, date range, task tag); aim < 200 ms each;
//   2. `cua-annotator hub stats --database URL --json` as a process (the built CLI: run
//      `npm run build:node` first), median of RUNS wall times; aim < 2 s;
//   3. the Dashboard's first paint in Debian's Chromium (playwright-core) against
//      `cua-annotator hub --database URL`: from navigation to #/dashboard until the headline
//      numbers show, median of RUNS page loads of a signed-in admin; aim < 1 s.
// Prints the load average before and after: the figures are only as good as the machine's quiet.
//   npx tsx bench/hub-stats.ts     (BENCH_SUBMISSIONS, BENCH_RUNS, BENCH_PAINT=0 to skip 3)
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openHubDb, type HubRootDb } from '../src/hub/db';
import { hubStats, type StatsFilter, type StatsTimings } from '../src/hub/db/queries/stats';
import { launchChromium } from '../tests/e2e/chromium';
import { run } from '../tests/e2e/serve';
import { addHubUser, HUB_BIN, startHubProcess } from '../tests/hub/hub-process';
import { startPostgres } from '../tests/helpers/postgres';
import { REPO_ROOT } from '../tests/helpers/paths';

const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PAINT = process.env.BENCH_PAINT !== '0';
const ANNOTATORS = 50;
const REVIEWERS = 5;
const TASKS = 1000;
const DAY_MS = 86_400_000;
const T0 = Date.UTC(2026, 5, 1); // the first submission; they spread over 180 days
const AIM_QUERY_MS = 200;
const AIM_CLI_MS = 2000;
const AIM_PAINT_MS = 1000;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const load = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

// Everything in one transaction (one connection, so setseed makes random() repeatable).
async function seed(db: HubRootDb): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`SELECT setseed(0.28)`.execute(tx);
    await sql`
      INSERT INTO users (name, password_hash)
      SELECT 'ann-' || g, '$argon2id$bench-not-a-hash' FROM generate_series(1, ${ANNOTATORS}) g
      UNION ALL
      SELECT 'rev-' || g, '$argon2id$bench-not-a-hash' FROM generate_series(1, ${REVIEWERS}) g
    `.execute(tx);
    await sql`
      INSERT INTO tasks (instruction, instruction_key, domain, app, platform, target, tags)
      SELECT 'Task ' || g, 'task ' || g, (ARRAY['os', 'office', 'web', 'dev', 'media'])[1 + g % 5],
             'app-' || (g % 140), (ARRAY['win', 'mac', 'ubuntu', 'any'])[1 + g % 4], 100,
             jsonb_build_array('t' || (g % 10), CASE WHEN g % 3 = 0 THEN 'easy' ELSE 'hard' END)
      FROM generate_series(1, ${TASKS}) g`.execute(tx);
    // 60 % accepted (a tenth of them on a second version after "changes"), 15 % rejected,
    // 10 % changes, 15 % waiting; 70 % linked to a task
    await sql`
      INSERT INTO submissions (annotator_id, recording_id, task, status, current_version,
                               waiting_since, created_at, task_id)
      SELECT u.id, 'rec-' || x.g, 'a task', x.status,
             CASE WHEN x.status = 'accepted' AND x.g % 10 = 3 THEN 2 ELSE 1 END,
             CASE WHEN x.status = 'submitted' THEN x.created END, x.created,
             CASE WHEN x.g % 10 < 7 THEN t.id END
      FROM (
        SELECT g, r,
               CASE WHEN r < 0.60 THEN 'accepted' WHEN r < 0.75 THEN 'rejected'
                    WHEN r < 0.85 THEN 'changes' ELSE 'submitted' END AS status,
               to_timestamp(${T0 / 1000} + (g::float8 / ${SUBMISSIONS}) * 180 * 86400
                            + random() * 3600) AS created
        FROM (SELECT g, random() AS r FROM generate_series(1, ${SUBMISSIONS}) g) AS gr
      ) AS x
      JOIN users AS u ON u.name = 'ann-' || (1 + (x.g * 7) % ${ANNOTATORS})
      JOIN tasks AS t ON t.instruction_key = 'task ' || (1 + (x.g * 31) % ${TASKS})`.execute(tx);
    await sql`
      INSERT INTO submission_versions (submission_id, version, manifest_sha256, object_prefix,
                                       submitted_at)
      SELECT s.id, v, lpad(to_hex(s.id * 2 + v), 64, '0'), 'subs/' || s.id || '/v' || v,
             s.created_at + (v - 1) * interval '1 day'
      FROM submissions AS s, generate_series(1, s.current_version) AS v`.execute(tx);
    // steps 1..39 (mean 20) split over six kinds; OS as AgentNet's split (55 % Windows,
    // 23 % macOS, 22 % Ubuntu)
    await sql`
      INSERT INTO version_stats (submission_id, version, os, step_count, action_counts, video_ms,
                                 keyframe_count)
      SELECT id, version,
             CASE WHEN o < 0.55 THEN 'win32' WHEN o < 0.78 THEN 'darwin' ELSE 'linux' END, n,
             jsonb_strip_nulls(jsonb_build_object(
               'click', nullif(c, 0), 'write', nullif(w, 0), 'hotkey', nullif(h, 0),
               'scroll', nullif(sc, 0), 'drag', nullif(d, 0),
               'doubleClick', nullif(n - c - w - h - sc - d, 0))),
             n * (2000 + floor(random() * 4000))::bigint, n
      FROM (
        SELECT id, version, o, n, c, w, h, sc, floor((n - c - w - h - sc) * 0.5)::int AS d
        FROM (
          SELECT id, version, o, n, c, w, h, floor((n - c - w - h) * 0.5)::int AS sc
          FROM (
            SELECT id, version, o, n, c, w, floor((n - c - w) * 0.4)::int AS h
            FROM (
              SELECT id, version, o, n, c, floor((n - c) * random() * 0.6)::int AS w
              FROM (
                SELECT sv.submission_id AS id, sv.version, random() AS o,
                       1 + floor(random() * 39)::int AS n
                FROM submission_versions AS sv
              ) AS a0
              CROSS JOIN LATERAL (SELECT floor(n * (0.3 + random() * 0.4))::int AS c) AS cc
            ) AS a1
          ) AS a2
        ) AS a3
      ) AS a4`.execute(tx);
    // a verdict on every judged current version, a "changes" on the first of two
    await sql`
      INSERT INTO verdicts (submission_id, version, reviewer_id, verdict, grade, feedback, at)
      SELECT s.id, v.version, r.id, v.verdict,
             CASE WHEN v.verdict = 'accept'
                  THEN (ARRAY['excellent', 'good', 'ok'])[1 + (s.id % 3)] END,
             CASE WHEN v.verdict = 'accept' THEN 'fine'
                  ELSE (ARRAY['Blurry video', 'Wrong task' || E'\n' || 'more detail',
                              'Missing steps', ''])[1 + (s.id % 4)] END,
             sv.submitted_at + random() * interval '3 days'
      FROM submissions AS s
      CROSS JOIN LATERAL (
        SELECT s.current_version AS version,
               CASE s.status WHEN 'accepted' THEN 'accept' WHEN 'rejected' THEN 'reject'
                             ELSE 'changes' END AS verdict
        UNION ALL
        SELECT 1, 'changes' WHERE s.current_version = 2
      ) AS v
      JOIN submission_versions AS sv ON sv.submission_id = s.id AND sv.version = v.version
      JOIN users AS r ON r.name = 'rev-' || (1 + (s.id + v.version) % ${REVIEWERS})
      WHERE s.status <> 'submitted'`.execute(tx);
  });
  await sql`ANALYZE`.execute(db);
}

type Figures = {
  filter: string;
  perFigure: Record<string, number>;
  wall: number;
  together: number;
};

// hubStats RUNS times per filter (after one warm-up run): each figure's median, each figure
// alone on the server (oneAtATime: one after another), the sum of that one-at-a-time call, and
// the whole call as the hub makes it (the figures at once, each on its own pooled connection)
async function measureQueries(db: HubRootDb, filters: [string, StatsFilter][]): Promise<Figures[]> {
  const out: Figures[] = [];
  for (const [name, filter] of filters) {
    await hubStats(db, filter);
    const per: Record<string, number[]> = {};
    const walls: number[] = [];
    const together: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const timings: StatsTimings = {};
      let t = performance.now();
      await hubStats(db, filter, { timings, oneAtATime: true });
      walls.push(performance.now() - t);
      t = performance.now();
      await hubStats(db, filter);
      together.push(performance.now() - t);
      for (const [k, ms] of Object.entries(timings)) {
        (per[k] ??= []).push(ms);
      }
    }
    out.push({
      filter: name,
      perFigure: Object.fromEntries(Object.entries(per).map(([k, xs]) => [k, median(xs)])),
      wall: median(walls),
      together: median(together),
    });
  }
  return out;
}

// `hub stats --database URL --json` as a process, RUNS times (after one warm-up run that also
// fills Node's compile cache)
async function measureCli(url: string): Promise<{ ms: number; accepted: number }> {
  const run = async () => {
    const t = performance.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [HUB_BIN, 'hub', 'stats', '--database', url, '--json'],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CUA_ANNOTATOR_FROM_SOURCE: '' } },
    );
    return { ms: performance.now() - t, stdout };
  };
  const first = await run();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    ms.push((await run()).ms);
  }
  const parsed = JSON.parse(first.stdout) as { accepted: { total: number } };
  return { ms: median(ms), accepted: parsed.accepted.total };
}

// The Dashboard in Chromium: sign in once (one-time password, then a new one), then RUNS fresh
// pages of the signed-in context, each timed from goto(#/dashboard) to the accepted count shown
async function measurePaint(
  url: string,
  expectAccepted: number,
): Promise<{ ms: number[]; figuresMs: number[] }> {
  // a fresh build of src/renderer: out/renderer may predate the sources out/node was built from
  const renderer = await mkdtemp(path.join(os.tmpdir(), 'hub-stats-renderer-'));
  await run(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', 'vite', 'bin', 'vite.js'),
    ...['build', '-c', 'vite.renderer.config.ts', '--outDir', renderer, '--emptyOutDir'],
    ...['--logLevel', 'warn'],
  ]);
  const env = { CUA_ANNOTATOR_FROM_SOURCE: '' };
  const oneTime = await addHubUser('boss', ['admin'], ['--database', url]);
  const hub = await startHubProcess(['--database', url, '--renderer', renderer], { env });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const first = await context.newPage();
    await first.goto(`${hub.url}/`);
    await first.getByLabel('Name').fill('boss');
    await first.getByLabel('Password', { exact: true }).fill(oneTime);
    await first.getByRole('button', { name: 'Sign in' }).click();
    await first.getByTestId('hub-change-password').waitFor();
    await first.getByLabel('New password', { exact: true }).fill('boss has a long password');
    await first.getByLabel('New password again').fill('boss has a long password');
    await first.getByRole('button', { name: 'Change password' }).click();
    await first.getByTestId('hub-nav-dashboard').click();
    try {
      await first.getByTestId('hub-dash-accepted').waitFor({ timeout: 60_000 });
    } catch (e) {
      // what the page and the hub said instead
      console.error(await first.locator('body').innerText(), hub.stderr());
      throw e;
    }
    await first.close();
    const ms: number[] = [];
    const figuresMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await context.newPage();
      const t = performance.now();
      await page.goto(`${hub.url}/#/dashboard`);
      const accepted = page.getByTestId('hub-dash-accepted');
      await accepted.waitFor({ timeout: 60_000 });
      ms.push(performance.now() - t);
      // the figures render after the headline numbers (deferred): the last one's table shown
      await page.getByTestId('hub-fig-qa-agreement').getByRole('table').waitFor({
        timeout: 60_000,
      });
      figuresMs.push(performance.now() - t);
      const shown = await accepted.textContent();
      if (shown !== String(expectAccepted)) {
        throw new Error(`the dashboard shows ${shown} accepted, the SQL ${expectAccepted}`);
      }
      await page.close();
    }
    await context.close();
    return { ms, figuresMs };
  } finally {
    await browser.close();
    await hub.stop('SIGTERM');
    await rm(renderer, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(REPO_ROOT, 'out', 'node', 'cli.js'))) {
    throw new Error('no out/node/cli.js: run npm run build:node first');
  }
  console.log(`load average (1/5/15 min) at the start: ${load()} on ${os.cpus().length} cores`);
  const server = await startPostgres();
  const url = await server.createDatabase();
  const hub = await openHubDb({ url });
  try {
    const db = hub.db;
    let t = performance.now();
    await seed(db);
    const seedMs = performance.now() - t;
    const { rows } = await sql<{ subs: number; steps: number; verdicts: number }>`
      SELECT (SELECT count(*) FROM submissions)::int AS subs,
             (SELECT sum(st.step_count) FROM submissions s JOIN version_stats st
                ON st.submission_id = s.id AND st.version = s.current_version)::int AS steps,
             (SELECT count(*) FROM verdicts)::int AS verdicts`.execute(db);
    const sizes = rows[0]!;
    console.log(
      `data: ${sizes.subs} submissions, ${sizes.steps} steps in their current versions, ` +
        `${sizes.verdicts} verdicts; written and analysed in ${(seedMs / 1000).toFixed(1)} s`,
    );
    const filters: [string, StatsFilter][] = [
      ['none', {}],
      ['OS = linux', { os: 'linux' }],
      ['annotator = ann-7', { annotator: 'ann-7' }],
      ['30 days', { fromMs: T0 + 60 * DAY_MS, toMs: T0 + 90 * DAY_MS }],
      ['tag = t3', { tag: 't3' }],
    ];
    t = performance.now();
    const figures = await measureQueries(db, filters);
    const queriesMs = performance.now() - t;
    const names = Object.keys(figures[0]!.perFigure);
    const f0 = (x: number) => x.toFixed(0);
    console.log(
      `\n1. each figure's query, median of ${RUNS} (ms; aim < ${AIM_QUERY_MS}; worst / aim)`,
    );
    console.log(['figure', ...filters.map(([n]) => n), 'worst / aim'].join(' | '));
    const ONE = 'hubStats, one at a time (sum)';
    const AT_ONCE = 'hubStats, at once (as the hub)';
    for (const n of [...names, ONE, AT_ONCE]) {
      const xs = figures.map((f) =>
        n === ONE ? f.wall : n === AT_ONCE ? f.together : f.perFigure[n]!,
      );
      const worst = Math.max(...xs);
      const ratio = n === ONE || n === AT_ONCE ? '' : `${(worst / AIM_QUERY_MS).toFixed(2)}×`;
      console.log([n, ...xs.map(f0), ratio].join(' | '));
    }
    const worstFigure = Math.max(...figures.flatMap((f) => Object.values(f.perFigure)));
    const all = await hubStats(db, {});
    console.log(`(measuring 1 took ${(queriesMs / 1000).toFixed(1)} s; load ${load()})`);

    const cli = await measureCli(url);
    if (cli.accepted !== all.accepted.total) {
      throw new Error(`hub stats printed ${cli.accepted} accepted, hubStats ${all.accepted.total}`);
    }
    console.log(
      `\n2. hub stats --database URL --json, median of ${RUNS}: ${f0(cli.ms)} ms ` +
        `(aim < ${AIM_CLI_MS}: ${(cli.ms / AIM_CLI_MS).toFixed(2)}×; load ${load()})`,
    );

    let paint: number | null = null;
    if (PAINT) {
      const { ms, figuresMs } = await measurePaint(url, all.accepted.total);
      paint = median(ms);
      console.log(
        `\n3. Dashboard first paint (goto #/dashboard → accepted count shown), median of ` +
          `${RUNS}: ${f0(paint)} ms (runs ${ms.map(f0).join(', ')}; aim < ${AIM_PAINT_MS}: ` +
          `${(paint / AIM_PAINT_MS).toFixed(2)}×; load ${load()}); every figure's table ` +
          `shown: ${f0(median(figuresMs))} ms (runs ${figuresMs.map(f0).join(', ')})`,
      );
    }
    console.log('\nsummary | result | aim | ratio');
    console.log(
      `worst figure query | ${f0(worstFigure)} ms | < ${AIM_QUERY_MS} ms | ${(worstFigure / AIM_QUERY_MS).toFixed(2)}×`,
    );
    console.log(
      `hub stats --json | ${f0(cli.ms)} ms | < ${AIM_CLI_MS} ms | ${(cli.ms / AIM_CLI_MS).toFixed(2)}×`,
    );
    if (paint !== null) {
      console.log(
        `first paint | ${f0(paint)} ms | < ${AIM_PAINT_MS} ms | ${(paint / AIM_PAINT_MS).toFixed(2)}×`,
      );
    }
    console.log(`load average (1/5/15 min) at the end: ${load()} (a shared, loaded machine)`);
  } finally {
    await hub.close();
    await server.stop();
  }
}

await main();
