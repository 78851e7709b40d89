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

// the filtered submissions with their current version's summary: the base of every figure.
// NOT MATERIALIZED: a figure that reads f twice (f and a) would otherwise have PostgreSQL write
// all of f, wide rows included, to a temporary store first (spilling to disk at 100,000
// submissions); inlined, each figure joins only the tables it reads (bench/hub-stats.ts)
function filtered(f: StatsFilter): RawBuilder<unknown> {
  const conds: RawBuilder<unknown>[] = [sql`s.current_version > 0`];
  if (f.fromMs !== undefined) {
    conds.push(sql`s.created_at >= ${new Date(f.fromMs)}`);
  }
  if (f.toMs !== undefined) {
    conds.push(sql`s.created_at < ${new Date(f.toMs)}`);
  }
  if (f.os !== undefined) {
    conds.push(sql`st.os = ${f.os}`);
  }
  if (f.annotator !== undefined) {
    conds.push(sql`u.name = ${f.annotator}`);
  }
  if (f.tag !== undefined) {
    conds.push(sql`t.tags @> ${JSON.stringify([f.tag])}::jsonb`);
  }
  return sql`
    f AS NOT MATERIALIZED (
      SELECT s.id, s.status, s.annotator_id, u.name AS annotator, s.task_id, s.created_at,
             s.current_version, st.os, st.step_count, st.action_counts, st.video_ms,
             st.keyframe_count, t.domain, t.app, t.instruction
      FROM submissions AS s
      JOIN users AS u ON u.id = s.annotator_id
      LEFT JOIN version_stats AS st
        ON st.submission_id = s.id AND st.version = s.current_version
      LEFT JOIN tasks AS t ON t.id = s.task_id
      WHERE ${sql.join(conds, sql` AND `)}
    ),
    a AS (SELECT * FROM f WHERE status = 'accepted')`;
}

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

