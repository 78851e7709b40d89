// Review verdicts: an append-only history per recording; the latest sets recordings.review_status.
import type { ReviewEntry } from '../../shared/contract';
import type { ReviewStatus } from '../../shared/domain';
import type { Db } from '../db';

/** A verdict to record. */
export type NewReview = {
  status: ReviewStatus;
  reviewer: string | null;
  grade: string | null;
  comment: string | null;
  /** Epoch ms. */
  atMs: number;
};

/** Appends a verdict and sets the recording's review status (one transaction). */
export function addReview(db: Db, recordingSeq: number, review: NewReview): void {
  db.transaction(() => {
    db.prepare(
      `INSERT INTO reviews (recording_seq, at_ms, reviewer, status, grade, comment)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(recordingSeq, review.atMs, review.reviewer, review.status, review.grade, review.comment);
    db.prepare(`UPDATE recordings SET review_status = ?, updated_at_ms = ? WHERE seq = ?`).run(
      review.status,
      review.atMs,
      recordingSeq,
    );
  })();
}

/** A recording's verdicts, oldest first. */
export function listReviews(db: Db, recordingSeq: number): ReviewEntry[] {
  const rows = db
    .prepare(
      `SELECT at_ms, reviewer, status, grade, comment FROM reviews WHERE recording_seq = ?
       ORDER BY id`,
    )
    .all(recordingSeq) as {
    at_ms: number;
    reviewer: string | null;
    status: string;
    grade: string | null;
    comment: string | null;
  }[];
  return rows.map((r) => ({
    atMs: r.at_ms,
    reviewer: r.reviewer,
    status: r.status as ReviewStatus,
    grade: r.grade,
    comment: r.comment,
  }));
}
