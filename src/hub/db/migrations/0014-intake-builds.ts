// Hub migration 14: the jobs' results (docs/jobs.md §H): every version's intake (re-hash, PII
// scan, check) and computed keyframes, the statuses of a submission around its intake, and the
// dataset builds with one row per submission they take. Released migrations are never edited; a
// change is a new migration.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Adds intake and keyframe columns to submission_versions, the `intake` / `intake-failed`
 * statuses, and the dataset_builds and dataset_build_items tables. */
export async function migrate0014(db: HubDb): Promise<void> {
  // `intake`: registered, waiting for its intake job (not in the review queue);
  // `intake-failed`: back to the annotator with the reasons (a new version may follow)
  await sql`ALTER TABLE submissions DROP CONSTRAINT submissions_status_check`.execute(db);
  await sql`
    ALTER TABLE submissions ADD CONSTRAINT submissions_status_check
      CHECK (status IN ('draft', 'submitted', 'in-review', 'accepted', 'rejected', 'changes',
                        'intake', 'intake-failed'))`.execute(db);
  // intake_status null: registered while no job runner ran (no intake; straight to the queue)
  await sql`
    ALTER TABLE submission_versions
      ADD COLUMN intake_status text CHECK (intake_status IN ('pending', 'passed', 'failed')),
      ADD COLUMN intake_result jsonb,
      ADD COLUMN intake_at timestamptz,
      ADD COLUMN keyframes jsonb`.execute(db);
  await sql`
    CREATE TABLE dataset_builds (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      created_by bigint REFERENCES users (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      finished_at timestamptz,
      status text NOT NULL DEFAULT 'queued'
        CHECK (status IN ('queued', 'running', 'merging', 'done', 'failed')),
      format text NOT NULL CHECK (format IN ('agentnet-raw', 'agentnet-jsonl', 'standardized')),
      filters jsonb NOT NULL DEFAULT '{}'::jsonb,
      -- where the merged dataset goes: a key prefix of the hub's store, or a folder
      destination text NOT NULL CHECK (length(destination) BETWEEN 1 AND 4096),
      total integer NOT NULL DEFAULT 0 CHECK (total >= 0),
      done integer NOT NULL DEFAULT 0 CHECK (done >= 0),
      failed integer NOT NULL DEFAULT 0 CHECK (failed >= 0),
      manifest_sha256 text CHECK (manifest_sha256 ~ '^[0-9a-f]{64}$'),
      result jsonb,
      error text
    )`.execute(db);
  await sql`
    CREATE TABLE dataset_build_items (
      build_id bigint NOT NULL REFERENCES dataset_builds (id),
      -- the merge order: submissions by id
      ordinal integer NOT NULL CHECK (ordinal >= 0),
      submission_id bigint NOT NULL REFERENCES submissions (id),
      version integer NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
      result jsonb,
      error text,
      finished_at timestamptz,
      PRIMARY KEY (build_id, submission_id),
      UNIQUE (build_id, ordinal),
      FOREIGN KEY (submission_id, version) REFERENCES submission_versions (submission_id, version)
    )`.execute(db);
}
