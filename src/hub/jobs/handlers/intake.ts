// The `intake` job (issue 29 item 3, docs/jobs.md §H): every registered version, before a
// reviewer sees it, is re-hashed object by object against its manifest, restored into a scratch
// library where the PII scan (every text the bundle carries, an import's raw files included) and
// `check` run, and its outcome is stored on the version. A passing version joins the review
// queue; a failing one goes back to the annotator with the reasons (status `intake-failed`,
// shown by `sync`), never to a reviewer — and its job goes to the admins' dead-letter list with the
// reasons (JobRefused: at once, no retries). Idempotent: a version whose intake is decided is not
// run again (key `intake:<id>@<version>`); a rerun returns, or refuses with, the stored outcome.
import type { CheckProblem } from '../../../shared/domain';
import { BLOCKING_PII_KINDS } from '../../../shared/domain';
import { AppError } from '../../../shared/errors';
import { checkRecordingInLibrary } from '../../../services/quality/check-service';
import { scanWithResolutions } from '../../../services/privacy/policy';
import { findJobVersion, recordIntake, writeAudit, type HubDb } from '../../db';
import { verifyBundle, type ObjectProblem } from '../../storage';
import {
  JobHandedBack,
  JobRefused,
  type JobContext,
  type JobDeps,
  type JobHandler,
} from '../types';
import { reasonOf, withBundleLibrary } from './bundle-library';
import {
  jobKeys,
  parsePayload,
  SubmissionVersionPayloadSchema,
  type IntakePayload,
} from './payloads';

/** Why a version failed its intake. */
export type IntakeReason = {
  /** INTEGRITY_FAILED, PULL_INVALID, PII_UNRESOLVED, a check code, … */
  code: string;
  message: string;
  /** What the annotator does about it. */
  fix: string;
};

/** What an intake found, stored on the version (`intake_result`). */
export type IntakeResult = {
  submissionId: number;
  version: number;
  status: 'passed' | 'failed';
  reasons: IntakeReason[];
  /** Files re-hashed against the manifest, and the problems found. */
  integrity: { files: number; bytes: number; problems: ObjectProblem[] } | null;
  /** The PII scan: findings per kind, unresolved ones of a blocking kind, and those the
   * submitter let through with --allow-pii (in the manifest). */
  pii: {
    findings: number;
    byKind: Record<string, number>;
    unresolvedBlocking: number;
    allowed: number;
  } | null;
  /** `check`'s outcome (warnings never fail an intake). */
  check: { ok: boolean; errors: number; warnings: number; codes: string[] } | null;
  /** The bundle's keyframes are missing or stale (a `keyframes` job computes them). */
  needsKeyframes: boolean;
  /** Restore warnings (the submitted steps differ from the edit log applied, …). */
  warnings: string[];
  /** Wall time of this run (ms); 0 when the stored outcome was returned. */
  ms: number;
  /** False when the intake had been decided before (this run returned the stored outcome). */
  decided: boolean;
};

// check codes whose errors a job, not the annotator, deals with: keyframes are computed on the
// hub; PII is judged below with the manifest's allowance
const NOT_INTAKE_ERRORS = new Set(['KEYFRAME_MISSING', 'PII_UNRESOLVED']);

const BLOCKING: readonly string[] = BLOCKING_PII_KINDS;

function checkReason(p: CheckProblem): IntakeReason {
  const where = p.stepIndex === null ? '' : ` (step ${p.stepIndex + 1})`;
  return { code: p.code, message: `${p.message}${where}`, fix: p.fix };
}

function handedBack(ctx: JobContext): void {
  if (ctx.signal.aborted) {
    throw new JobHandedBack(ctx.key);
  }
}

/** The error code of a refused intake's job in the dead-letter list. */
export const INTAKE_REFUSED = 'INTAKE_FAILED';

/** The refusal of a failed intake: its job is dead-lettered with the reasons (the outcome itself
 * is stored on the version before this is thrown; `intake` carries it for direct callers). */
