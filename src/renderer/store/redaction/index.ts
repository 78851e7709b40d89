// The redaction store: the pixel redactions the player draws over the video and the box being
// drawn in "Redact area" mode (docs/architecture.md §4).
import { create } from 'zustand';
import { createRedactionActions, type RedactionStore } from './actions';
import { initialRedactionState } from './initialState';

/** The redaction store hook. */
export const useRedactionStore = create<RedactionStore>()((...a) => ({
  ...initialRedactionState(),
  ...createRedactionActions(...a),
}));

// Puts the redaction store back to its initial state (tests).
export function resetRedactionStore(): void {
  useRedactionStore.setState(useRedactionStore.getInitialState(), true);
}

export type {
  RecordingRedactions,
  RedactionDraft,
  RedactionError,
  RedactionState,
} from './initialState';
export type { RedactionStore, RedactionActions } from './actions';
