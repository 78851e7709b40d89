// The library store: one store for the library page (docs/architecture.md §4).
import { create } from 'zustand';
import { createLibraryActions, type LibraryStore } from './actions';
import { initialLibraryState } from './initialState';

/** The library store hook. */
export const useLibraryStore = create<LibraryStore>()((...a) => ({
  ...initialLibraryState(),
  ...createLibraryActions(...a),
}));

// Puts the library store back to its initial state (tests, sign-out).
export function resetLibraryStore(): void {
  useLibraryStore.setState(useLibraryStore.getInitialState(), true);
}

export { librarySelectors } from './selectors';
export { LIBRARY_PAGE_SIZE, type LibraryState } from './initialState';
export type { LibraryStore, LibraryActions } from './actions';