/** Every figure for `filter`. */
export async function hubStats(
  db: HubDb,
  filter: StatsFilter = {},
  timings?: StatsTimings,
): Promise<HubStats> {
  const rows = async <T>(name: string, body: RawBuilder<unknown>): Promise<T[]> =>
    await timed(
      timings,
      name,
      async () => (await sql<T>`WITH ${filtered(filter)} ${body}`.execute(db)).rows,
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
  const byDomainQ = rows<Count>(
    'byDomain',
    sql`SELECT coalesce(nullif(domain, ''), 'none') AS key, count(*)::int AS count
        FROM a GROUP BY 1 ORDER BY 2 DESC, 1`,
  );
  const byAppQ = rows<Count>(
    'byApp',
    sql`SELECT coalesce(nullif(app, ''), 'none') AS key, count(*)::int AS count
        FROM a GROUP BY 1 ORDER BY 2 DESC, 1`,
  );
  const byTaskQ = rows<{ task_id: number; instruction: string; count: number }>(
    'byTask',
    sql`SELECT task_id, min(instruction) AS instruction, count(*)::int AS count
        FROM a WHERE task_id IS NOT NULL GROUP BY task_id ORDER BY 3 DESC, 1 LIMIT 100`,
  );
  const histQ = rows<{ bin: number; count: number }>(
    'histogram',
    sql`SELECT least(step_count / ${STEP_BIN}, ${STEP_BIN_LAST / STEP_BIN})::int AS bin,
               count(*)::int AS count
        FROM a WHERE step_count IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  const actionsQ = rows<{ kind: string; count: number }>(
    'actions',
    sql`SELECT kv.key AS kind, sum(kv.value::int)::int AS count
        FROM a CROSS JOIN LATERAL jsonb_each_text(a.action_counts) AS kv
        GROUP BY 1 ORDER BY 2 DESC, 1`,
  );
  // entropy per trajectory: −Σ p·log2 p over its kinds (0 for one kind), as
  // (ln N − Σ n·ln n / N) / ln 2 with N = Σ n: one pass over each row's counts, half the time of
  // a window over them (bench/hub-stats.ts); trajectories without steps have none (null) and
  // are left out of the mean
  const entropyQ = rows<{ mean: number | null }>(
    'entropy',
    sql`SELECT avg(e)::float8 AS mean
        FROM a CROSS JOIN LATERAL (
          SELECT (ln(sum(n)) - sum(n * ln(n)) / sum(n)) / ln(2) AS e
          FROM (SELECT kv.value::float8 AS n FROM jsonb_each_text(a.action_counts) AS kv) AS k
          WHERE n > 0
        ) AS x`,
  );
  const annotatorsQ = rows<{
    user: string;
    submitted: number;
    accepted: number;
    rejected: number;
    changes: number;
  }>(
    'annotators',
    sql`SELECT annotator AS user, count(*)::int AS submitted,
               count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
               count(*) FILTER (WHERE status = 'rejected')::int AS rejected,
               count(*) FILTER (WHERE status = 'changes')::int AS changes
        FROM f GROUP BY 1 ORDER BY 1`,
  );
  const perDayQ = rows<{ user: string; day: string; submitted: number }>(
    'perDay',
    sql`SELECT annotator AS user, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
               count(*)::int AS submitted
        FROM f GROUP BY 1, 2 ORDER BY 2, 1`,
  );
  const perWeekQ = rows<{ user: string; week: string; submitted: number }>(
    'perWeek',
    sql`SELECT annotator AS user, to_char(created_at AT TIME ZONE 'UTC', 'IYYY-"W"IW') AS week,
               count(*)::int AS submitted
        FROM f GROUP BY 1, 2 ORDER BY 2, 1`,
  );
  // verdicts on the filtered submissions (every version's, not only the current one)
  const gradesQ = rows<{ grade: string; count: number }>(
    'grades',
    sql`SELECT v.grade, count(*)::int AS count
        FROM f JOIN verdicts AS v ON v.submission_id = f.id
        WHERE v.grade IS NOT NULL GROUP BY 1 ORDER BY 1`,
  );
  const turnQ = rows<{ count: number; mean: number | null; median: number | null }>(
    'turnaround',
    sql`SELECT count(*)::int AS count, avg(d)::float8 AS mean,
               (percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::float8 AS median
        FROM (
          SELECT extract(epoch FROM v.at - sv.submitted_at)::float8 AS d
          FROM f JOIN verdicts AS v ON v.submission_id = f.id
          JOIN submission_versions AS sv
            ON sv.submission_id = v.submission_id AND sv.version = v.version
        ) AS x`,
  );
  const reasonsQ = rows<{ verdict: string; reason: string; count: number }>(
    'reasons',
    sql`SELECT v.verdict,
               coalesce(nullif(lower(trim(split_part(v.feedback, E'\n', 1))), ''), '(none)')
                 AS reason,
               count(*)::int AS count
        FROM f JOIN verdicts AS v ON v.submission_id = f.id
        WHERE v.verdict <> 'accept' GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 50`,
  );
  const reviewersQ = rows<{
    reviewer: string;
    verdicts: number;
    accept: number;
    reject: number;
    changes: number;
  }>(
    'reviewers',
    sql`SELECT r.name AS reviewer, count(*)::int AS verdicts,
               count(*) FILTER (WHERE v.verdict = 'accept')::int AS accept,
               count(*) FILTER (WHERE v.verdict = 'reject')::int AS reject,
               count(*) FILTER (WHERE v.verdict = 'changes')::int AS changes
        FROM f JOIN verdicts AS v ON v.submission_id = f.id
        JOIN users AS r ON r.id = v.reviewer_id
        GROUP BY 1 ORDER BY 1`,
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
    timed(timings, 'qa', () => qaFigures(db, filtered(filter))),
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
      counts: Object.fromEntries(actions.map((r) => [r.kind, num(r.count)])),
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
      perDay: perDay.map((r) => ({ user: r.user, day: r.day, submitted: num(r.submitted) })),
      perWeek: perWeek.map((r) => ({ user: r.user, week: r.week, submitted: num(r.submitted) })),
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
