// The Replay panel's state (docs/replay.md §6): the replay of the open recording as
// `replay:status` last answered it (the run under way and its results so far, the last report,
// the settings' display), what the reviewer chose (pace, the result shown side by side) and the
// error of the last start or cancel.
import type { ReplayResultDto, ReplayStatusDto } from '../../../shared/contract';

/** A failed call, shown as code, message and fix. */
export type ReplayError = { code: string; message: string; fix: string | null };

/** The paces offered: the recorded pauses between steps divided by this. */
export const REPLAY_SPEEDS = [1, 2, 5, 100] as const;

/** The Replay panel's state. */
export type ReplayState = {
  /** The recording the status is of (null: none loaded). */
  recordingId: string | null;
  status: ReplayStatusDto | null;
  loadStatus: 'idle' | 'loading' | 'ready' | 'error';
  /** A start or cancel is on its way. */
  busy: 'starting' | 'cancelling' | null;
  /** Why loading, starting or cancelling failed. */
  error: ReplayError | null;
  /** Pace of the next start (see {@link REPLAY_SPEEDS}). */
  speed: number;
  /** Index of the result shown side by side (null: the first divergent one). */
  selectedIndex: number | null;
};

/** One result as the panel shows it. */
export type { ReplayResultDto };

// A fresh replay state.
export function initialReplayState(): ReplayState {
  return {
    recordingId: null,
    status: null,
    loadStatus: 'idle',
    busy: null,
    error: null,
    speed: 1,
    selectedIndex: null,
  };
}
