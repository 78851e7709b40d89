// The privacy store: the PII scan shown in the review page's Privacy panel
// (docs/architecture.md §4).
import { create } from 'zustand';
import { createPrivacyActions, type PrivacyStore } from './actions';
import { initialPrivacyState } from './initialState';

/** The privacy store hook. */
export const usePrivacyStore = create<PrivacyStore>()((...a) => ({
  ...initialPrivacyState(),
  ...createPrivacyActions(...a),
}));

// Puts the privacy store back to its initial state (tests).
export function resetPrivacyStore(): void {
  usePrivacyStore.setState(usePrivacyStore.getInitialState(), true);
}

export {
  groupFindings,
  isBlockingKind,
  privacySelectors,
  PII_KIND_LABELS,
  PII_SOURCE_LABELS,
  type FindingGroup,
} from './selectors';
export type { PrivacyState, PrivacyError, PrivacyAction, ScanFinding } from './initialState';
export { REDACT_BATCH, type PrivacyStore, type PrivacyActions } from './actions';
