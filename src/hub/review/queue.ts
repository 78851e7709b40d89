// The review queue (docs/team-mode.md §10): submissions and their versions, expiring leases
// that hand each waiting submission to exactly one reviewer, verdicts that go back to the
// annotator. Each operation is one transaction with its audit row; the same code is correct on
// PostgreSQL (row locks, FOR UPDATE SKIP LOCKED, concurrent connections) and on PGlite (one
// connection: transactions run one after the other).
import { AppError } from '../../shared/errors';
import {
  currentIntakes,
  endLease,
  findLiveLeaseOf,
  findOpenLease,
  findSubmission,
  findVersionBySha,
  inTransaction,
  insertLease,
  clearQaLease,
  insertQaReview,
  insertVerdict,
  insertVersion,
  insertVersionStats,
  leaseOldestQa,
  listSubmissionsOf,
  listUsersWithRoles,
  leaseOldestWaiting,
  lockReviewer,
  lockSubmission,
  reclaimExpiredLeases,
  setQaVerdict,
  setSubmissionStatus,
  writeAudit,
  type AuditActor,
  type HubDb,
  type HubRootDb,
  type LeaseRecord,
  type SubmissionRecord,
  type VerdictRecord,
  type VersionSummary,
  upsertSubmissionLocked,
} from '../db';
import { isDrawn, readQaSettings } from './qa';

/** The default review lease: a reviewer who abandons a submission loses it after this. */
export const DEFAULT_LEASE_MS = 30 * 60_000;
/** The longest lease the queue hands out (a day). */
export const MAX_LEASE_MS = 24 * 60 * 60_000;

/** Who acts: the account (its id and name) and the client it came through. */
export type QueueActor = { userId: number; name: string; client: string };

/** What registerVersion did. */
export type RegisteredVersion = {
  submissionId: number;
  recordingId: string;
  version: number;
  status: SubmissionRecord['status'];
  /** False when this manifest was registered before (a resubmission of the same bytes). */
  isNew: boolean;
};

/** A submission handed to a reviewer. */
export type LeasedSubmission = {
  submissionId: number;
  recordingId: string;
  annotator: string;
  task: string;
  version: number;
  leaseId: number;
  expiresAtMs: number;
  /** True when the reviewer already held this lease (asking again after a crash). */
  isResumed: boolean;
  /** A second review of an accepted submission drawn for QA (docs/team-mode.md §19). */
  isQa: boolean;
};

/** The verdicts a reviewer may give. */
export const VERDICTS = ['accept', 'reject', 'changes'] as const;
/** The grades of an accepted (or judged) submission. */
export const GRADES = ['excellent', 'good', 'ok'] as const;

const SHA256_RE = /^[0-9a-f]{64}$/;

function audit(actor: QueueActor): AuditActor {
  return { actor: actor.name, actorUserId: actor.userId, client: actor.client };
}

function checkLeaseMs(leaseMs: number): void {
  if (!Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `a lease must last 1 ms to ${MAX_LEASE_MS} ms (got ${leaseMs})`,
      { leaseMs },
      'Give the lease in whole milliseconds, at most a day.',
    );
  }
}

function notFound(submissionId: number): AppError {
  return new AppError(
    'NOT_FOUND',
    `no submission ${submissionId}`,
    { submissionId },
    'List the submissions again (the id may be from another hub).',
  );
}

/** Registers a bundle (already verified against its manifest) as a version of the annotator's
 * submission of that recording. Idempotent by (annotator, recording, manifest SHA-256): the
 * same bytes sent again (a retry after a crash) register nothing new. A new manifest makes a new
 * version while the submission is a draft, waits, or came back with "changes"; a submission in
 * review, accepted or rejected takes no new version. */
