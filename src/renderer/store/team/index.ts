// The team store: sign-in to a hub, My submissions, submits, the review queue
// (docs/team-mode.md §14).
import { create } from 'zustand';
import { createTeamActions, type TeamStore } from './actions';
import { initialTeamState } from './initialState';

/** The team store hook. */
export const useTeamStore = create<TeamStore>()((...a) => ({
  ...initialTeamState(),
  ...createTeamActions(...a),
}));

// Puts the team store back to its initial state (tests).
export function resetTeamStore(): void {
  useTeamStore.setState(useTeamStore.getInitialState(), true);
}

export { shownError } from './actions';
export type { TeamStore, TeamActions } from './actions';
export type { TeamState, SubmitState, TeamSubmissions } from './initialState';
