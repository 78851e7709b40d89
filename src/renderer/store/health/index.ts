// The health store: the health and onboarding page (docs/architecture.md §4).
import { create } from 'zustand';
import { createHealthActions, type HealthStore } from './actions';
import { initialHealthState } from './initialState';

/** The health store hook. */
export const useHealthStore = create<HealthStore>()((...a) => ({
  ...initialHealthState(),
  ...createHealthActions(...a),
}));

// Puts the health store back to its initial state (tests).
export function resetHealthStore(): void {
  useHealthStore.setState(useHealthStore.getInitialState(), true);
}

export { healthSelectors, VERDICT_LABELS } from './selectors';
export type { CheckVerdict, OnboardingOs } from './selectors';
export type { HealthStore, HealthActions } from './actions';
export type { HealthState, HealthError } from './initialState';
