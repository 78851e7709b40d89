// The admin dashboard's figures (docs/team-mode.md §18): every number is SQL over the hub's
// tables here, nowhere else (house style §10). A submission counts with its current version;
// its date is when it was first registered (submissions.created_at). The version summaries
// (OS, steps, action kinds, video, keyframes) are the version_stats rows of migration 16.
import { sql, type RawBuilder } from 'kysely';
import {
  AGENTNET_MEAN_STEPS,
  STEP_BIN,
  STEP_BIN_LAST,
  type HubStats,
  type StatsFilter,
} from '../../../shared/contract/hub-stats';
import type { HubDb } from '../schema';
import { qaFigures } from './qa';

export { AGENTNET_MEAN_STEPS, STEP_BIN, STEP_BIN_LAST, type HubStats, type StatsFilter };

/** One labelled count. */
export type Count = { key: string; count: number };

// the filtered submissions with their current version's summary: the base of every figure, one
// scan of submission_facts (migration 18: a row per submission kept by triggers), no join; the
// annotator and tag filters become id lists. NOT MATERIALIZED: a figure that reads f twice (f
// and a) would otherwise have PostgreSQL write all of f to a temporary store first
function conditions(f: StatsFilter): RawBuilder<unknown>[] {
  const conds: RawBuilder<unknown>[] = [];
  if (f.fromMs !== undefined) {
    conds.push(sql`x.created_at >= ${new Date(f.fromMs)}`);
  }
  if (f.toMs !== undefined) {
    conds.push(sql`x.created_at < ${new Date(f.toMs)}`);
  }
  if (f.os !== undefined) {
    conds.push(sql`x.os = ${f.os}`);
  }
  if (f.annotator !== undefined) {
    conds.push(sql`x.annotator_id IN (SELECT id FROM users WHERE name = ${f.annotator})`);
  }
  if (f.tag !== undefined) {
    conds.push(
      sql`x.task_id IN (SELECT id FROM tasks WHERE tags @> ${JSON.stringify([f.tag])}::jsonb)`,
    );
  }
  return conds;
}

function filtered(f: StatsFilter): RawBuilder<unknown> {
  const conds = [sql`true`, ...conditions(f)];
  return sql`
    f AS NOT MATERIALIZED (
      SELECT x.submission_id AS id, x.status, x.annotator_id, x.task_id, x.created_at,
             x.version AS current_version, x.os, x.step_count, x.action_counts,
             x.entropy_bits, x.video_ms, x.keyframe_count
      FROM submission_facts AS x
      WHERE ${sql.join(conds, sql` AND `)}
    ),
    a AS (SELECT * FROM f WHERE status = 'accepted')`;
}

// the verdicts on the filtered submissions (every version's, not only the current one): one scan
// of verdict_facts (migration 18), whose rows carry their submission's filter columns
function filteredVerdicts(f: StatsFilter): RawBuilder<unknown> {
  const conds = [sql`x.created_at IS NOT NULL`, ...conditions(f)];
  return sql`
    vf AS NOT MATERIALIZED (
      SELECT x.verdict, x.grade, x.reason, x.turnaround_s, x.reviewer_id
      FROM verdict_facts AS x
      WHERE ${sql.join(conds, sql` AND `)}
    )`;
}

/** More kinds than this and the action mix expands every row's counts instead (a hub whose
 * bundles named many kinds: slower, still exact). */
const MAX_KNOWN_KINDS = 64;

/** Milliseconds per figure's query, filled in when asked (bench/hub-stats.ts). */
export type StatsTimings = Record<string, number>;

async function timed<T>(
  timings: StatsTimings | undefined,
  name: string,
  run: () => Promise<T>,
): Promise<T> {
  const t = performance.now();
  const r = await run();
  if (timings) {
    timings[name] = performance.now() - t;
  }
  return r;
}

