// Derived values of the hub store: which pages a person's roles open, their labels, and an
// annotator's own counts.
import type { HubMySubmission, HubRole } from '../../../shared/contract/hub';
import type { HubSession, HubState } from './initialState';

/** The hub's pages, by their hash path (`#/<page>`). */
export const HUB_PAGES = [
  { page: 'submissions', label: 'My submissions', role: 'annotator' },
  { page: 'review', label: 'Review queue', role: 'reviewer' },
  { page: 'team', label: 'Team', role: 'admin' },
  { page: 'tasks', label: 'Tasks', role: ['annotator', 'admin'] },
  { page: 'dashboard', label: 'Dashboard', role: 'admin' },
] as const satisfies readonly {
  page: string;
  label: string;
  /** the role that opens the page, or any of several */
  role: HubRole | readonly HubRole[];
}[];

/** One of the hub's pages. */
export type HubPage = (typeof HUB_PAGES)[number]['page'];

/** Labels of the submission statuses. */
export const SUBMISSION_STATUS_LABELS: Record<string, string> = {
  draft: 'Draft',
  submitted: 'Waiting for review',
  'in-review': 'In review',
  accepted: 'Accepted',
  rejected: 'Rejected',
  changes: 'Changes requested',
  intake: 'Being checked',
  'intake-failed': 'Failed the hub’s checks',
};

/** Derived values of the hub store. */
export const hubSelectors = {
  /** The signed-in person's roles (none while signed out or changing the password). */
  roles: (s: Pick<HubState, 'session'>): HubRole[] =>
    s.session.phase === 'signed-in' ? s.session.roles : [],
  /** The pages the signed-in person may open, in nav order. */
  pages: (s: Pick<HubState, 'session'>) =>
    HUB_PAGES.filter((p) =>
      ([] as readonly HubRole[]).concat(p.role).some((r) => hubSelectors.roles(s).includes(r)),
    ),
  /** The page a hash shows: the one named if the roles open it, else the first they open. */
  pageOf: (s: Pick<HubState, 'session'>, hash: string): HubPage | null => {
    const pages = hubSelectors.pages(s);
    const named = /^#\/([a-z]+)\/?$/.exec(hash)?.[1];
    return pages.find((p) => p.page === named)?.page ?? pages[0]?.page ?? null;
  },
  /** Seconds until a rate-limited sign-in may be tried again (0: now). */
  waitSeconds: (s: Pick<HubState, 'form'>, nowMs: number): number =>
    s.form.retryAtMs === null ? 0 : Math.max(0, Math.ceil((s.form.retryAtMs - nowMs) / 1000)),
  /** True once someone is signed in (roles known). */
  isSignedIn: (session: HubSession): boolean => session.phase === 'signed-in',
  /** An annotator's own counts (My submissions, issue 28 item 5): submissions by status, and
   * the acceptance rate as the dashboard defines it — accepted / (accepted + rejected), null
   * before any final verdict. */
  mySummary: (rows: readonly Pick<HubMySubmission, 'status'>[]): MySummary => {
    const byStatus: Record<string, number> = {};
    for (const r of rows) {
      byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    }
    const accepted = byStatus.accepted ?? 0;
    const rejected = byStatus.rejected ?? 0;
    return {
      total: rows.length,
      byStatus,
      accepted,
      rejected,
      acceptanceRate: accepted + rejected ? accepted / (accepted + rejected) : null,
    };
  },
};

/** An annotator's own counts. */
export type MySummary = {
  total: number;
  /** Submissions per status (only the statuses present). */
  byStatus: Record<string, number>;
  accepted: number;
  rejected: number;
  /** accepted / (accepted + rejected); null before any final verdict. */
  acceptanceRate: number | null;
};
