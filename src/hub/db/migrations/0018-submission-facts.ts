// Hub migration 18: the dashboard's summary table (docs/team-mode.md §18). One narrow row per
// submission with what every figure filters and counts: the submission's status, annotator,
// task and date beside its current version's summary (version_stats) and that version's action
// entropy, so a figure is one scan of one table instead of a four-table join per query
// (bench/hub-stats.ts: 100,000 submissions). `verdict_facts` does the same for verdicts: each
// with its reason, its turnaround (submitted → verdict) and a copy of its submission's filter
// columns. Kept true by triggers in the same transaction as every write to submissions,
// version_stats and verdicts, whoever writes (the hub, a worker, an admin's SQL);
// `action_kinds` lists every kind ever counted so the action mix reads known keys instead of
// expanding every row's jsonb. Released migrations are never edited.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates submission_facts, verdict_facts and action_kinds, their triggers, and fills them
 * from today's rows. */
export async function migrate0018(db: HubDb): Promise<void> {
  // no write to what the new tables summarise between their filling and their triggers (a hub
  // of the previous build still running against this database waits for the commit)
  await sql`LOCK TABLE submissions, version_stats, verdicts IN SHARE ROW EXCLUSIVE MODE`.execute(
    db,
  );
  await sql`
    CREATE TABLE submission_facts (
      submission_id bigint PRIMARY KEY REFERENCES submissions (id) ON DELETE CASCADE,
      status text NOT NULL,
      annotator_id bigint NOT NULL,
      task_id bigint,
      created_at timestamptz NOT NULL,
      version integer NOT NULL,
      -- the current version's summary; null while it has none (version_stats not yet written)
      os text,
      step_count integer,
      action_counts jsonb,
      -- −Σ p·log2 p over the action kinds; null without steps
      entropy_bits float8,
      video_ms bigint,
      keyframe_count integer
    )`.execute(db);
  await sql`CREATE INDEX submission_facts_status_created ON submission_facts (status, created_at)`.execute(
    db,
  );
  await sql`CREATE INDEX submission_facts_annotator ON submission_facts (annotator_id, created_at)`.execute(
    db,
  );
  await sql`CREATE INDEX submission_facts_task ON submission_facts (task_id)`.execute(db);
  await sql`CREATE TABLE action_kinds (kind text PRIMARY KEY)`.execute(db);
  await sql`
    CREATE TABLE verdict_facts (
      verdict_id bigint PRIMARY KEY REFERENCES verdicts (id) ON DELETE CASCADE,
      submission_id bigint NOT NULL,
      reviewer_id bigint NOT NULL,
      verdict text NOT NULL,
      grade text,
      -- the feedback's first line, trimmed and lower-cased: the reviewer's reason ('' if none)
      reason text NOT NULL,
      -- seconds from the version's submission to this verdict
      turnaround_s float8 NOT NULL,
      -- the submission's filter columns, as in submission_facts (null while it has no row there)
      annotator_id bigint,
      task_id bigint,
      created_at timestamptz,
      os text
    )`.execute(db);
  await sql`CREATE INDEX verdict_facts_submission ON verdict_facts (submission_id)`.execute(db);
  await sql`CREATE INDEX verdict_facts_created ON verdict_facts (created_at)`.execute(db);
  await sql`CREATE INDEX verdict_facts_annotator ON verdict_facts (annotator_id)`.execute(db);
  // the entropy of one version's counts, as the dashboard defined it before this table:
  // (ln N − Σ n·ln n / N) / ln 2 over the kinds with n > 0, N = Σ n
  await sql`
    CREATE FUNCTION hub_action_entropy(counts jsonb) RETURNS float8
    LANGUAGE sql IMMUTABLE AS $$
      SELECT (ln(sum(n)) - sum(n * ln(n)) / sum(n)) / ln(2)
      FROM (SELECT kv.value::float8 AS n FROM jsonb_each_text(counts) AS kv) AS k
      WHERE n > 0
    $$`.execute(db);
  // one submission's row from its tables: written, rewritten, or removed (no version yet)
  await sql`
    CREATE FUNCTION hub_refresh_submission_fact(sid bigint) RETURNS void
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO submission_facts AS x (submission_id, status, annotator_id, task_id,
                                         created_at, version, os, step_count, action_counts,
                                         entropy_bits, video_ms, keyframe_count)
      SELECT s.id, s.status, s.annotator_id, s.task_id, s.created_at, s.current_version,
             st.os, st.step_count, st.action_counts, hub_action_entropy(st.action_counts),
             st.video_ms, st.keyframe_count
      FROM submissions AS s
      LEFT JOIN version_stats AS st
        ON st.submission_id = s.id AND st.version = s.current_version
      WHERE s.id = sid AND s.current_version > 0
      ON CONFLICT (submission_id) DO UPDATE SET
        status = EXCLUDED.status, annotator_id = EXCLUDED.annotator_id,
        task_id = EXCLUDED.task_id, created_at = EXCLUDED.created_at,
        version = EXCLUDED.version, os = EXCLUDED.os, step_count = EXCLUDED.step_count,
        action_counts = EXCLUDED.action_counts, entropy_bits = EXCLUDED.entropy_bits,
        video_ms = EXCLUDED.video_ms, keyframe_count = EXCLUDED.keyframe_count;
      IF NOT FOUND THEN
        DELETE FROM submission_facts WHERE submission_id = sid;
      END IF;
    END
    $$`.execute(db);
  await sql`
    CREATE FUNCTION hub_submissions_fact_trigger() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM hub_refresh_submission_fact(NEW.id);
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER submissions_fact
    AFTER INSERT OR UPDATE OF status, annotator_id, task_id, created_at, current_version
    ON submissions FOR EACH ROW EXECUTE FUNCTION hub_submissions_fact_trigger()`.execute(db);
  await sql`
    CREATE FUNCTION hub_version_stats_fact_trigger() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO action_kinds (kind)
      SELECT k FROM jsonb_object_keys(NEW.action_counts) AS k
      ON CONFLICT (kind) DO NOTHING;
      PERFORM hub_refresh_submission_fact(NEW.submission_id);
      RETURN NULL;
    END
    $$`.execute(db);
  // a verdict's row, with its submission's filter columns as they are now
  await sql`
    CREATE FUNCTION hub_verdicts_fact_trigger() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO verdict_facts (verdict_id, submission_id, reviewer_id, verdict, grade, reason,
                                 turnaround_s, annotator_id, task_id, created_at, os)
      SELECT NEW.id, NEW.submission_id, NEW.reviewer_id, NEW.verdict, NEW.grade,
             lower(trim(split_part(NEW.feedback, E'\n', 1))),
             extract(epoch FROM NEW.at - sv.submitted_at)::float8,
             x.annotator_id, x.task_id, x.created_at, x.os
      FROM submission_versions AS sv
      LEFT JOIN submission_facts AS x ON x.submission_id = NEW.submission_id
      WHERE sv.submission_id = NEW.submission_id AND sv.version = NEW.version;
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER verdicts_fact
    AFTER INSERT ON verdicts FOR EACH ROW EXECUTE FUNCTION hub_verdicts_fact_trigger()`.execute(db);
  // a submission's filter columns changed (its OS with a new version, a task linked later): its
  // verdicts' copies follow; gone from submission_facts: nulls
  await sql`
    CREATE FUNCTION hub_submission_facts_verdicts_trigger() RETURNS trigger
    LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        UPDATE verdict_facts
        SET annotator_id = NULL, task_id = NULL, created_at = NULL, os = NULL
        WHERE submission_id = OLD.submission_id;
        RETURN NULL;
      END IF;
      UPDATE verdict_facts AS v
      SET annotator_id = NEW.annotator_id, task_id = NEW.task_id,
          created_at = NEW.created_at, os = NEW.os
      WHERE v.submission_id = NEW.submission_id
        AND (v.annotator_id, v.task_id, v.created_at, v.os)
            IS DISTINCT FROM (NEW.annotator_id, NEW.task_id, NEW.created_at, NEW.os);
      RETURN NULL;
    END
    $$`.execute(db);
  await sql`
    CREATE TRIGGER version_stats_fact
    AFTER INSERT OR UPDATE ON version_stats
    FOR EACH ROW EXECUTE FUNCTION hub_version_stats_fact_trigger()`.execute(db);
  // today's rows
  await sql`
    INSERT INTO submission_facts (submission_id, status, annotator_id, task_id, created_at,
                                  version, os, step_count, action_counts, entropy_bits,
                                  video_ms, keyframe_count)
    SELECT s.id, s.status, s.annotator_id, s.task_id, s.created_at, s.current_version,
           st.os, st.step_count, st.action_counts, hub_action_entropy(st.action_counts),
           st.video_ms, st.keyframe_count
    FROM submissions AS s
    LEFT JOIN version_stats AS st
      ON st.submission_id = s.id AND st.version = s.current_version
    WHERE s.current_version > 0`.execute(db);
  await sql`
    INSERT INTO action_kinds (kind)
    SELECT DISTINCT k FROM version_stats, jsonb_object_keys(action_counts) AS k`.execute(db);
  await sql`
    INSERT INTO verdict_facts (verdict_id, submission_id, reviewer_id, verdict, grade, reason,
                               turnaround_s, annotator_id, task_id, created_at, os)
    SELECT v.id, v.submission_id, v.reviewer_id, v.verdict, v.grade,
           lower(trim(split_part(v.feedback, E'\n', 1))),
           extract(epoch FROM v.at - sv.submitted_at)::float8,
           x.annotator_id, x.task_id, x.created_at, x.os
    FROM verdicts AS v
    JOIN submission_versions AS sv ON sv.submission_id = v.submission_id AND sv.version = v.version
    LEFT JOIN submission_facts AS x ON x.submission_id = v.submission_id`.execute(db);
  // the planner's statistics for the filled tables now, not at autovacuum's next round
  await sql`ANALYZE submission_facts, verdict_facts, action_kinds`.execute(db);
  // last: the copies were made above from the rows just written
  await sql`
    CREATE TRIGGER submission_facts_verdicts
    AFTER INSERT OR UPDATE OR DELETE ON submission_facts
    FOR EACH ROW EXECUTE FUNCTION hub_submission_facts_verdicts_trigger()`.execute(db);
}
