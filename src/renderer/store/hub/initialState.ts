// The hub pages' store (docs/team-mode.md §15): who is signed in to the hub that serves the page,
// and the data of its pages (My submissions, Review queue, Team).
import type { ShownError } from '../../components/ErrorNotice';
import type {
  HubAuditEntrySchema,
  HubMySubmission,
  HubReviewQueue,
  HubRole,
  HubTokenSchema,
  HubUserSchema,
} from '../../../shared/contract/hub';
import type { InferOutput } from 'valibot';

/** Where the page's sign-in stands. */
export type HubSession =
  | { phase: 'checking' }
  | { phase: 'signed-out'; notice: string | null }
  /** Signed in with a one-time password: it must be changed before anything else. */
  | { phase: 'must-change'; user: string; roles: HubRole[] }
  | { phase: 'signed-in'; user: string; roles: HubRole[] };

/** Data a page loads, with how loading went. */
export type Loadable<T> = {
  status: 'idle' | 'loading' | 'ready' | 'error';
  data: T | null;
  error: ShownError | null;
};

/** An account as the Team page lists it. */
export type HubUserRow = InferOutput<typeof HubUserSchema>;
/** One of the caller's API tokens. */
export type HubTokenRow = InferOutput<typeof HubTokenSchema>;
/** One audit-log row. */
export type HubAuditRow = InferOutput<typeof HubAuditEntrySchema>;

/** Rows per page of the audit log. */
export const AUDIT_PAGE_SIZE = 25;

/** The audit log's page: filters, the cursor of each page seen, whether older rows exist. */
export type AuditView = Loadable<HubAuditRow[]> & {
  filter: { actor: string; action: string };
  /** `before` of the pages from the newest to the one shown (null: the newest page). */
  cursors: (number | null)[];
  hasOlder: boolean;
};

/** A secret shown once (a one-time password or a new API token). */
export type ShownSecret = { kind: 'password' | 'token'; label: string; value: string };

/** State of the hub store. */
export type HubState = {
  session: HubSession;
  form: {
    busy: boolean;
    error: ShownError | null;
    /** RATE_LIMITED: when a new try is allowed (epoch ms). */
    retryAtMs: number | null;
    /** The one-time password just used is held (in memory) for its forced change. */
    hasCurrentPassword: boolean;
  };
  mine: Loadable<HubMySubmission[]>;
  queue: Loadable<HubReviewQueue>;
  users: Loadable<HubUserRow[]>;
  tokens: Loadable<HubTokenRow[]>;
  audit: AuditView;
  /** A Team action in flight, and how the last one went. */
  teamBusy: boolean;
  teamError: ShownError | null;
  teamNotice: string | null;
  secret: ShownSecret | null;
};

const idle = <T>(): Loadable<T> => ({ status: 'idle', data: null, error: null });

// A fresh state.
export function initialHubState(): HubState {
  return {
    session: { phase: 'checking' },
    form: { busy: false, error: null, retryAtMs: null, hasCurrentPassword: false },
    mine: idle(),
    queue: idle(),
    users: idle(),
    tokens: idle(),
    audit: { ...idle(), filter: { actor: '', action: '' }, cursors: [null], hasOlder: false },
    teamBusy: false,
    teamError: null,
    teamNotice: null,
    secret: null,
  };
}
