// The privacy policy before anything leaves the machine (issue 14, item 4): export and upload
// scan each recording first and refuse one with unresolved findings of a blocking kind (card,
// iban, secret) with PII_UNRESOLVED, unless the caller passes `allowPii`, which is recorded in the
// recording's review history and returned for the submission manifest / export metadata. Other
// kinds only warn. A finding is resolved when a non-undone `pii-accept` (marked acceptable) or
// `redact-text` (its text redacted) edit of the log names its id.
import { BLOCKING_PII_KINDS, PII_KINDS, type PiiFinding, type PiiKind } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { addReview, getReviewStatus, listEdits, resolveRecordingSeq } from '../../store';
import type { Library } from '../library/library';
import { loadUploadDefaults } from '../upload/defaults';
import { scanRecording, type ScanOptions } from './scan-service';

/** How a finding was resolved: marked acceptable (`pii-accept`) or redacted (`redact-text`). */
export type PiiResolution = 'accepted' | 'redacted';

/** A finding with its resolution (null: unresolved). */
export type ResolvedFinding = PiiFinding & { resolved: PiiResolution | null };

/** One finding let through with `allowPii`. */
export type AllowedFinding = Pick<PiiFinding, 'id' | 'kind' | 'source' | 'stepIndex'>;

/** What `allowPii` let through for one recording (review history, manifests, metadata). */
export type PiiAllowance = {
  /** Who allowed it (the configured annotator), null when none is configured. */
  allowedBy: string | null;
  /** When (ISO 8601). */
  allowedAt: string;
  /** The unresolved findings of a blocking kind that were let through. */
  findings: AllowedFinding[];
};

/** What the policy decided for one recording that may leave. */
export type PiiDecision = {
  /** Full recording id. */
  id: string;
  /** Warnings for the export/upload warnings channel (non-blocking kinds, allowed findings). */
  warnings: string[];
  /** Set when blocking findings were let through with `allowPii`. */
  allowance: PiiAllowance | null;
};

/** Options of {@link enforcePiiPolicy}. */
export type PiiPolicyOptions = {
  /** What is leaving (named in messages and the review history). */
  action: 'export' | 'upload';
  /** Let unresolved blocking findings through (recorded). */
  allowPii?: boolean | undefined;
  /** Who allows them; default the saved annotator (settings / `upload --save`). */
  who?: string | null | undefined;
  /** Record the allowance in the review history. Default true. */
  record?: boolean;
  /** Clock (epoch ms); default Date.now. */
  now?: () => number;
  /** The scan's detectors (tests). */
  scan?: ScanOptions;
};

const BLOCKING: readonly string[] = BLOCKING_PII_KINDS;

/** The resolution of each finding id named by a non-undone `pii-accept` or `redact-text` edit
 * (a redaction wins over an acceptance). */
export function findingResolutions(lib: Library, idOrPrefix: string): Map<string, PiiResolution> {
  const { seq } = resolveRecordingSeq(lib.db, idOrPrefix);
  const out = new Map<string, PiiResolution>();
  for (const stored of listEdits(lib.db, seq, ['active'])) {
    // read loosely: `redact-text` is another op of the log with a `findingId` in its payload
    const edit = stored.edit as { op: string; findingId?: unknown };
    if (typeof edit.findingId !== 'string') {
      continue;
    }
    if (edit.op === 'redact-text') {
      out.set(edit.findingId, 'redacted');
    } else if (edit.op === 'pii-accept' && !out.has(edit.findingId)) {
      out.set(edit.findingId, 'accepted');
    }
  }
  return out;
}

/** Scans a recording and marks each finding with its resolution. */
export function scanWithResolutions(
  lib: Library,
  idOrPrefix: string,
  options: ScanOptions = {},
): { findings: ResolvedFinding[] } {
  const { findings } = scanRecording(lib, idOrPrefix, options);
  const resolutions = findingResolutions(lib, idOrPrefix);
  return { findings: findings.map((f) => ({ ...f, resolved: resolutions.get(f.id) ?? null })) };
}

/** True for a kind that blocks export and upload until resolved. */
export function isBlockingKind(kind: PiiKind): boolean {
  return BLOCKING.includes(kind);
}

// "2 card (steps 3, 5), 1 secret (task)": counts per kind with where they are.
function describeFindings(findings: readonly AllowedFinding[]): string {
  const parts: string[] = [];
  for (const kind of PII_KINDS) {
    const group = findings.filter((f) => f.kind === kind);
    if (!group.length) {
      continue;
    }
    const steps = [...new Set(group.flatMap((f) => (f.stepIndex === null ? [] : [f.stepIndex])))];
    const where = [
      ...(steps.length ? [`step${steps.length === 1 ? '' : 's'} ${steps.join(', ')}`] : []),
      ...(group.some((f) => f.stepIndex === null)
        ? [[...new Set(group.filter((f) => f.stepIndex === null).map((f) => f.source))].join(', ')]
        : []),
    ];
    parts.push(`${group.length} ${kind} (${where.join('; ')})`);
  }
  return parts.join(', ');
}