export function intakeRefusal(result: IntakeResult): JobRefused {
  const shown = result.reasons.slice(0, 3).map((r) => `${r.code}: ${r.message}`);
  const more = result.reasons.length - shown.length;
  return new JobRefused(
    INTAKE_REFUSED,
    `intake of submission ${result.submissionId} version ${result.version} failed: ` +
      shown.join('; ') +
      (more > 0 ? `; and ${more} more` : ''),
    {
      submissionId: result.submissionId,
      version: result.version,
      reasons: result.reasons,
      intake: result,
    },
    'The annotator sees these reasons (My submissions, `sync`) and sends a new version. A retry ' +
      're-checks nothing (this version’s intake is decided): it comes back here at once.',
  );
}

/** Runs `fn` in a transaction (or in the one `db` is). */
export async function inTransactionOf<T>(db: HubDb, fn: (trx: HubDb) => Promise<T>): Promise<T> {
  return db.isTransaction ? await fn(db) : await db.transaction().execute(fn);
}

// The checks themselves: integrity, then the scratch library's scan and check.
async function runChecks(
  deps: JobDeps,
  prefix: string,
  manifestSha256: string,
  ctx: JobContext,
): Promise<Omit<IntakeResult, 'submissionId' | 'version' | 'status' | 'ms' | 'decided'>> {
  const reasons: IntakeReason[] = [];
  const out: Omit<IntakeResult, 'submissionId' | 'version' | 'status' | 'ms' | 'decided'> = {
    reasons,
    integrity: null,
    pii: null,
    check: null,
    needsKeyframes: false,
    warnings: [],
  };
  await ctx.progress(0, 3, 're-hashing the objects');
  try {
    const verified = await verifyBundle(deps.store, prefix);
    out.integrity = { files: verified.files, bytes: verified.bytes, problems: [] };
    if (verified.manifestSha256 !== manifestSha256) {
      reasons.push({
        code: 'INTEGRITY_FAILED',
        message: `the stored manifest is not the one registered (SHA-256 ${verified.manifestSha256})`,
        fix: 'Submit the recording again.',
      });
    }
  } catch (e) {
    const problems =
      (e instanceof AppError &&
        (e.details as { problems?: ObjectProblem[] } | undefined)?.problems) ||
      [];
    out.integrity = { files: 0, bytes: 0, problems };
    reasons.push({
      ...reasonOf(e),
      fix: 'Submit the recording again: the stored files do not match its manifest.',
    });
  }
  if (reasons.length) {
    return out; // nothing else is worth reading from a bundle that lies
  }
  handedBack(ctx);
  await ctx.progress(1, 3, 'restoring the bundle');
  try {
    await withBundleLibrary(
      deps.store,
      prefix,
      async (b) => {
        handedBack(ctx);
        await ctx.progress(2, 3, 'PII scan and check');
        out.warnings = b.warnings;
        const { findings } = scanWithResolutions(b.lib, b.recordingId);
        const allowedIds = new Set(b.manifest.pii?.allowed.findings.map((f) => f.id) ?? []);
        const byKind: Record<string, number> = {};
        for (const f of findings) {
          byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
        }
        const blocking = findings.filter((f) => f.resolved === null && BLOCKING.includes(f.kind));
        const notAllowed = blocking.filter((f) => !allowedIds.has(f.id));
        out.pii = {
          findings: findings.length,
          byKind,
          unresolvedBlocking: blocking.length,
          allowed: blocking.length - notAllowed.length,
        };
        for (const f of notAllowed) {
          reasons.push({
            code: 'PII_UNRESOLVED',
            message:
              `an unresolved ${f.kind} finding in the ${f.source}` +
              (f.stepIndex === null ? '' : ` of step ${f.stepIndex + 1}`) +
              `: ${f.excerpt}`,
            fix: 'Redact it or mark it acceptable (scan --redact / the review page), then submit again.',
          });
        }
        const check = checkRecordingInLibrary(b.lib, b.recordingId);
        const errors = check.problems.filter((p) => p.severity === 'error');
        out.check = {
          ok: check.ok,
          errors: errors.length,
          warnings: check.problems.length - errors.length,
          codes: [...new Set(check.problems.map((p) => p.code))].sort(),
        };
        out.needsKeyframes = check.problems.some((p) => p.code === 'KEYFRAME_MISSING');
        reasons.push(...errors.filter((p) => !NOT_INTAKE_ERRORS.has(p.code)).map(checkReason));
      },
      { signal: ctx.signal },
    );
  } catch (e) {
    if (e instanceof JobHandedBack || ctx.signal.aborted) {
      throw new JobHandedBack(ctx.key);
    }
    // a bundle the app cannot restore (rows that do not parse, a file that changed since the
    // re-hash) is the annotator's to send again; a store that went away is retried
    if (e instanceof AppError && ['STORAGE_UNREACHABLE', 'STORAGE_FULL'].includes(e.code)) {
      throw e;
    }
    reasons.push({
      ...reasonOf(e),
      fix: 'Submit the recording again with this version of cua-annotator.',
    });
  }
  return out;
}

