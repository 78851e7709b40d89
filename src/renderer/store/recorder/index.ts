// The recorder store: the Record page and the HUD (docs/architecture.md §4).
import { create } from 'zustand';
import { createRecorderActions, type RecorderStore } from './actions';
import { initialRecorderState } from './initialState';

/** The recorder store hook. */
export const useRecorderStore = create<RecorderStore>()((...a) => ({
  ...initialRecorderState(),
  ...createRecorderActions(...a),
}));

// Puts the recorder store back to its initial state (tests).
export function resetRecorderStore(): void {
  useRecorderStore.getState().dispose();
  useRecorderStore.setState(useRecorderStore.getInitialState(), true);
}

export { recorderSelectors, RECORDER_STATE_LABELS, ACCESSIBILITY_LABELS } from './selectors';
export { applyStatus, recorderError } from './reducers';
export { COUNTDOWN_TICK_MS } from './actions';
export type { RecorderStore, RecorderActions } from './actions';
export type { RecorderViewState, RecorderError, RecorderCall } from './initialState';