function allowedOf(f: PiiFinding): AllowedFinding {
  return { id: f.id, kind: f.kind, source: f.source, stepIndex: f.stepIndex };
}

/**
 * Scans every recording about to leave and applies the policy: refuses (PII_UNRESOLVED, nothing
 * recorded) when any has unresolved findings of a blocking kind and `allowPii` is not set;
 * with `allowPii`, records the allowance in each such recording's review history (its review
 * status unchanged) and returns it. Unresolved findings of other kinds become warnings.
 */
export function enforcePiiPolicy(
  lib: Library,
  ids: readonly string[],
  options: PiiPolicyOptions,
): PiiDecision[] {
  const scanned = ids.map((idOrPrefix) => {
    const { id } = resolveRecordingSeq(lib.db, idOrPrefix);
    const unresolved = scanWithResolutions(lib, id, options.scan).findings.filter(
      (f) => f.resolved === null,
    );
    return {
      id,
      blocking: unresolved.filter((f) => isBlockingKind(f.kind)),
      other: unresolved.filter((f) => !isBlockingKind(f.kind)),
    };
  });
  const blocked = scanned.filter((s) => s.blocking.length);
  if (blocked.length && !options.allowPii) {
    throw piiUnresolvedError(options.action, blocked);
  }
  const nowMs = (options.now ?? Date.now)();
  const who = options.who ?? savedAnnotator(lib);
  return scanned.map((s): PiiDecision => {
    const warnings = s.other.length
      ? [
          `unresolved PII (not blocking): ${describeFindings(s.other)}; review with ` +
            `\`cua-annotator scan ${s.id}\``,
        ]
      : [];
    if (!s.blocking.length) {
      return { id: s.id, warnings, allowance: null };
    }
    const allowance: PiiAllowance = {
      allowedBy: who,
      allowedAt: new Date(nowMs).toISOString(),
      findings: s.blocking.map(allowedOf),
    };
    warnings.unshift(
      `PII allowed (--allow-pii, recorded in the review history): ${describeFindings(s.blocking)}`,
    );
    if (options.record ?? true) {
      recordAllowance(lib, s.id, options.action, allowance, nowMs);
    }
    return { id: s.id, warnings, allowance };
  });
}

/**
 * The check of a queued upload when it runs (the recording may have changed since it was
 * queued, or an acceptance been undone): refuses (PII_UNRESOLVED) when an unresolved blocking
 * finding is not among those `allowance` let through when it was queued.
 */
export function recheckPiiPolicy(
  lib: Library,
  id: string,
  allowance: PiiAllowance | null | undefined,
): void {
  const allowed = new Set(allowance?.findings.map((f) => f.id) ?? []);
  const blocking = scanWithResolutions(lib, id).findings.filter(
    (f) => f.resolved === null && isBlockingKind(f.kind) && !allowed.has(f.id),
  );
  if (blocking.length) {
    throw piiUnresolvedError('upload', [{ id, blocking }]);
  }
}

/** Review-history comment prefix of an allowance (the row keeps the recording's status). */
export const PII_ALLOWED_COMMENT_PREFIX = 'pii-allowed';

/** Appends an allowance to the recording's review history: a row with its current review status
 * (unchanged), the person and a comment naming the action and the finding ids. */
export function recordAllowance(
  lib: Library,
  id: string,
  action: PiiPolicyOptions['action'],
  allowance: PiiAllowance,
  nowMs: number,
): void {
  const rec = getReviewStatus(lib.db, id);
  addReview(lib.db, rec.seq, {
    atMs: nowMs,
    reviewer: allowance.allowedBy,
    status: rec.reviewStatus,
    grade: null,
    comment:
      `${PII_ALLOWED_COMMENT_PREFIX} (${action} with --allow-pii): ` +
      `${describeFindings(allowance.findings)}; findings ` +
      allowance.findings.map((f) => `${f.kind}:${f.id}`).join(', '),
  });
}

function savedAnnotator(lib: Library): string | null {
  return loadUploadDefaults(lib.db).annotator ?? null;
}

function piiUnresolvedError(
  action: PiiPolicyOptions['action'],
  blocked: readonly { id: string; blocking: PiiFinding[] }[],
): AppError {
  const lines = blocked.map((b) => `${b.id}: ${describeFindings(b.blocking)}`);
  const first = blocked[0]!;
  return new AppError(
    'PII_UNRESOLVED',
    `Refusing to ${action}: ${blocked.length === 1 ? 'a recording has' : `${blocked.length} recordings have`} ` +
      `unresolved findings of kind ${BLOCKING_PII_KINDS.join('/')}: ${lines.join('; ')}.`,
    {
      action,
      recordings: blocked.map((b) => ({
        id: b.id,
        findings: b.blocking.map(allowedOf),
      })),
    },
    `Redact them (\`cua-annotator redact\`), mark them acceptable ` +
      `(\`cua-annotator scan ${first.id} --accept ${first.blocking[0]!.id} [--note TEXT]\`; ` +
      `\`cua-annotator scan ${first.id}\` lists the ids), or pass --allow-pii to ${action} ` +
      'anyway (recorded in the review history).',
  );
}