/** Builds the `intake` handler. */
export function createIntakeHandler(deps: JobDeps): JobHandler<IntakePayload, IntakeResult> {
  return async (payload, ctx) => {
    const p = parsePayload('intake', SubmissionVersionPayloadSchema, payload);
    const found = await findJobVersion(deps.db, p.submissionId, p.version);
    if (!found) {
      throw new AppError(
        'NOT_FOUND',
        `no version ${p.version} of submission ${p.submissionId}`,
        { ...p },
        'Nothing to take in: the submission may be from another hub.',
      );
    }
    if (found.intakeStatus === 'passed' || found.intakeStatus === 'failed') {
      // decided by an earlier run (this key ran before, a rerun after the effect, an admin's
      // retry of the refusal): the stored outcome stands, a refusal is refused again
      return settled({ ...(found.intakeResult as IntakeResult), ms: 0, decided: false });
    }
    const started = Date.now();
    const checks = await runChecks(deps, found.objectPrefix, found.manifestSha256, ctx);
    const result: IntakeResult = {
      submissionId: p.submissionId,
      version: p.version,
      status: checks.reasons.length ? 'failed' : 'passed',
      ...checks,
      ms: Date.now() - started,
      decided: true,
    };
    handedBack(ctx);
    const recorded = await inTransactionOf(deps.db, async (trx) => {
      const r = await recordIntake(trx, {
        submissionId: p.submissionId,
        version: p.version,
        status: result.status,
        result,
      });
      if (r.decided) {
        await writeAudit(trx, {
          actor: 'hub:jobs',
          actorUserId: null,
          client: 'job',
          action: 'submission.intake',
          target: `submission:${p.submissionId}`,
          details: {
            version: p.version,
            status: result.status,
            reasons: result.reasons.map((x) => x.code),
          },
        });
      }
      return r;
    });
    await ctx.progress(3, 3, result.status);
    if (!recorded.decided) {
      // another run decided it between our read and our write: its outcome stands
      const again = await findJobVersion(deps.db, p.submissionId, p.version);
      return settled({ ...(again?.intakeResult as IntakeResult), ms: 0, decided: false });
    }
    if (result.status === 'passed' && result.needsKeyframes) {
      await deps.enqueue?.('keyframes', p, { key: jobKeys.keyframes(p.submissionId, p.version) });
    }
    ctx.log(
      `intake ${p.submissionId}@${p.version}: ${result.status}` +
        (result.reasons.length ? ` (${result.reasons.map((x) => x.code).join(', ')})` : '') +
        ` in ${result.ms} ms`,
    );
    return settled(result);
  };
}

// a passed intake is the job's result; a failed one, recorded, refuses the job (dead letter)
function settled(result: IntakeResult): IntakeResult {
  if (result.status === 'failed') {
    throw intakeRefusal(result);
  }
  return result;
}
