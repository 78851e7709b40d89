// Derived values of the health store.
import type { SystemHealthDto } from '../../../shared/contract';
import type { HealthState } from './initialState';

/** One check as the page shows it. */
export type CheckVerdict = 'ok' | 'warn' | 'fail';

type Check = SystemHealthDto['checks'][number];

/** Labels of the verdicts. */
export const VERDICT_LABELS: Record<CheckVerdict, string> = {
  ok: 'OK',
  warn: 'Warning',
  fail: 'Failed',
};

/** The host operating systems the onboarding copy covers. */
export type OnboardingOs = 'macos' | 'linux' | 'windows';

/** Selectors of the health store. */
export const healthSelectors = {
  /** ok; a failed warning-level check is a warning; a failed error-level check fails. */
  verdict: (c: Check): CheckVerdict => {
    if (c.ok) {
      return 'ok';
    }
    return c.severity === 'warning' ? 'warn' : 'fail';
  },
  /** Failed checks first (errors, then warnings), then the passing ones, each in service order. */
  sortedChecks: (s: HealthState): Check[] => {
    const rank = (c: Check) => ({ fail: 0, warn: 1, ok: 2 })[healthSelectors.verdict(c)];
    return [...(s.health?.checks ?? [])]
      .map((c, i) => ({ c, i }))
      .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
      .map(({ c }) => c);
  },
  counts: (s: HealthState): Record<CheckVerdict, number> => {
    const counts = { ok: 0, warn: 0, fail: 0 };
    for (const c of s.health?.checks ?? []) {
      counts[healthSelectors.verdict(c)] += 1;
    }
    return counts;
  },
  /** The OS the onboarding steps are for (Node's platform names and plain names), else null. */
  os: (s: HealthState): OnboardingOs | null => {
    const p = (s.health?.platform ?? '').toLowerCase();
    if (p.startsWith('darwin') || p.startsWith('mac')) {
      return 'macos';
    }
    if (p.startsWith('win')) {
      return 'windows';
    }
    return p.startsWith('linux') ? 'linux' : null;
  },
};
