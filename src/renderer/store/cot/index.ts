// The CoT store: the review page's reasoning panel (docs/cot.md §9).
import { create } from 'zustand';
import { createCotActions, type CotStore } from './actions';
import { initialCotState } from './initialState';

/** The CoT store hook. */
export const useCotStore = create<CotStore>()((...a) => ({
  ...initialCotState(),
  ...createCotActions(...a),
}));

// Puts the CoT store back to its initial state (tests).
export function resetCotStore(): void {
  useCotStore.setState(useCotStore.getInitialState(), true);
}

export type { CotState } from './initialState';
export type { CotStore, CotActions } from './actions';
