// Hub migration 11: submissions, their versions, review leases and verdicts (docs/team-mode.md
// §9–§10). Released migrations are never edited; a change is a new migration.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates submissions, submission_versions, review_leases and verdicts. */
export async function migrate0011(db: HubDb): Promise<void> {
  // one row per (annotator, local recording): its versions hang below it
  await sql`
    CREATE TABLE submissions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      annotator_id bigint NOT NULL REFERENCES users (id),
      recording_id text NOT NULL CHECK (recording_id ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
      task text NOT NULL CHECK (length(task) <= 10000),
      status text NOT NULL DEFAULT 'draft'
        CHECK (status IN ('draft', 'submitted', 'in-review', 'accepted', 'rejected', 'changes')),
      current_version integer NOT NULL DEFAULT 0 CHECK (current_version >= 0),
      -- when the current version joined the queue: the queue's order (oldest first)
      waiting_since timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (annotator_id, recording_id),
      CHECK ((status = 'submitted') = (waiting_since IS NOT NULL) OR status = 'in-review')
    )`.execute(db);
  // "the oldest waiting submission": a partial index holding only the waiting rows, in queue
  // order, so leaseNext reads its first unlocked entry whatever the size of the history
  await sql`
    CREATE INDEX submissions_waiting ON submissions (waiting_since, id)
      WHERE status = 'submitted'`.execute(db);
  await sql`
    CREATE TABLE submission_versions (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      submission_id bigint NOT NULL REFERENCES submissions (id),
      version integer NOT NULL CHECK (version >= 1),
      -- the idempotency key with the submission: the same bytes register once
      manifest_sha256 text NOT NULL CHECK (manifest_sha256 ~ '^[0-9a-f]{64}$'),
      object_prefix text NOT NULL CHECK (length(object_prefix) BETWEEN 1 AND 1024),
      check_summary jsonb NOT NULL DEFAULT '{}'::jsonb,
      pii_summary jsonb NOT NULL DEFAULT '{}'::jsonb,
      submitted_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (submission_id, version),
      UNIQUE (submission_id, manifest_sha256)
    )`.execute(db);
  // ended_at stays null while a lease is live (or expired but not yet taken back)
  await sql`
    CREATE TABLE review_leases (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      submission_id bigint NOT NULL REFERENCES submissions (id),
      version integer NOT NULL,
      reviewer_id bigint NOT NULL REFERENCES users (id),
      leased_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      ended_at timestamptz,
      end_reason text CHECK (end_reason IN ('verdict', 'expired', 'reassigned', 'released')),
      CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
      FOREIGN KEY (submission_id, version) REFERENCES submission_versions (submission_id, version)
    )`.execute(db);
  // at most one open lease per submission, whatever the code above it does
  await sql`
    CREATE UNIQUE INDEX review_leases_open ON review_leases (submission_id)
      WHERE ended_at IS NULL`.execute(db);
  // expired leases to take back, and a reviewer's open lease
  await sql`
    CREATE INDEX review_leases_expiry ON review_leases (expires_at)
      WHERE ended_at IS NULL`.execute(db);
  await sql`
    CREATE INDEX review_leases_reviewer ON review_leases (reviewer_id)
      WHERE ended_at IS NULL`.execute(db);
  await sql`
    CREATE TABLE verdicts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      submission_id bigint NOT NULL,
      version integer NOT NULL,
      reviewer_id bigint NOT NULL REFERENCES users (id),
      verdict text NOT NULL CHECK (verdict IN ('accept', 'reject', 'changes')),
      grade text CHECK (grade IN ('excellent', 'good', 'ok')),
      feedback text NOT NULL DEFAULT '' CHECK (length(feedback) <= 20000),
      edit_log jsonb NOT NULL DEFAULT '[]'::jsonb,
      at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (submission_id, version),
      FOREIGN KEY (submission_id, version) REFERENCES submission_versions (submission_id, version)
    )`.execute(db);
  await sql`CREATE INDEX verdicts_reviewer ON verdicts (reviewer_id, at)`.execute(db);
}
