// The replay store: the review page's Replay panel and the step list's replay badges
// (docs/replay.md §6, docs/architecture.md §4).
import { create } from 'zustand';
import { createReplayActions, type ReplayStore } from './actions';
import { initialReplayState } from './initialState';

/** The replay store hook. */
export const useReplayStore = create<ReplayStore>()((...a) => ({
  ...initialReplayState(),
  ...createReplayActions(...a),
}));

// Puts the replay store back to its initial state, its poll stopped (tests).
export function resetReplayStore(): void {
  useReplayStore.getState().clear();
  useReplayStore.setState(useReplayStore.getInitialState(), true);
}

export { REPLAY_POLL_MS, type ReplayActions, type ReplayStore } from './actions';
export { elementText, replaySelectors, screenDiffText, verdictText } from './selectors';
export {
  REPLAY_SPEEDS,
  type ReplayError,
  type ReplayResultDto,
  type ReplayState,
} from './initialState';
