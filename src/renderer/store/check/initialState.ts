// The check gate's state: the checks before submit (`recordings:check`, docs/quality.md) of the
// recordings about to be submitted, accepted or uploaded, shown in a dialog when they found
// something, with what the user decided.
import type { ApiMethods } from '../../../shared/contract';

/** One problem as `recordings:check` answers it. */
export type CheckProblemDto = ApiMethods['recordings:check']['output']['problems'][number];

/** What the gate stands in front of: a review move (submit, accept) or an upload. */
/** What the gate stands before: a submit, an accept (a review move) or an upload. */
export type GatePurpose = 'submit' | 'accept' | 'upload';

/** One recording's check. */
export type GateResult = { id: string; ok: boolean; problems: CheckProblemDto[] };

/** What the user decided: go on (warnings only or nothing found: `override` null), or go on
 * despite errors with a reason (only before a review move; the reason goes into its comment). */
export type GateDecision =
  { override: null } | { override: { reason: string; codes: string[]; purpose: GatePurpose } };

/** The check gate's state. */
export type CheckGateState = {
  /** The dialog is shown (the checks found something, or failed). */
  open: boolean;
  purpose: GatePurpose;
  ids: string[];
  status: 'idle' | 'checking' | 'ready' | 'error';
  results: GateResult[];
  /** Why a check could not run (status `error`). */
  error: string | null;
  /** The reviewer's reason to submit despite errors. */
  reason: string;
  /** What runs when the user goes on (null: nothing waiting). */
  pending: ((decision: GateDecision) => void) | null;
};

/** The gate with nothing in front of it. */
export function initialCheckGateState(): CheckGateState {
  return {
    open: false,
    purpose: 'submit',
    ids: [],
    status: 'idle',
    results: [],
    error: null,
    reason: '',
    pending: null,
  };
}
