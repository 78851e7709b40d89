// Submissions, versions, review leases and verdicts: the SQL of the review queue
// (docs/team-mode.md §10). Every function takes the db (or a transaction) first; the rules over
// several of them (who may do what, in which state) live in src/hub/review/queue.ts, which runs
// each operation in one transaction.
import { sql } from 'kysely';
import type { HubDb, LeaseEndReason, SubmissionStatus } from '../schema';
import { auditRow, type AuditEntry } from './audit';

/** A submission as the queue and the lists see it. */
export type SubmissionRecord = {
  id: number;
  annotatorId: number;
  annotator: string;
  recordingId: string;
  task: string;
  status: SubmissionStatus;
  version: number;
  /** When the current version joined the queue; null unless submitted or in review. */
  waitingSinceMs: number | null;
  createdAtMs: number;
  updatedAtMs: number;
};

/** One registered version of a submission. */
export type SubmissionVersionRecord = {
  submissionId: number;
  version: number;
  manifestSha256: string;
  objectPrefix: string;
  checkSummary: Record<string, unknown>;
  piiSummary: Record<string, unknown>;
  submittedAtMs: number;
};

/** An open (not ended) review lease; it may have expired without being taken back yet. */
export type LeaseRecord = {
  id: number;
  submissionId: number;
  version: number;
  reviewerId: number;
  leasedAtMs: number;
  expiresAtMs: number;
  /** Whether it had expired when read (by the database's clock). */
  isExpired: boolean;
  /** A QA lease: the second review of an accepted submission (migration 17). */
  isQa: boolean;
};

/** A verdict as read, with the reviewer's name. */
export type VerdictRecord = {
  submissionId: number;
  version: number;
  reviewerId: number;
  reviewer: string;
  verdict: 'accept' | 'reject' | 'changes';
  grade: 'excellent' | 'good' | 'ok' | null;
  feedback: string;
  editLog: unknown[];
  atMs: number;
};

// pg_advisory_xact_lock class of a reviewer's queue calls (with the reviewer id as second key)
const REVIEWER_LOCK_CLASS = 2_741_029;

/** Serialises one reviewer's queue calls until the end of the transaction (two "next" clicks at
 * once must not lease two submissions); other reviewers are not held up. */
