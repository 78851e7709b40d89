// QA sampling's SQL (docs/team-mode.md §19): the second-review queue of accepted submissions
// drawn into the sample, its verdicts, an admin's settling of a disagreement, and the
// dashboard's agreement figures. The rules (who may take what, when a submission is drawn) live
// in src/hub/review/qa.ts and queue.ts.
import { sql, type RawBuilder } from 'kysely';
import type { HubDb } from '../schema';
import { insertLease, type LeaseRecord } from './submissions';

type Verdict = 'accept' | 'reject' | 'changes';
type Grade = 'excellent' | 'good' | 'ok';

/** A submission's second review as read. */
export type QaReviewRecord = {
  submissionId: number;
  version: number;
  firstReviewerId: number;
  firstVerdict: Verdict;
  queuedAtMs: number;
  reviewerId: number | null;
  verdict: Verdict | null;
  settledStatus: 'accepted' | 'rejected' | null;
};

/** Queues version `version` of a submission for a second review (once: a second call is a
 * no-op). */
export async function insertQaReview(
  db: HubDb,
  input: { submissionId: number; version: number; firstReviewerId: number; firstVerdict: Verdict },
): Promise<void> {
  await db
    .insertInto('qa_reviews')
    .values({
      submission_id: input.submissionId,
      version: input.version,
      first_reviewer_id: input.firstReviewerId,
      first_verdict: input.firstVerdict,
    })
    .onConflict((oc) => oc.columns(['submission_id', 'version']).doNothing())
    .execute();
}

