// The check gate store: the checks before submit and upload (docs/quality.md §3,
// docs/architecture.md §4).
import { create } from 'zustand';
import { createCheckGateActions, type CheckGateStore } from './actions';
import { initialCheckGateState } from './initialState';

/** The check gate store hook. */
export const useCheckGateStore = create<CheckGateStore>()((...a) => ({
  ...initialCheckGateState(),
  ...createCheckGateActions(...a),
}));

// Puts the check gate store back to its initial state (tests).
export function resetCheckGateStore(): void {
  useCheckGateStore.setState(useCheckGateStore.getInitialState(), true);
}

export { canGoOn, gateCounts, overrideComment, type CheckGateStore } from './actions';
export type {
  CheckGateState,
  CheckProblemDto,
  GateDecision,
  GatePurpose,
  GateResult,
} from './initialState';