export async function registerVersion(
  db: HubRootDb,
  input: {
    annotator: QueueActor;
    recordingId: string;
    task: string;
    manifestSha256: string;
    objectPrefix: string;
    checkSummary?: Record<string, unknown>;
    piiSummary?: Record<string, unknown>;
    /** A job runner runs this version's intake before it joins the queue (status `intake`). */
    awaitIntake?: boolean;
    /** The version's dashboard summary (migration 16), written in the same transaction. */
    stats?: VersionSummary;
  },
): Promise<RegisteredVersion> {
  if (!SHA256_RE.test(input.manifestSha256)) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `manifest SHA-256 "${input.manifestSha256}" is not 64 lower-case hex digits`,
      undefined,
      'Send the SHA-256 of the bundle’s manifest.json as lower-case hex.',
    );
  }
  // four statements in one transaction (the lock, the idempotency lookup, the version with its
  // audit row, the dashboard's summary): each is a round trip, and on PGlite a share of the
  // hub's one thread
  return await inTransaction(db, async (trx) => {
    const submission = await upsertSubmissionLocked(trx, {
      annotatorId: input.annotator.userId,
      recordingId: input.recordingId,
      task: input.task,
    });
    const submissionId = submission.id;
    // after the lock: a registration of the same bytes that held it has committed its version
    const known = await findVersionBySha(trx, submissionId, input.manifestSha256);
    if (known) {
      if (input.stats) {
        // a version registered without its summary (before migration 16) gets it now
        await insertVersionStats(trx, submissionId, known.version, input.stats);
      }
      return {
        submissionId,
        recordingId: submission.recordingId,
        version: known.version,
        status: submission.status,
        isNew: false,
      };
    }
    // a version still waiting for (or failed by) its intake may be replaced like a waiting one
    if (!['draft', 'submitted', 'changes', 'intake', 'intake-failed'].includes(submission.status)) {
      throw new AppError(
        'INVALID_STATE',
        `submission ${submissionId} (recording ${submission.recordingId}) is ${submission.status}: ` +
          'it takes no new version now',
        { submissionId, status: submission.status },
        submission.status === 'in-review'
          ? 'Wait for the reviewer’s verdict; if they ask for changes, submit again then.'
          : 'An accepted or rejected submission is final: record the work again as a new recording.',
      );
    }
    const version = submission.version + 1;
    await insertVersion(trx, {
      submissionId,
      version,
      task: input.task,
      manifestSha256: input.manifestSha256,
      objectPrefix: input.objectPrefix,
      checkSummary: input.checkSummary ?? {},
      piiSummary: input.piiSummary ?? {},
      ...(input.awaitIntake ? { awaitIntake: true } : {}),
      audit: {
        ...audit(input.annotator),
        action: 'submission.submit',
        target: `submission:${submissionId}`,
        details: {
          recordingId: submission.recordingId,
          version,
          manifestSha256: input.manifestSha256,
        },
      },
    });
    if (input.stats) {
      await insertVersionStats(trx, submissionId, version, input.stats);
    }
    return {
      submissionId,
      recordingId: submission.recordingId,
      version,
      status: input.awaitIntake ? 'intake' : 'submitted',
      isNew: true,
    };
  });
}

async function mustFind(db: HubDb, submissionId: number): Promise<SubmissionRecord> {
  const s = await findSubmission(db, submissionId);
  if (!s) {
    throw notFound(submissionId);
  }
  return s;
}

function leased(s: SubmissionRecord, lease: LeaseRecord, isResumed: boolean): LeasedSubmission {
  return {
    submissionId: s.id,
    recordingId: s.recordingId,
    annotator: s.annotator,
    task: s.task,
    version: lease.version,
    leaseId: lease.id,
    expiresAtMs: lease.expiresAtMs,
    isResumed,
    isQa: lease.isQa,
  };
}

/** Hands the oldest waiting submission (not the reviewer's own) to this reviewer for `leaseMs`;
 * when none waits, the oldest second review (QA, §19) the reviewer may give — never on a
 * submission they gave the first verdict on; null when neither waits. Concurrent callers each get a different one: the row is taken
 * with FOR UPDATE SKIP LOCKED inside the transaction (PostgreSQL), and PGlite runs one
 * transaction at a time. Expired leases are taken back first. A reviewer who still holds a live
 * lease gets that one again (one submission at a time; one reviewer's calls are serialised by an
 * advisory lock, so two at once cannot take two). */
export async function leaseNext(
  db: HubRootDb,
  reviewer: QueueActor,
  leaseMs: number = DEFAULT_LEASE_MS,
): Promise<LeasedSubmission | null> {
  checkLeaseMs(leaseMs);
  return await inTransaction(db, async (trx) => {
    await lockReviewer(trx, reviewer.userId);
    const held = await findLiveLeaseOf(trx, reviewer.userId);
    if (held) {
      return leased(await mustFind(trx, held.submissionId), held, true);
    }
    const reclaimed = await reclaimExpiredLeases(trx);
    for (const id of reclaimed) {
      await writeAudit(trx, {
        ...audit(reviewer),
        action: 'lease.expired',
        target: `submission:${id}`,
      });
    }
    // take, set in review and lease in one statement: 20 reviewers at once each wait for the
    // others' round trips (§11)
    const next = await leaseOldestWaiting(trx, { reviewerId: reviewer.userId, leaseMs });
    if (!next) {
      const qa = await leaseOldestQa(trx, { reviewerId: reviewer.userId, leaseMs });
      if (!qa) {
        return null;
      }
      await writeAudit(trx, {
        ...audit(reviewer),
        action: 'submission.lease-qa',
        target: `submission:${qa.submissionId}`,
        details: { version: qa.version, leaseMs },
      });
      return leased(await mustFind(trx, qa.submissionId), qa, false);
    }
    await writeAudit(trx, {
      ...audit(reviewer),
      action: 'submission.lease',
      target: `submission:${next.submission.id}`,
      details: { version: next.lease.version, leaseMs },
    });
    return leased(next.submission, next.lease, false);
  });
}

