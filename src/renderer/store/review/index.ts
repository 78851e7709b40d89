// The review store: one store for the recording page (docs/architecture.md §4).
import { create } from 'zustand';
import { createReviewActions, type ReviewStore } from './actions';
import { initialReviewState } from './initialState';

/** The review store hook. */
export const useReviewStore = create<ReviewStore>()((...a) => ({
  ...initialReviewState(),
  ...createReviewActions(...a),
}));

// Puts the review store back to its initial state (tests, sign-out).
export function resetReviewStore(): void {
  useReviewStore.getState().dispose();
  useReviewStore.setState(useReviewStore.getInitialState(), true);
}

export { reviewSelectors } from './selectors';
export { AUTOSAVE_DELAY_MS, type RecordingCallOutcome, type ReviewStatusInput } from './actions';
export type { ReviewStore, ReviewActions } from './actions';
export type { ReviewState, SaveState, PendingOp, AxEntry } from './initialState';