export async function lockReviewer(db: HubDb, reviewerId: number): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${sql.lit(REVIEWER_LOCK_CLASS)}, ${reviewerId}::int)`.execute(
    db,
  );
}

const ms = (d: Date | null): number | null => (d ? d.getTime() : null);

function submissionQuery(db: HubDb) {
  return db
    .selectFrom('submissions as s')
    .innerJoin('users as u', 'u.id', 's.annotator_id')
    .select([
      's.id',
      's.annotator_id',
      'u.name as annotator',
      's.recording_id',
      's.task',
      's.status',
      's.current_version',
      's.waiting_since',
      's.created_at',
      's.updated_at',
    ]);
}

type SubmissionRow = Awaited<ReturnType<ReturnType<typeof submissionQuery>['executeTakeFirst']>>;

function toSubmission(row: NonNullable<SubmissionRow>): SubmissionRecord {
  return {
    id: row.id,
    annotatorId: row.annotator_id,
    annotator: row.annotator,
    recordingId: row.recording_id,
    task: row.task,
    status: row.status,
    version: row.current_version,
    waitingSinceMs: ms(row.waiting_since),
    createdAtMs: row.created_at.getTime(),
    updatedAtMs: row.updated_at.getTime(),
  };
}

/** The submission `id`, if any. */
export async function findSubmission(db: HubDb, id: number): Promise<SubmissionRecord | undefined> {
  const row = await submissionQuery(db).where('s.id', '=', id).executeTakeFirst();
  return row ? toSubmission(row) : undefined;
}

/** The annotator's submission of one local recording, if any. */
export async function findSubmissionByRecording(
  db: HubDb,
  annotatorId: number,
  recordingId: string,
): Promise<SubmissionRecord | undefined> {
  const row = await submissionQuery(db)
    .where('s.annotator_id', '=', annotatorId)
    .where('s.recording_id', '=', recordingId)
    .executeTakeFirst();
  return row ? toSubmission(row) : undefined;
}

/** Creates the submission row of (annotator, recording) in `draft` unless it exists; returns its
 * id either way and locks the row until the end of the transaction. */
export async function ensureSubmissionLocked(
  db: HubDb,
  input: { annotatorId: number; recordingId: string; task: string },
): Promise<number> {
  await db
    .insertInto('submissions')
    .values({ annotator_id: input.annotatorId, recording_id: input.recordingId, task: input.task })
    .onConflict((oc) => oc.columns(['annotator_id', 'recording_id']).doNothing())
    .execute();
  const row = await db
    .selectFrom('submissions')
    .select('id')
    .where('annotator_id', '=', input.annotatorId)
    .where('recording_id', '=', input.recordingId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return row.id;
}

/** What registering a version needs of the annotator's submission of a recording. */
export type LockedSubmission = {
  id: number;
  recordingId: string;
  status: SubmissionStatus;
  version: number;
};

/** ensureSubmissionLocked in one statement, returning the row: an upsert whose update changes
 * nothing takes the row lock SELECT … FOR UPDATE would (and waits for a concurrent insert of
 * the same row to end). It sets the conflict key to itself: no column a trigger watches
 * (migration 18's submissions_fact) is in its SET list. */
export async function upsertSubmissionLocked(
  db: HubDb,
  input: { annotatorId: number; recordingId: string; task: string },
): Promise<LockedSubmission> {
  const row = await db
    .insertInto('submissions')
    .values({ annotator_id: input.annotatorId, recording_id: input.recordingId, task: input.task })
    .onConflict((oc) =>
      oc
        .columns(['annotator_id', 'recording_id'])
        .doUpdateSet({ recording_id: (eb) => eb.ref('excluded.recording_id') }),
    )
    .returning(['id', 'recording_id', 'status', 'current_version'])
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    recordingId: row.recording_id,
    status: row.status,
    version: row.current_version,
  };
}

/** Locks the submission row until the end of the transaction; false if there is none. */
export async function lockSubmission(db: HubDb, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('submissions')
    .select('id')
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/** The version of a submission registered with this manifest, if any (the idempotency key). */
export async function findVersionBySha(
  db: HubDb,
  submissionId: number,
  manifestSha256: string,
): Promise<SubmissionVersionRecord | undefined> {
  const row = await db
    .selectFrom('submission_versions')
    .selectAll()
    .where('submission_id', '=', submissionId)
    .where('manifest_sha256', '=', manifestSha256)
    .executeTakeFirst();
  return row ? toVersion(row) : undefined;
}

function toVersion(row: {
  submission_id: number;
  version: number;
  manifest_sha256: string;
  object_prefix: string;
  check_summary: Record<string, unknown>;
  pii_summary: Record<string, unknown>;
  submitted_at: Date;
}): SubmissionVersionRecord {
  return {
    submissionId: row.submission_id,
    version: row.version,
    manifestSha256: row.manifest_sha256,
    objectPrefix: row.object_prefix,
    checkSummary: row.check_summary,
    piiSummary: row.pii_summary,
    submittedAtMs: row.submitted_at.getTime(),
  };
}

/** Every version of a submission, oldest first. */
export async function listVersions(
  db: HubDb,
  submissionId: number,
): Promise<SubmissionVersionRecord[]> {
  const rows = await db
    .selectFrom('submission_versions')
    .selectAll()
    .where('submission_id', '=', submissionId)
    .orderBy('version')
    .execute();
  return rows.map(toVersion);
}

/** Adds version `version` with its audit row and makes it the submission's current one, waiting in
 * the queue (or for its intake). */
export async function insertVersion(
  db: HubDb,
  input: {
    submissionId: number;
    version: number;
    task: string;
    manifestSha256: string;
    objectPrefix: string;
    checkSummary: Record<string, unknown>;
    piiSummary: Record<string, unknown>;
    /** A job runner takes it in first (status `intake`, not yet in the queue; migration 14). */
    awaitIntake?: boolean;
    /** The audit row written with it, in the same statement. */
    audit: AuditEntry;
  },
): Promise<void> {
  // one statement (data-modifying CTEs, which run whether or not they are read): one round
  // trip, and on PGlite one statement of the hub's one thread, instead of three
  await db
    .with('v', (q) =>
      q
        .insertInto('submission_versions')
        .values({
          submission_id: input.submissionId,
          version: input.version,
          manifest_sha256: input.manifestSha256,
          object_prefix: input.objectPrefix,
          check_summary: JSON.stringify(input.checkSummary),
          pii_summary: JSON.stringify(input.piiSummary),
          ...(input.awaitIntake ? { intake_status: 'pending' as const } : {}),
        })
        .returning('submission_id'),
    )
    .with('a', (q) => q.insertInto('audit_log').values(auditRow(input.audit)))
    .updateTable('submissions')
    .set({
      current_version: input.version,
      task: input.task,
      status: input.awaitIntake ? 'intake' : 'submitted',
      waiting_since: input.awaitIntake ? null : sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', (eb) => eb.selectFrom('v').select('submission_id'))
    .execute();
}

/** Sets a submission's status (and whether it waits in the queue). */
export async function setSubmissionStatus(
  db: HubDb,
  id: number,
  status: SubmissionStatus,
): Promise<void> {
  await db
    .updateTable('submissions')
    .set({
      status,
      // in review keeps its place: an expired lease puts it back where it was
      ...(status === 'submitted' || status === 'in-review' ? {} : { waiting_since: null }),
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .execute();
}

function toLease(row: {
  id: number;
  submission_id: number;
  version: number;
  reviewer_id: number;
  leased_at: Date;
  expires_at: Date;
  is_expired: boolean;
  qa: boolean;
}): LeaseRecord {
  return {
    id: row.id,
    submissionId: row.submission_id,
    version: row.version,
    reviewerId: row.reviewer_id,
    leasedAtMs: row.leased_at.getTime(),
    expiresAtMs: row.expires_at.getTime(),
    isExpired: row.is_expired,
    isQa: row.qa,
  };
}

const LEASE_COLUMNS = [
  'id',
  'submission_id',
  'version',
  'reviewer_id',
  'leased_at',
  'expires_at',
  sql<boolean>`expires_at <= now()`.as('is_expired'),
  'qa',
] as const;

/** The submission's open lease (live or expired but not yet taken back), if any. */
export async function findOpenLease(
  db: HubDb,
  submissionId: number,
): Promise<LeaseRecord | undefined> {
  const row = await db
    .selectFrom('review_leases')
    .select([...LEASE_COLUMNS])
    .where('submission_id', '=', submissionId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return row ? toLease(row) : undefined;
}

/** The reviewer's live (open, unexpired) lease, if any. */
export async function findLiveLeaseOf(
  db: HubDb,
  reviewerId: number,
): Promise<LeaseRecord | undefined> {
  const row = await db
    .selectFrom('review_leases')
    .select([...LEASE_COLUMNS])
    .where('reviewer_id', '=', reviewerId)
    .where('ended_at', 'is', null)
    .where(sql<boolean>`expires_at > now()`)
    .orderBy('id')
    .executeTakeFirst();
  return row ? toLease(row) : undefined;
}

/** Takes back expired leases: ends them and puts their submissions back in the queue (at the
 * place they had). A lease whose row or whose submission's row another transaction holds is
 * skipped (it is being taken back, judged or reassigned): verdicts and reassignments lock the
 * submission first and then its lease, so waiting here on the submission would deadlock with
 * them. Returns the submissions put back. */
export async function reclaimExpiredLeases(db: HubDb, limit = 100): Promise<number[]> {
  const rows = await sql<{ submission_id: number }>`
    UPDATE review_leases SET ended_at = expires_at, end_reason = 'expired'
    WHERE id IN (
      SELECT l.id FROM review_leases AS l
      JOIN submissions AS s ON s.id = l.submission_id
      WHERE l.ended_at IS NULL AND l.expires_at <= now()
      ORDER BY l.expires_at
      LIMIT ${limit}
      FOR UPDATE OF l, s SKIP LOCKED
    )
    RETURNING submission_id`.execute(db);
  const ids = rows.rows.map((r) => r.submission_id);
  if (ids.length) {
    await db
      .updateTable('submissions')
      .set({ status: 'submitted', updated_at: sql<Date>`now()` })
      .where('id', 'in', ids)
      .where('status', '=', 'in-review')
      .execute();
  }
  return ids;
}

/** In one statement (one round trip, where a call at a time took four): locks the oldest waiting
 * submission that is not the reviewer's own (FOR UPDATE SKIP LOCKED: rows other transactions hold are skipped),
 * sets it in review, opens a lease of `leaseMs` on its current version (as insertLease), and
 * returns both, or undefined when nothing waits. Concurrent callers each get a different one
 * (PGlite runs one transaction at a time); reads only the partial index submissions_waiting.
 * docs/team-mode.md §11. */
export async function leaseOldestWaiting(
  db: HubDb,
  input: { reviewerId: number; leaseMs: number },
): Promise<{ submission: SubmissionRecord; lease: LeaseRecord } | undefined> {
  const res = await sql<
    NonNullable<SubmissionRow> & {
      lease_id: number;
      reviewer_id: number;
      lease_version: number;
      leased_at: Date;
      expires_at: Date;
    }
  >`
    WITH next AS (
      SELECT id FROM submissions
      WHERE status = 'submitted' AND annotator_id <> ${input.reviewerId}
      ORDER BY waiting_since, id
      LIMIT 1
      FOR UPDATE SKIP LOCKED
    ), taken AS (
      UPDATE submissions AS s SET status = 'in-review', updated_at = now()
      FROM next WHERE s.id = next.id
      RETURNING s.id, s.annotator_id, s.recording_id, s.task, s.status, s.current_version,
                s.waiting_since, s.created_at, s.updated_at
    ), lease AS (
      INSERT INTO review_leases (submission_id, version, reviewer_id, expires_at)
      SELECT id, current_version, ${input.reviewerId},
             now() + make_interval(secs => ${input.leaseMs / 1000})
      FROM taken
      RETURNING id, submission_id, version, reviewer_id, leased_at, expires_at
    )
    SELECT t.*, u.name AS annotator, l.id AS lease_id, l.reviewer_id, l.version AS lease_version,
           l.leased_at, l.expires_at
    FROM taken AS t
    JOIN lease AS l ON l.submission_id = t.id
    JOIN users AS u ON u.id = t.annotator_id`.execute(db);
  const row = res.rows[0];
  if (!row) {
    return undefined;
  }
  return {
    submission: toSubmission(row),
    lease: toLease({
      id: row.lease_id,
      submission_id: row.id,
      version: row.lease_version,
      reviewer_id: row.reviewer_id,
      leased_at: row.leased_at,
      expires_at: row.expires_at,
      is_expired: false,
      qa: false,
    }),
  };
}

/** Opens a lease of `leaseMs` on a submission's version for a reviewer (by the database clock). */
export async function insertLease(
  db: HubDb,
  input: {
    submissionId: number;
    version: number;
    reviewerId: number;
    leaseMs: number;
    /** A QA lease (the second review of an accepted submission). */
    qa?: boolean;
  },
): Promise<LeaseRecord> {
  const row = await db
    .insertInto('review_leases')
    .values({
      submission_id: input.submissionId,
      version: input.version,
      reviewer_id: input.reviewerId,
      ...(input.qa ? { qa: true } : {}),
      expires_at: sql<Date>`now() + make_interval(secs => ${input.leaseMs / 1000})`,
    })
    .returning([...LEASE_COLUMNS])
    .executeTakeFirstOrThrow();
  return toLease(row);
}

/** Ends an open lease; false if it was not open. */
export async function endLease(
  db: HubDb,
  leaseId: number,
  reason: LeaseEndReason,
): Promise<boolean> {
  const res = await db
    .updateTable('review_leases')
    .set({ ended_at: sql<Date>`now()`, end_reason: reason })
    .where('id', '=', leaseId)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return res.numUpdatedRows > 0n;
}

/** Records a verdict on one version. */
export async function insertVerdict(
  db: HubDb,
  input: {
    submissionId: number;
    version: number;
    reviewerId: number;
    verdict: 'accept' | 'reject' | 'changes';
    grade: 'excellent' | 'good' | 'ok' | null;
    feedback: string;
    editLog: unknown[];
  },
): Promise<void> {
  await db
    .insertInto('verdicts')
    .values({
      submission_id: input.submissionId,
      version: input.version,
      reviewer_id: input.reviewerId,
      verdict: input.verdict,
      grade: input.grade,
      feedback: input.feedback,
      edit_log: JSON.stringify(input.editLog),
    })
    .execute();
}

/** Every verdict of a submission, oldest first. */
export async function listVerdicts(db: HubDb, submissionId: number): Promise<VerdictRecord[]> {
  const rows = await db
    .selectFrom('verdicts as v')
    .innerJoin('users as u', 'u.id', 'v.reviewer_id')
    .select([
      'v.submission_id',
      'v.version',
      'v.reviewer_id',
      'u.name as reviewer',
      'v.verdict',
      'v.grade',
      'v.feedback',
      'v.edit_log',
      'v.at',
    ])
    .where('v.submission_id', '=', submissionId)
    .orderBy('v.version')
    .execute();
  return rows.map((r) => ({
    submissionId: r.submission_id,
    version: r.version,
    reviewerId: r.reviewer_id,
    reviewer: r.reviewer,
    verdict: r.verdict,
    grade: r.grade,
    feedback: r.feedback,
    editLog: r.edit_log,
    atMs: r.at.getTime(),
  }));
}

/** An annotator's submissions (theirs only), newest change first, each with its latest
 * verdict's grade, feedback and reviewer. */
export async function listSubmissionsOf(
  db: HubDb,
  annotatorId: number,
  options: { limit?: number } = {},
): Promise<(SubmissionRecord & { latestVerdict: VerdictRecord | null })[]> {
  const rows = await submissionQuery(db)
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('verdicts as v')
          .innerJoin('users as r', 'r.id', 'v.reviewer_id')
          .select([
            'v.version as v_version',
            'v.reviewer_id as v_reviewer_id',
            'r.name as v_reviewer',
            'v.verdict as v_verdict',
            'v.grade as v_grade',
            'v.feedback as v_feedback',
            'v.edit_log as v_edit_log',
            'v.at as v_at',
          ])
          .whereRef('v.submission_id', '=', 's.id')
          .orderBy('v.version', 'desc')
          .limit(1)
          .as('lv'),
      (join) => join.onTrue(),
    )
    .select([
      'lv.v_version',
      'lv.v_reviewer_id',
      'lv.v_reviewer',
      'lv.v_verdict',
      'lv.v_grade',
      'lv.v_feedback',
      'lv.v_edit_log',
      'lv.v_at',
    ])
    .where('s.annotator_id', '=', annotatorId)
    .orderBy('s.updated_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(options.limit ?? 1000)
    .execute();
  return rows.map((r) => ({
    ...toSubmission(r),
    latestVerdict:
      r.v_version === null ||
      r.v_reviewer_id === null ||
      r.v_reviewer === null ||
      r.v_verdict === null ||
      r.v_at === null
        ? null
        : {
            submissionId: r.id,
            version: r.v_version,
            reviewerId: r.v_reviewer_id,
            reviewer: r.v_reviewer,
            verdict: r.v_verdict,
            grade: r.v_grade,
            feedback: r.v_feedback ?? '',
            editLog: r.v_edit_log ?? [],
            atMs: r.v_at.getTime(),
          },
  }));
}

/** Every submission, the latest changed first (the admin's list). */
export async function listAllSubmissions(
  db: HubDb,
  options: { limit?: number } = {},
): Promise<SubmissionRecord[]> {
  const rows = await submissionQuery(db)
    .orderBy('s.updated_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(options.limit ?? 1000)
    .execute();
  return rows.map(toSubmission);
}

/** How many submissions wait in the queue (not leased). */
export async function countWaiting(db: HubDb): Promise<number> {
  const row = await db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'submitted')
    .executeTakeFirstOrThrow();
  return row.n;
}