/** Gives a leased submission back to the queue (the reviewer will not review it). */
export async function releaseLease(
  db: HubRootDb,
  reviewer: QueueActor,
  submissionId: number,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (!(await lockSubmission(trx, submissionId))) {
      throw notFound(submissionId);
    }
    const lease = await findOpenLease(trx, submissionId);
    if (!lease || lease.reviewerId !== reviewer.userId || lease.isExpired) {
      throw notHolder(reviewer, submissionId);
    }
    await endLease(trx, lease.id, 'released');
    if (lease.isQa) {
      // a second review goes back to the QA queue; the submission stays accepted
      await clearQaLease(trx, submissionId, lease.version);
    } else {
      await setSubmissionStatus(trx, submissionId, 'submitted');
    }
    await writeAudit(trx, {
      ...audit(reviewer),
      action: 'lease.release',
      target: `submission:${submissionId}`,
    });
  });
}

function notHolder(reviewer: QueueActor, submissionId: number, version?: number): AppError {
  return new AppError(
    'HUB_LEASE_NOT_HELD',
    `${reviewer.name} holds no live lease on submission ${submissionId}` +
      (version === undefined ? '' : ` version ${version}`),
    { submissionId, ...(version === undefined ? {} : { version }) },
    'Ask for the next submission (review next): a lease that expired or was reassigned went ' +
      'back to the queue or to another reviewer.',
  );
}

/** An admin hands a waiting or leased submission to a reviewer (ending any open lease). */
export async function reassign(
  db: HubRootDb,
  input: {
    admin: QueueActor;
    submissionId: number;
    reviewerName: string;
    leaseMs?: number;
  },
): Promise<LeasedSubmission> {
  const leaseMs = input.leaseMs ?? DEFAULT_LEASE_MS;
  checkLeaseMs(leaseMs);
  return await inTransaction(db, async (trx) => {
    const [target] = await listUsersWithRoles(trx, { name: input.reviewerName });
    if (!target?.roles.includes('reviewer')) {
      throw new AppError(
        'INVALID_PAYLOAD',
        `"${input.reviewerName}" is not a live account with the reviewer role`,
        { reviewer: input.reviewerName },
        'Give the name of a reviewer (cua-annotator hub user list).',
      );
    }
    if (!(await lockSubmission(trx, input.submissionId))) {
      throw notFound(input.submissionId);
    }
    const s = await mustFind(trx, input.submissionId);
    if (s.status !== 'submitted' && s.status !== 'in-review') {
      throw new AppError(
        'INVALID_STATE',
        `submission ${s.id} is ${s.status}: only a waiting or leased submission can be assigned`,
        { submissionId: s.id, status: s.status },
        'Reassign submissions that wait or are in review.',
      );
    }
    if (s.annotatorId === target.id) {
      throw new AppError(
        'INVALID_PAYLOAD',
        `"${target.name}" annotated submission ${s.id}: nobody reviews their own work`,
        { reviewer: target.name },
        'Choose another reviewer.',
      );
    }
    const open = await findOpenLease(trx, s.id);
    if (open) {
      await endLease(trx, open.id, 'reassigned');
    }
    const lease = await insertLease(trx, {
      submissionId: s.id,
      version: s.version,
      reviewerId: target.id,
      leaseMs,
    });
    await setSubmissionStatus(trx, s.id, 'in-review');
    await writeAudit(trx, {
      ...audit(input.admin),
      action: 'submission.reassign',
      target: `submission:${s.id}`,
      details: { to: target.name, fromReviewerId: open?.reviewerId ?? null, version: s.version },
    });
    return leased(s, lease, false);
  });
}

/** Records the lease holder's verdict on the leased version: accept and reject are final,
 * changes sends it back to the annotator for a new version. Anyone else — another reviewer, the
 * holder after the lease expired or was reassigned, or on another version — is refused
 * (HUB_LEASE_NOT_HELD). An accept draws the submission for a second review when the QA share
 * says so (isDrawn). On a QA lease the verdict is the second review's: kept beside the first,
 * the status unchanged (`qa` true in the answer). */
