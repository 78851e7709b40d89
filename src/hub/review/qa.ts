// QA sampling (docs/team-mode.md §19): an admin sets the share of accepted submissions that get
// a second review by another reviewer (`qa:settings`). Which submissions are drawn is decided by
// the submission id alone (qaDraw), so a run can be predicted and repeated. The second verdict
// is kept beside the first (qa_reviews) and never changes the submission's status; an admin
// settles a disagreement (`qa:settle`), which makes the submission accepted or rejected.
import { AppError } from '../../shared/errors';
import {
  findQaReview,
  findSubmission,
  inTransaction,
  lockSubmission,
  readSettings,
  setQaSettled,
  setSubmissionStatus,
  writeAudit,
  writeSetting,
  type HubDb,
  type HubRootDb,
} from '../db';
import type { QueueActor } from './queue';

/** The QA settings (hub_settings key `qa`). */
export type QaSettings = {
  /** The share of accepted submissions drawn for a second review, 0 (none) to 1 (all). */
  sampleShare: number;
};

const SETTINGS_KEY = 'qa';

/** A new hub's: no second reviews. */
export const DEFAULT_QA_SETTINGS: QaSettings = { sampleShare: 0 };

/** Where submission `id` falls in [0, 1): it is drawn when this is below the share. Fibonacci
 * hashing (the id times 2^32/φ, modulo 2^32) spreads consecutive ids evenly over [0, 1), so the
 * drawn share of n submissions is within a few of share × n. */
export function qaDraw(submissionId: number): number {
  return (Math.imul(submissionId, 0x9e3779b9) >>> 0) / 2 ** 32;
}

/** True when submission `id` is drawn at this share (share 1: every one; 0: none). */
export function isDrawn(submissionId: number, sampleShare: number): boolean {
  return qaDraw(submissionId) < sampleShare;
}

/** The hub's QA settings. */
export async function readQaSettings(db: HubDb): Promise<QaSettings> {
  const stored = (await readSettings(db, SETTINGS_KEY)).get(SETTINGS_KEY) as
    Partial<QaSettings> | undefined;
  const share = stored?.sampleShare;
  return {
    sampleShare:
      typeof share === 'number' && share >= 0 && share <= 1
        ? share
        : DEFAULT_QA_SETTINGS.sampleShare,
  };
}

/** Changes the QA settings (audited); answers all of them. */
export async function writeQaSettings(
  db: HubRootDb,
  actor: QueueActor,
  change: Partial<QaSettings>,
): Promise<QaSettings> {
  const share = change.sampleShare;
  if (share !== undefined && !(Number.isFinite(share) && share >= 0 && share <= 1)) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `sampleShare must be from 0 to 1 (got ${share})`,
      { sampleShare: share },
      'Give the share of accepted submissions to review twice, e.g. 0.1 for one in ten.',
    );
  }
  return await inTransaction(db, async (trx) => {
    const next = { ...(await readQaSettings(trx)), ...change };
    await writeSetting(trx, SETTINGS_KEY, next);
    await writeAudit(trx, {
      actor: actor.name,
      actorUserId: actor.userId,
      client: actor.client,
      action: 'qa.settings',
      target: 'hub:qa',
      details: { ...change },
    });
    return next;
  });
}

/** An admin settles the second review of the submission's current version: `accepted` keeps
 * it, `rejected` rejects it. The note stays in qa_reviews and the audit log; the first verdict
 * (and its feedback to the annotator) is not changed. */
export async function settleQa(
  db: HubRootDb,
  input: {
    admin: QueueActor;
    submissionId: number;
    status: 'accepted' | 'rejected';
    note?: string;
  },
): Promise<{ submissionId: number; version: number; status: 'accepted' | 'rejected' }> {
  return await inTransaction(db, async (trx) => {
    if (!(await lockSubmission(trx, input.submissionId))) {
      throw new AppError(
        'NOT_FOUND',
        `no submission ${input.submissionId}`,
        { submissionId: input.submissionId },
        'Take the id from the dashboard’s disagreements.',
      );
    }
    const s = (await findSubmission(trx, input.submissionId))!;
    const qa = await findQaReview(trx, s.id, s.version);
    if (!qa?.verdict || (s.status !== 'accepted' && s.status !== 'rejected')) {
      throw new AppError(
        'INVALID_STATE',
        `submission ${s.id} has no second review to settle` +
          (qa && !qa.verdict ? ' yet (it waits for its second reviewer)' : ''),
        { submissionId: s.id, status: s.status },
        'Settle the submissions listed under the dashboard’s QA disagreements.',
      );
    }
    await setQaSettled(trx, {
      submissionId: s.id,
      version: s.version,
      status: input.status,
      by: input.admin.userId,
      note: input.note ?? '',
    });
    if (s.status !== input.status) {
      await setSubmissionStatus(trx, s.id, input.status);
    }
    await writeAudit(trx, {
      actor: input.admin.name,
      actorUserId: input.admin.userId,
      client: input.admin.client,
      action: 'qa.settle',
      target: `submission:${s.id}`,
      details: {
        version: s.version,
        from: s.status,
        to: input.status,
        firstVerdict: qa.firstVerdict,
        secondVerdict: qa.verdict,
      },
    });
    return { submissionId: s.id, version: s.version, status: input.status };
  });
}