/** The second review of a submission's version, if it was drawn. */
export async function findQaReview(
  db: HubDb,
  submissionId: number,
  version: number,
): Promise<QaReviewRecord | undefined> {
  const row = await db
    .selectFrom('qa_reviews')
    .selectAll()
    .where('submission_id', '=', submissionId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row
    ? {
        submissionId: row.submission_id,
        version: row.version,
        firstReviewerId: row.first_reviewer_id,
        firstVerdict: row.first_verdict,
        queuedAtMs: row.queued_at.getTime(),
        reviewerId: row.reviewer_id,
        verdict: row.verdict,
        settledStatus: row.settled_status,
      }
    : undefined;
}

/** Leases the oldest second review this reviewer may give — not on their own submission, not
 * on one they gave the first verdict on — or undefined. The QA row is locked (SKIP LOCKED) and
 * its lease expiry written in the same transaction, so a reviewer asking at the same moment
 * skips it or, after this commits, re-reads it as leased. */
export async function leaseOldestQa(
  db: HubDb,
  input: { reviewerId: number; leaseMs: number },
): Promise<LeaseRecord | undefined> {
  const next = await sql<{ id: number; submission_id: number; version: number }>`
    SELECT q.id, q.submission_id, q.version
    FROM qa_reviews AS q
    JOIN submissions AS s ON s.id = q.submission_id
    WHERE q.verdict IS NULL
      AND (q.lease_expires_at IS NULL OR q.lease_expires_at <= now())
      AND q.first_reviewer_id <> ${input.reviewerId}
      AND s.annotator_id <> ${input.reviewerId}
      AND NOT EXISTS (SELECT 1 FROM review_leases AS l
                      WHERE l.submission_id = q.submission_id AND l.ended_at IS NULL)
    ORDER BY q.queued_at, q.id
    LIMIT 1
    FOR UPDATE OF q SKIP LOCKED`.execute(db);
  const row = next.rows[0];
  if (!row) {
    return undefined;
  }
  const lease = await insertLease(db, {
    submissionId: row.submission_id,
    version: row.version,
    reviewerId: input.reviewerId,
    leaseMs: input.leaseMs,
    qa: true,
  });
  await db
    .updateTable('qa_reviews')
    .set({ lease_expires_at: new Date(lease.expiresAtMs) })
    .where('id', '=', row.id)
    .execute();
  return lease;
}

/** Forgets the QA row's lease (released: another reviewer may take it at once). */
export async function clearQaLease(
  db: HubDb,
  submissionId: number,
  version: number,
): Promise<void> {
  await db
    .updateTable('qa_reviews')
    .set({ lease_expires_at: null })
    .where('submission_id', '=', submissionId)
    .where('version', '=', version)
    .execute();
}

/** Records the second verdict. */
export async function setQaVerdict(
  db: HubDb,
  input: {
    submissionId: number;
    version: number;
    reviewerId: number;
    verdict: Verdict;
    grade: Grade | null;
    feedback: string;
  },
): Promise<void> {
  await db
    .updateTable('qa_reviews')
    .set({
      reviewer_id: input.reviewerId,
      verdict: input.verdict,
      grade: input.grade,
      feedback: input.feedback,
      at: sql<Date>`now()`,
      lease_expires_at: null,
    })
    .where('submission_id', '=', input.submissionId)
    .where('version', '=', input.version)
    .execute();
}

/** Records an admin's decision on a reviewed second review. */
export async function setQaSettled(
  db: HubDb,
  input: {
    submissionId: number;
    version: number;
    status: 'accepted' | 'rejected';
    by: number;
    note: string;
  },
): Promise<void> {
  await db
    .updateTable('qa_reviews')
    .set({
      settled_status: input.status,
      settled_by: input.by,
      settled_at: sql<Date>`now()`,
      note: input.note,
    })
    .where('submission_id', '=', input.submissionId)
    .where('version', '=', input.version)
    .execute();
}

/** Two verdicts on one submission that differ. */
export type QaDisagreement = {
  submissionId: number;
  recording: string;
  annotator: string;
  version: number;
  firstReviewer: string;
  firstVerdict: Verdict;
  secondReviewer: string;
  secondVerdict: Verdict;
  secondGrade: Grade | null;
  secondFeedback: string;
  /** When the second verdict was given. */
  atMs: number;
  /** The admin's decision, or null while it waits to be settled. */
  settledStatus: 'accepted' | 'rejected' | null;
};

/** The dashboard's QA figures. */
export type QaFigures = {
  /** Submissions drawn for a second review. */
  sampled: number;
  /** Of those, second reviews given. */
  reviewed: number;
  /** Of those, the second verdict equal to the first. */
  agreed: number;
  /** agreed / reviewed; null before any second review. */
  agreementRate: number | null;
  /** Disagreements an admin has not settled yet. */
  unsettled: number;
  /** Every disagreement, the newest first (at most 500). */
  disagreements: QaDisagreement[];
};

/** The QA figures over the submissions of `filtered` (the CTE `f` of the dashboard's filters,
 * src/hub/db/queries/stats.ts). */
export async function qaFigures(db: HubDb, filtered: RawBuilder<unknown>): Promise<QaFigures> {
  const totals = await sql<{
    sampled: number;
    reviewed: number;
    agreed: number;
    unsettled: number;
  }>`
    WITH ${filtered}
    SELECT count(*)::int AS sampled,
           count(q.verdict)::int AS reviewed,
           count(*) FILTER (WHERE q.verdict = q.first_verdict)::int AS agreed,
           count(*) FILTER (WHERE q.verdict <> q.first_verdict AND q.settled_status IS NULL)::int
             AS unsettled
    FROM qa_reviews AS q JOIN f ON f.id = q.submission_id`.execute(db);
  const list = await sql<{
    submission_id: number;
    recording_id: string;
    annotator: string;
    version: number;
    first_reviewer: string;
    first_verdict: Verdict;
    second_reviewer: string;
    verdict: Verdict;
    grade: Grade | null;
    feedback: string;
    at: Date;
    settled_status: 'accepted' | 'rejected' | null;
  }>`
    WITH ${filtered}
    SELECT q.submission_id, s.recording_id, an.name AS annotator, q.version,
           r1.name AS first_reviewer, q.first_verdict, r2.name AS second_reviewer, q.verdict,
           q.grade, q.feedback, q.at, q.settled_status
    FROM qa_reviews AS q
    JOIN f ON f.id = q.submission_id
    JOIN submissions AS s ON s.id = q.submission_id
    JOIN users AS an ON an.id = s.annotator_id
    JOIN users AS r1 ON r1.id = q.first_reviewer_id
    JOIN users AS r2 ON r2.id = q.reviewer_id
    WHERE q.verdict <> q.first_verdict
    ORDER BY q.at DESC, q.submission_id DESC
    LIMIT 500`.execute(db);
  const t = totals.rows[0] ?? { sampled: 0, reviewed: 0, agreed: 0, unsettled: 0 };
  return {
    sampled: Number(t.sampled),
    reviewed: Number(t.reviewed),
    agreed: Number(t.agreed),
    agreementRate: Number(t.reviewed) ? Number(t.agreed) / Number(t.reviewed) : null,
    unsettled: Number(t.unsettled),
    disagreements: list.rows.map((r) => ({
      submissionId: Number(r.submission_id),
      recording: r.recording_id,
      annotator: r.annotator,
      version: r.version,
      firstReviewer: r.first_reviewer,
      firstVerdict: r.first_verdict,
      secondReviewer: r.second_reviewer,
      secondVerdict: r.verdict,
      secondGrade: r.grade,
      secondFeedback: r.feedback,
      atMs: new Date(r.at).getTime(),
      settledStatus: r.settled_status,
    })),
  };
}
