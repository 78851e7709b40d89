// A reviewer's view of the review queue (the Review queue page, docs/team-mode.md §15): how many
// submissions wait, the leases the reviewer holds, and the verdicts they gave. Read-only; the
// queue's rules (who leases what) stay in src/hub/review/queue.ts.
import { sql } from 'kysely';
import type { HubDb } from '../schema';

/** How many submissions wait for a reviewer. */
export type QueueWaiting = {
  /** Every submission a reviewer could be given now: waiting, or leased and the lease expired
   * (the next `review:next` takes that lease back). */
  total: number;
  /** Of those, the reviewer's own (as an annotator): they go to other reviewers. */
  own: number;
  /** When the oldest of them joined the queue (epoch ms), or null. */
  oldestSinceMs: number | null;
  /** Second reviews (QA sampling, docs/team-mode.md §19) this reviewer could be given once no
   * first review waits: not leased (or the lease expired), not their own, not one they gave the
   * first verdict on. */
  qa: number;
};

/** A live lease the reviewer holds. */
export type HeldLease = {
  submissionId: number;
  recordingId: string;
  annotator: string;
  task: string;
  version: number;
  leasedAtMs: number;
  expiresAtMs: number;
};

/** A verdict the reviewer gave. */
export type GivenVerdict = {
  submissionId: number;
  recordingId: string;
  annotator: string;
  task: string;
  version: number;
  verdict: 'accept' | 'reject' | 'changes';
  grade: 'excellent' | 'good' | 'ok' | null;
  feedback: string;
  atMs: number;
};

/** The queue as `reviewerId` sees it: waiting counts, held leases, their latest verdicts. */
export async function reviewerQueue(
  db: HubDb,
  reviewerId: number,
  options: { doneLimit?: number } = {},
): Promise<{ waiting: QueueWaiting; held: HeldLease[]; done: GivenVerdict[] }> {
  // waiting: status submitted (the partial index submissions_waiting), or in review under an
  // open lease that has expired (leaseNext hands those out again)
  const counted = await sql<{ total: number; own: number; oldest: Date | null }>`
    SELECT count(*) AS total,
           count(*) FILTER (WHERE s.annotator_id = ${reviewerId}) AS own,
           min(s.waiting_since) AS oldest
    FROM submissions AS s
    WHERE s.status = 'submitted'
       OR (s.status = 'in-review' AND EXISTS (
             SELECT 1 FROM review_leases AS l
             WHERE l.submission_id = s.id AND l.ended_at IS NULL AND l.expires_at <= now()))
  `.execute(db);
  const w = counted.rows[0];
  const qa = await sql<{ n: number }>`
    SELECT count(*)::int AS n
    FROM qa_reviews AS q
    JOIN submissions AS s ON s.id = q.submission_id
    WHERE q.verdict IS NULL
      AND (q.lease_expires_at IS NULL OR q.lease_expires_at <= now())
      AND q.first_reviewer_id <> ${reviewerId}
      AND s.annotator_id <> ${reviewerId}`.execute(db);
  const held = await db
    .selectFrom('review_leases as l')
    .innerJoin('submissions as s', 's.id', 'l.submission_id')
    .innerJoin('users as a', 'a.id', 's.annotator_id')
    .select([
      'l.submission_id',
      's.recording_id',
      'a.name as annotator',
      's.task',
      'l.version',
      'l.leased_at',
      'l.expires_at',
    ])
    .where('l.reviewer_id', '=', reviewerId)
    .where('l.ended_at', 'is', null)
    .where(sql<boolean>`l.expires_at > now()`)
    .orderBy('l.expires_at')
    .execute();
  const done = await db
    .selectFrom('verdicts as v')
    .innerJoin('submissions as s', 's.id', 'v.submission_id')
    .innerJoin('users as a', 'a.id', 's.annotator_id')
    .select([
      'v.submission_id',
      's.recording_id',
      'a.name as annotator',
      's.task',
      'v.version',
      'v.verdict',
      'v.grade',
      'v.feedback',
      'v.at',
    ])
    .where('v.reviewer_id', '=', reviewerId)
    .orderBy('v.at', 'desc')
    .orderBy('v.submission_id', 'desc')
    .limit(options.doneLimit ?? 50)
    .execute();
  return {
    waiting: {
      total: w?.total ?? 0,
      own: w?.own ?? 0,
      oldestSinceMs: w?.oldest ? new Date(w.oldest).getTime() : null,
      qa: Number(qa.rows[0]?.n ?? 0),
    },
    held: held.map((r) => ({
      submissionId: r.submission_id,
      recordingId: r.recording_id,
      annotator: r.annotator,
      task: r.task,
      version: r.version,
      leasedAtMs: r.leased_at.getTime(),
      expiresAtMs: r.expires_at.getTime(),
    })),
    done: done.map((r) => ({
      submissionId: r.submission_id,
      recordingId: r.recording_id,
      annotator: r.annotator,
      task: r.task,
      version: r.version,
      verdict: r.verdict,
      grade: r.grade,
      feedback: r.feedback,
      atMs: r.at.getTime(),
    })),
  };
}
