// Check gate actions: `recordings:check` of each recording first; nothing found → the action
// runs at once; problems → the dialog with "Fix first" (cancel) and, for warnings only, "Go on
// anyway". Errors block; before a review move (never an upload) the reviewer may go on despite
// them with a reason, which the caller writes into the verdict's comment (overrideComment).
import type { StateCreator } from 'zustand';
import { getApiClient } from '../../api';
import {
  initialCheckGateState,
  type CheckGateState,
  type GateDecision,
  type GatePurpose,
  type GateResult,
} from './initialState';

/** Check gate actions. */
export type CheckGateActions = {
  /** Checks `ids`; runs `proceed` at once when nothing is found, else opens the dialog. */
  request: (
    ids: readonly string[],
    purpose: GatePurpose,
    proceed: (decision: GateDecision) => void,
  ) => Promise<void>;
  setReason: (reason: string) => void;
  /** "Fix first": closes the dialog; nothing runs. */
  fixFirst: () => void;
  /** Goes on: warnings only, or (before a review move) errors with a reason; else nothing. */
  goOn: () => void;
};

/** The check gate store type. */
export type CheckGateStore = CheckGateState & CheckGateActions;

/** Counts of error and warning problems over every checked recording. */
export function gateCounts(s: Pick<CheckGateState, 'results'>): {
  errors: number;
  warnings: number;
} {
  const all = s.results.flatMap((r) => r.problems);
  const errors = all.filter((p) => p.severity === 'error').length;
  return { errors, warnings: all.length - errors };
}

/** True when "go on" may run now: a finished check with warnings only, or errors before a
 * review move with a reason given. */
export function canGoOn(
  s: Pick<CheckGateState, 'status' | 'results' | 'purpose' | 'reason'>,
): boolean {
  if (s.status !== 'ready') {
    return false;
  }
  const { errors } = gateCounts(s);
  return errors === 0 || (s.purpose !== 'upload' && s.reason.trim() !== '');
}

/** The verdict comment with the override written into it (the review history keeps it). */
export function overrideComment(
  comment: string | undefined,
  decision: GateDecision,
): string | undefined {
  if (decision.override === null) {
    return comment;
  }
  const note =
    `${decision.override.purpose === 'accept' ? 'Accepted' : 'Submitted'} despite check errors (${decision.override.codes.join(', ')}). ` +
    `Reason: ${decision.override.reason}`;
  return comment ? `${comment}\n\n${note}` : note;
}

// What the override let through, per error code: "CODE step N" for one, "CODE ×N" for more
function errorCodes(results: readonly GateResult[]): string[] {
  const errors = results.flatMap((r) => r.problems.filter((p) => p.severity === 'error'));
  const codes = [...new Set(errors.map((p) => p.code))];
  return codes.map((code) => {
    const of = errors.filter((p) => p.code === code);
    if (of.length > 1) {
      return `${code} ×${of.length}`;
    }
    return of[0]!.stepIndex === null ? code : `${code} step ${of[0]!.stepIndex}`;
  });
}

// The actions slice of the check gate store.
export const createCheckGateActions: StateCreator<CheckGateStore, [], [], CheckGateActions> = (
  set,
  get,
) => ({
  request: async (ids, purpose, proceed) => {
    set({
      ...initialCheckGateState(),
      purpose,
      ids: [...ids],
      status: 'checking',
      pending: proceed,
    });
    let results: GateResult[];
    try {
      results = [];
      for (const id of ids) {
        const r = await getApiClient().call('recordings:check', { id });
        results.push({ id, ok: r.ok, problems: r.problems });
      }
    } catch (e) {
      if (get().pending === proceed) {
        set({ open: true, status: 'error', error: e instanceof Error ? e.message : String(e) });
      }
      return;
    }
    if (get().pending !== proceed) {
      return; // another request (or "Fix first") came in meanwhile
    }
    if (results.every((r) => r.problems.length === 0)) {
      set(initialCheckGateState());
      proceed({ override: null });
      return;
    }
    set({ open: true, status: 'ready', results });
  },
  setReason: (reason) => set({ reason }),
  fixFirst: () => set(initialCheckGateState()),
  goOn: () => {
    const s = get();
    if (!canGoOn(s) || !s.pending) {
      return;
    }
    const { errors } = gateCounts(s);
    const decision: GateDecision =
      errors === 0
        ? { override: null }
        : {
            override: { reason: s.reason.trim(), codes: errorCodes(s.results), purpose: s.purpose },
          };
    const proceed = s.pending;
    set(initialCheckGateState());
    proceed(decision);
  },
});