export async function recordVerdict(
  db: HubRootDb,
  input: {
    reviewer: QueueActor;
    submissionId: number;
    version: number;
    verdict: (typeof VERDICTS)[number];
    grade?: (typeof GRADES)[number] | null;
    feedback?: string;
    editLog?: unknown[];
  },
): Promise<{
  submissionId: number;
  version: number;
  status: SubmissionRecord['status'];
  /** Present (true) when the verdict was a second review (QA): the status is unchanged. */
  qa?: true;
  /** Present (true) when an accept drew the submission for a second review. */
  sampled?: true;
}> {
  if (!VERDICTS.includes(input.verdict)) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `unknown verdict "${String(input.verdict)}"`,
      undefined,
      'Give accept, reject or changes.',
    );
  }
  const grade = input.grade ?? null;
  if (grade !== null && !GRADES.includes(grade)) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `unknown grade "${String(grade)}"`,
      undefined,
      'Give excellent, good or ok (or no grade).',
    );
  }
  return await inTransaction(db, async (trx) => {
    if (!(await lockSubmission(trx, input.submissionId))) {
      throw notFound(input.submissionId);
    }
    const lease = await findOpenLease(trx, input.submissionId);
    if (
      !lease ||
      lease.reviewerId !== input.reviewer.userId ||
      lease.isExpired ||
      lease.version !== input.version
    ) {
      throw notHolder(input.reviewer, input.submissionId, input.version);
    }
    if (lease.isQa) {
      await setQaVerdict(trx, {
        submissionId: input.submissionId,
        version: input.version,
        reviewerId: input.reviewer.userId,
        verdict: input.verdict,
        grade,
        feedback: input.feedback ?? '',
      });
      await endLease(trx, lease.id, 'verdict');
      await writeAudit(trx, {
        ...audit(input.reviewer),
        action: 'submission.qa-verdict',
        target: `submission:${input.submissionId}`,
        details: { version: input.version, verdict: input.verdict, grade },
      });
      const s = await mustFind(trx, input.submissionId);
      return {
        submissionId: input.submissionId,
        version: input.version,
        status: s.status,
        qa: true,
      };
    }
    await insertVerdict(trx, {
      submissionId: input.submissionId,
      version: input.version,
      reviewerId: input.reviewer.userId,
      verdict: input.verdict,
      grade,
      feedback: input.feedback ?? '',
      editLog: input.editLog ?? [],
    });
    await endLease(trx, lease.id, 'verdict');
    const status =
      input.verdict === 'accept' ? 'accepted' : input.verdict === 'reject' ? 'rejected' : 'changes';
    await setSubmissionStatus(trx, input.submissionId, status);
    const sampled =
      input.verdict === 'accept' &&
      isDrawn(input.submissionId, (await readQaSettings(trx)).sampleShare);
    if (sampled) {
      await insertQaReview(trx, {
        submissionId: input.submissionId,
        version: input.version,
        firstReviewerId: input.reviewer.userId,
        firstVerdict: input.verdict,
      });
    }
    await writeAudit(trx, {
      ...audit(input.reviewer),
      action: 'submission.verdict',
      target: `submission:${input.submissionId}`,
      details: {
        version: input.version,
        verdict: input.verdict,
        grade,
        ...(sampled ? { qa: true } : {}),
      },
    });
    return {
      submissionId: input.submissionId,
      version: input.version,
      status,
      ...(sampled ? { sampled: true as const } : {}),
    };
  });
}

/** One row of an annotator's list (`sync`). */
export type AnnotatorSubmission = {
  id: number;
  recordingId: string;
  task: string;
  version: number;
  status: SubmissionRecord['status'];
  grade: VerdictRecord['grade'];
  feedback: string | null;
  reviewer: string | null;
  /** The version the latest verdict was given on (it may be older than `version`). */
  verdictVersion: number | null;
  updatedAtMs: number;
  /** The current version's intake (docs/jobs.md §H): null when none ran (no job runner). */
  intake: AnnotatorIntake | null;
};

/** A version's intake as its annotator sees it: why it failed, if it did. */
export type AnnotatorIntake = {
  status: 'pending' | 'passed' | 'failed';
  reasons: { code: string; message: string; fix: string }[];
};

/** The annotator's own submissions (never another's), with the latest verdict's grade,
 * feedback and reviewer. */
export async function listForAnnotator(
  db: HubDb,
  annotator: Pick<QueueActor, 'userId'>,
): Promise<AnnotatorSubmission[]> {
  const rows = await listSubmissionsOf(db, annotator.userId);
  const intakes = await currentIntakes(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    recordingId: r.recordingId,
    task: r.task,
    version: r.version,
    status: r.status,
    grade: r.latestVerdict?.grade ?? null,
    feedback: r.latestVerdict?.feedback ?? null,
    reviewer: r.latestVerdict?.reviewer ?? null,
    verdictVersion: r.latestVerdict?.version ?? null,
    updatedAtMs: r.updatedAtMs,
    intake: intakeOf(intakes.get(r.id)),
  }));
}

function intakeOf(
  row:
    | { status: AnnotatorIntake['status'] | null; result: Record<string, unknown> | null }
    | undefined,
): AnnotatorIntake | null {
  if (!row?.status) {
    return null;
  }
  const reasons = (row.result?.reasons ?? []) as AnnotatorIntake['reasons'];
  return { status: row.status, reasons };
}
