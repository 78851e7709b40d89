// State of the team store: this library's sign-in to a hub, the annotator's submissions, submits
// under way or waiting for the hub, and the review queue (docs/team-mode.md §14).
import type { ApiMethods, TeamStatusDto, TeamSubmitOutcome } from '../../../shared/contract';
import type { ShownError } from '../../components/ErrorNotice';

/** The annotator's list: the hub's submissions and the local pending ones. */
export type TeamSubmissions = ApiMethods['team:submissions']['output'];

/** A recording's submit from this view. */
export type SubmitState =
  | { phase: 'submitting' }
  | { phase: 'done'; outcome: TeamSubmitOutcome }
  | { phase: 'error'; error: ShownError };

/** State of the team store. */
export type TeamState = {
  status: TeamStatusDto | null;
  statusLoad: 'idle' | 'loading' | 'ready';
  statusError: ShownError | null;
  /** The sign-in form: the password step, then the one-time password's replacement. */
  signInForm: {
    stage: 'password' | 'new-password';
    busy: boolean;
    error: ShownError | null;
    /** What the first step sent (kept for the second; never persisted). */
    pending: { url: string; user: string; password: string } | null;
  };
  submissions: TeamSubmissions | null;
  submissionsLoad: 'idle' | 'loading' | 'ready';
  /** Submits by recording id. */
  submits: Record<string, SubmitState>;
  review: {
    busy: boolean;
    error: ShownError | null;
    /** The answer of the last "Take the next one" (null submission: nothing waits). */
    taken: ApiMethods['team:review-next']['output'] | null;
  };
  verdict: {
    busy: boolean;
    error: ShownError | null;
    sent: ApiMethods['team:verdict']['output'] | null;
  };
};

// The initial state.
export function initialTeamState(): TeamState {
  return {
    status: null,
    statusLoad: 'idle',
    statusError: null,
    signInForm: { stage: 'password', busy: false, error: null, pending: null },
    submissions: null,
    submissionsLoad: 'idle',
    submits: {},
    review: { busy: false, error: null, taken: null },
    verdict: { busy: false, error: null, sent: null },
  };
}
