// The hub pages' store (docs/team-mode.md §15): the session of the hub serving the page and the
// data of My submissions, Review queue and Team.
import { create } from 'zustand';
import { createHubActions, type HubStore } from './actions';
import { initialHubState } from './initialState';

/** The hub store hook. */
export const useHubStore = create<HubStore>()((...a) => ({
  ...initialHubState(),
  ...createHubActions(...a),
}));

// Puts the hub store back to its initial state (tests).
export function resetHubStore(): void {
  useHubStore.setState(useHubStore.getInitialState(), true);
}

export {
  hubSelectors,
  HUB_PAGES,
  SUBMISSION_STATUS_LABELS,
  type HubPage,
  type MySummary,
} from './selectors';
export { AUDIT_PAGE_SIZE } from './initialState';
export type {
  AuditView,
  HubAuditRow,
  HubSession,
  HubState,
  HubTokenRow,
  HubUserRow,
  Loadable,
  ShownSecret,
} from './initialState';
export type { HubActions, HubStore } from './actions';