const num = (v: unknown): number => Number(v ?? 0);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** How hubStats runs: `timings` is filled with each figure's milliseconds; `oneAtATime` runs
 * the figures one after another (a benchmark's per-figure times, each alone on the server). */
export type StatsOptions = { timings?: StatsTimings; oneAtATime?: boolean };

/** Every figure for `filter`. */
export async function hubStats(
  db: HubDb,
  filter: StatsFilter = {},
  options: StatsOptions = {},
): Promise<HubStats> {
  const { timings } = options;
  // the figures start together (on PostgreSQL each on its own pooled connection; PGlite's one
  // connection takes them in turn) unless asked one at a time: then each waits for the last
  let queue: Promise<unknown> = Promise.resolve();
  const figure = <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const go = () => timed(timings, name, run);
    if (!options.oneAtATime) {
      return go();
    }
    const before = queue;
    const p = (async () => {
      await before;
      return await go();
    })();
    queue = p.catch(() => undefined);
    return p;
  };
  const rows = <T>(name: string, body: RawBuilder<unknown>): Promise<T[]> =>
    figure(name, async () => (await sql<T>`WITH ${filtered(filter)} ${body}`.execute(db)).rows);
  const verdictRows = <T>(name: string, body: RawBuilder<unknown>): Promise<T[]> =>
    figure(
      name,
      async () => (await sql<T>`WITH ${filteredVerdicts(filter)} ${body}`.execute(db)).rows,
    );
  const totalsQ = rows<{
    total: number;
    mean: number | null;
    video_ms: number;
    keyframes: number;
  }>(
    'totals',
    sql`SELECT count(*)::int AS total, avg(step_count)::float8 AS mean,
               coalesce(sum(video_ms), 0)::float8 AS video_ms,
               coalesce(sum(keyframe_count), 0)::int AS keyframes
        FROM a`,
  );
  const byOsQ = rows<{ key: string; count: number }>(
    'byOs',
    sql`SELECT coalesce(os, 'unknown') AS key, count(*)::int AS count FROM a GROUP BY 1 ORDER BY 1`,
  );
  // by task first (one row per task), then the task's domain, app or instruction
  const byTaskColumn = (column: 'domain' | 'app') =>
    sql`SELECT coalesce(nullif(t.${sql.ref(column)}, ''), 'none') AS key,
               sum(x.n)::int AS count
        FROM (SELECT task_id, count(*) AS n FROM a GROUP BY task_id) AS x
        LEFT JOIN tasks AS t ON t.id = x.task_id
        GROUP BY 1 ORDER BY 2 DESC, 1`;
  const byDomainQ = rows<Count>('byDomain', byTaskColumn('domain'));
  const byAppQ = rows<Count>('byApp', byTaskColumn('app'));
  const byTaskQ = rows<{ task_id: number; instruction: string; count: number }>(
    'byTask',
    sql`SELECT x.task_id, t.instruction, x.n AS count
        FROM (SELECT task_id, count(*)::int AS n FROM a WHERE task_id IS NOT NULL
              GROUP BY task_id ORDER BY 2 DESC, 1 LIMIT 100) AS x
        JOIN tasks AS t ON t.id = x.task_id
        ORDER BY 3 DESC, 1`,
  );
  const histQ = rows<{ bin: number; count: number }>(
    'histogram',
    sql`SELECT least(step_count / ${STEP_BIN}, ${STEP_BIN_LAST / STEP_BIN})::int AS bin,
               count(*)::int AS count
        FROM a WHERE step_count IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  // the action mix: one sum per kind ever counted (action_kinds), each a key lookup in the
  // row's counts — expanding 60,000 rows' jsonb took 330 ms where this takes ~60
  // (bench/hub-stats.ts); a kind no filtered row has sums to null and is left out
  const actionsQ = figure('actions', async () => {
    const kinds = (
      await sql<{ kind: string }>`SELECT kind FROM action_kinds ORDER BY kind LIMIT ${
        MAX_KNOWN_KINDS + 1
      }`.execute(db)
    ).rows.map((r) => r.kind);
    if (kinds.length > MAX_KNOWN_KINDS) {
      return (
        await sql<{ kind: string; count: number }>`
          WITH ${filtered(filter)}
          SELECT kv.key AS kind, sum(kv.value::int)::int AS count
          FROM a CROSS JOIN LATERAL jsonb_each_text(a.action_counts) AS kv
          GROUP BY 1`.execute(db)
      ).rows;
    }
    if (kinds.length === 0) {
      return [];
    }
    const sums = kinds.map(
      (k, i) => sql`sum((action_counts ->> ${k})::int) AS ${sql.ref(`k${i}`)}`,
    );
    const [row] = (
      await sql<Record<string, number | null>>`
        WITH ${filtered(filter)} SELECT ${sql.join(sums)} FROM a`.execute(db)
    ).rows;
    return kinds.flatMap((kind, i) => {
      const n = row?.[`k${i}`];
      return n === null || n === undefined ? [] : [{ kind, count: Number(n) }];
    });
  });
  // entropy per trajectory (−Σ p·log2 p over its kinds, 0 for one kind) is kept with each row
  // (hub_action_entropy, migration 18); trajectories without steps have none (null) and are
  // left out of the mean
  const entropyQ = rows<{ mean: number | null }>(
    'entropy',
    sql`SELECT avg(entropy_bits)::float8 AS mean FROM a`,
  );
  const annotatorsQ = rows<{
    user: string;
    submitted: number;
    accepted: number;
    rejected: number;
    changes: number;
  }>(
    'annotators',
    sql`SELECT u.name AS user, x.submitted, x.accepted, x.rejected, x.changes
        FROM (
          SELECT annotator_id, count(*)::int AS submitted,
                 count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
                 count(*) FILTER (WHERE status = 'rejected')::int AS rejected,
                 count(*) FILTER (WHERE status = 'changes')::int AS changes
          FROM f GROUP BY 1
        ) AS x JOIN users AS u ON u.id = x.annotator_id
        ORDER BY 1`,
  );
  // submissions per annotator per UTC day or ISO week: grouped by the truncated date, labelled
  // after grouping (one to_char per group, not per row)
  const perPeriod = (unit: 'day' | 'week', label: string) =>
    sql`SELECT u.name AS user, to_char(x.period, ${label}) AS period, x.submitted
        FROM (
          SELECT annotator_id, date_trunc(${unit}, created_at AT TIME ZONE 'UTC') AS period,
                 count(*)::int AS submitted
          FROM f GROUP BY 1, 2
        ) AS x JOIN users AS u ON u.id = x.annotator_id
        ORDER BY 2, 1`;
  const perDayQ = rows<{ user: string; period: string; submitted: number }>(
    'perDay',
    perPeriod('day', 'YYYY-MM-DD'),
  );
  const perWeekQ = rows<{ user: string; period: string; submitted: number }>(
    'perWeek',
    perPeriod('week', 'IYYY-"W"IW'),
  );
  const gradesQ = verdictRows<{ grade: string; count: number }>(
    'grades',
    sql`SELECT grade, count(*)::int AS count
        FROM vf WHERE grade IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  const turnQ = verdictRows<{ count: number; mean: number | null; median: number | null }>(
    'turnaround',
    sql`SELECT count(*)::int AS count, avg(turnaround_s)::float8 AS mean,
               (percentile_cont(0.5) WITHIN GROUP (ORDER BY turnaround_s))::float8 AS median
        FROM vf`,
  );
  const reasonsQ = verdictRows<{ verdict: string; reason: string; count: number }>(
    'reasons',
    sql`SELECT verdict, coalesce(nullif(reason, ''), '(none)') AS reason, count(*)::int AS count
        FROM vf WHERE verdict <> 'accept' GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 50`,
  );
  const reviewersQ = verdictRows<{
    reviewer: string;
    verdicts: number;
    accept: number;
    reject: number;
    changes: number;
  }>(
    'reviewers',
    sql`SELECT r.name AS reviewer, x.verdicts, x.accept, x.reject, x.changes
        FROM (
          SELECT reviewer_id, count(*)::int AS verdicts,
                 count(*) FILTER (WHERE verdict = 'accept')::int AS accept,
                 count(*) FILTER (WHERE verdict = 'reject')::int AS reject,
                 count(*) FILTER (WHERE verdict = 'changes')::int AS changes
          FROM vf GROUP BY 1
        ) AS x JOIN users AS r ON r.id = x.reviewer_id
        ORDER BY 1`,
  );
  const lastBin = STEP_BIN_LAST / STEP_BIN;
  // the queries run at once: on PostgreSQL each on its own pooled connection (the dashboard's
  // first paint waited for 16 of them one after another); PGlite's one connection takes them in turn
  const [
    [totals],
    byOs,
    byDomain,
    byApp,
    byTask,
    hist,
    actions,
    [entropy],
    annotators,
    perDay,
    perWeek,
    grades,
    [turn],
    reasons,
    reviewers,
    qa,
  ] = await Promise.all([
    totalsQ,
    byOsQ,
    byDomainQ,
    byAppQ,
    byTaskQ,
    histQ,
    actionsQ,
    entropyQ,
    annotatorsQ,
    perDayQ,
    perWeekQ,
    gradesQ,
    turnQ,
    reasonsQ,
    reviewersQ,
    figure('qa', () => qaFigures(db, filtered(filter))),
  ]);
  return {
    filter,
    accepted: {
      total: num(totals?.total),
      byOs: Object.fromEntries(byOs.map((r) => [r.key, num(r.count)])),
      byDomain: byDomain.map((r) => ({ key: r.key, count: num(r.count) })),
      byApp: byApp.map((r) => ({ key: r.key, count: num(r.count) })),
      byTask: byTask.map((r) => ({
        taskId: num(r.task_id),
        instruction: r.instruction,
        count: num(r.count),
      })),
    },
    steps: {
      mean: numOrNull(totals?.mean),
      agentnetMean: AGENTNET_MEAN_STEPS,
      histogram: Array.from({ length: lastBin + 1 }, (_, bin) => ({
        from: bin * STEP_BIN,
        to: bin === lastBin ? null : (bin + 1) * STEP_BIN,
        count: num(hist.find((h) => num(h.bin) === bin)?.count),
      })),
    },
    actions: {
      counts: Object.fromEntries(
        actions
          .map((r) => ({ kind: r.kind, count: num(r.count) }))
          .sort((x, y) => y.count - x.count || (x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0))
          .map((r) => [r.kind, r.count]),
      ),
      meanEntropyBits: numOrNull(entropy?.mean),
    },
    video: { hours: num(totals?.video_ms) / 3_600_000 },
    keyframes: { count: num(totals?.keyframes) },
    team: {
      annotators: annotators.map((r) => {
        const [accepted, rejected] = [num(r.accepted), num(r.rejected)];
        return {
          user: r.user,
          submitted: num(r.submitted),
          accepted,
          rejected,
          changes: num(r.changes),
          acceptanceRate: accepted + rejected ? accepted / (accepted + rejected) : null,
        };
      }),
      perDay: perDay.map((r) => ({ user: r.user, day: r.period, submitted: num(r.submitted) })),
      perWeek: perWeek.map((r) => ({ user: r.user, week: r.period, submitted: num(r.submitted) })),
      grades: Object.fromEntries(grades.map((r) => [r.grade, num(r.count)])),
      turnaround: {
        count: num(turn?.count),
        meanSeconds: numOrNull(turn?.mean),
        medianSeconds: numOrNull(turn?.median),
      },
      reasons: reasons.map((r) => ({ verdict: r.verdict, reason: r.reason, count: num(r.count) })),
      reviewers: reviewers.map((r) => ({
        reviewer: r.reviewer,
        verdicts: num(r.verdicts),
        accept: num(r.accept),
        reject: num(r.reject),
        changes: num(r.changes),
      })),
    },
    qa,
  };
}

/** A version's dashboard summary (migration 16). */
export type VersionSummary = {
  os: string;
  stepCount: number;
  actionCounts: Record<string, number>;
  videoMs: number;
  keyframeCount: number;
};

/** Writes a version's summary once (a re-registration of the same bytes keeps the first). */
export async function insertVersionStats(
  db: HubDb,
  submissionId: number,
  version: number,
  s: VersionSummary,
): Promise<void> {
  await db
    .insertInto('version_stats')
    .values({
      submission_id: submissionId,
      version,
      os: s.os.slice(0, 40),
      step_count: s.stepCount,
      action_counts: JSON.stringify(s.actionCounts),
      video_ms: Math.max(0, Math.round(s.videoMs)),
      keyframe_count: s.keyframeCount,
    })
    .onConflict((oc) => oc.columns(['submission_id', 'version']).doNothing())
    .execute();
}
