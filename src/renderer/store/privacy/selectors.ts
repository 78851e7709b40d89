// Derived values of the privacy store: findings grouped by kind, blocking kinds first marked.
import {
  BLOCKING_PII_KINDS,
  PII_KINDS,
  type PiiFinding,
  type PiiKind,
} from '../../../shared/domain';
import type { PrivacyState, ScanFinding } from './initialState';

/** Findings of one kind. */
export type FindingGroup = {
  kind: PiiKind;
  /** True for kinds that block export and upload until resolved (card, iban, secret). */
  isBlocking: boolean;
  findings: ScanFinding[];
};

/** Human names of the kinds. */
export const PII_KIND_LABELS: Record<PiiKind, string> = {
  email: 'E-mail address',
  phone: 'Phone number',
  card: 'Card number',
  iban: 'IBAN',
  secret: 'Secret key or token',
  ip: 'IP address',
};

/** Human names of the sources. */
export const PII_SOURCE_LABELS: Record<PiiFinding['source'], string> = {
  typed: 'Typed',
  'window-title': 'Window title',
  accessibility: 'Accessibility',
  task: 'Task text',
  label: 'Label',
  'raw-file': 'Imported file',
};

const BLOCKING: ReadonlySet<PiiKind> = new Set(BLOCKING_PII_KINDS);

// True for a kind that blocks export and upload until resolved.
export function isBlockingKind(kind: PiiKind): boolean {
  return BLOCKING.has(kind);
}

// The findings grouped by kind: blocking kinds first, then the others, each in PII_KINDS order;
// the findings keep the service's order (by time) within a group; kinds without findings left out.
export function groupFindings(findings: readonly ScanFinding[]): FindingGroup[] {
  const byKind = new Map<PiiKind, ScanFinding[]>();
  for (const f of findings) {
    const list = byKind.get(f.kind) ?? [];
    list.push(f);
    byKind.set(f.kind, list);
  }
  const order = [...PII_KINDS].sort(
    (a, b) => Number(isBlockingKind(b)) - Number(isBlockingKind(a)),
  );
  return order.flatMap((kind) => {
    const list = byKind.get(kind);
    return list ? [{ kind, isBlocking: isBlockingKind(kind), findings: list }] : [];
  });
}

let memoFindings: readonly ScanFinding[] | null = null;
let memoGroups: FindingGroup[] = [];

/** Selectors of the privacy store. */
export const privacySelectors = {
  /** Findings by kind (memoised on the findings list, so components can subscribe to it). */
  groups: (s: PrivacyState): FindingGroup[] => {
    if (s.findings !== memoFindings) {
      memoFindings = s.findings;
      memoGroups = groupFindings(s.findings);
    }
    return memoGroups;
  },
  /** Number of open (unresolved) findings of blocking kinds. */
  blockingCount: (s: PrivacyState): number =>
    s.findings.filter((f) => isBlockingKind(f.kind) && !f.resolved).length,
  /** Number of findings neither redacted nor accepted. */
  openCount: (s: PrivacyState): number => s.findings.filter((f) => !f.resolved).length,
  /** Number of findings redacted or accepted. */
  resolvedCount: (s: PrivacyState): number => s.findings.filter((f) => f.resolved).length,
  /** The findings shown belong to `id` (a scan of it finished or is running over its results). */
  isFor: (s: PrivacyState, id: string): boolean => s.recordingId === id,
};
