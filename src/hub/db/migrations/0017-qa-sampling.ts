// Hub migration 17: QA sampling (docs/team-mode.md §19). A share of accepted submissions (the
// `qa` setting) is queued for a second review by another reviewer; that review is leased like a
// first one (review_leases, marked qa) and its verdict is kept here, beside the first verdict,
// so the dashboard can compare them. It never changes the submission's status: an admin settles
// a disagreement. Released migrations are never edited.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** Creates qa_reviews and marks QA leases in review_leases. */
export async function migrate0017(db: HubDb): Promise<void> {
  await sql`ALTER TABLE review_leases ADD COLUMN qa boolean NOT NULL DEFAULT false`.execute(db);
  await sql`
    CREATE TABLE qa_reviews (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      submission_id bigint NOT NULL,
      version integer NOT NULL,
      -- the accepting verdict that drew it into the sample
      first_reviewer_id bigint NOT NULL REFERENCES users (id),
      first_verdict text NOT NULL CHECK (first_verdict IN ('accept', 'reject', 'changes')),
      queued_at timestamptz NOT NULL DEFAULT now(),
      -- the open QA lease's expiry, mirrored here so that two reviewers asking at once lock and
      -- re-check this row (null: not leased)
      lease_expires_at timestamptz,
      -- the second review
      reviewer_id bigint REFERENCES users (id),
      verdict text CHECK (verdict IN ('accept', 'reject', 'changes')),
      grade text CHECK (grade IN ('excellent', 'good', 'ok')),
      feedback text NOT NULL DEFAULT '' CHECK (length(feedback) <= 20000),
      at timestamptz,
      -- an admin's decision on a disagreement: the submission's final status
      settled_status text CHECK (settled_status IN ('accepted', 'rejected')),
      settled_by bigint REFERENCES users (id),
      settled_at timestamptz,
      note text NOT NULL DEFAULT '' CHECK (length(note) <= 20000),
      UNIQUE (submission_id, version),
      CHECK ((verdict IS NULL) = (at IS NULL) AND (verdict IS NULL) = (reviewer_id IS NULL)),
      CHECK (reviewer_id IS NULL OR reviewer_id <> first_reviewer_id),
      CHECK ((settled_status IS NULL) = (settled_at IS NULL)),
      FOREIGN KEY (submission_id, version) REFERENCES submission_versions (submission_id, version)
    )`.execute(db);
  // the QA queue: second reviews not yet given, oldest first
  await sql`
    CREATE INDEX qa_reviews_waiting ON qa_reviews (queued_at, id) WHERE verdict IS NULL`.execute(
    db,
  );
}
