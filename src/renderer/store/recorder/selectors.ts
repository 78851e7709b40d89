// Derived values of the recorder store.
import type { RecorderState } from '../../../shared/contract';
import type { RecorderViewState } from './initialState';

/** Human names of the recorder's states. */
export const RECORDER_STATE_LABELS: Record<RecorderState, string> = {
  idle: 'Not recording',
  starting: 'Starting…',
  recording: 'Recording',
  paused: 'Paused',
  stopping: 'Saving…',
};

/** Human names of the accessibility capture's health. */
export const ACCESSIBILITY_LABELS = {
  ok: 'Capturing',
  off: 'Off',
  unavailable: 'Unavailable for the focused app',
} as const;

/** The live clock runs on at most this long past the last status (ms): a silent service stops it. */
const CLOCK_RUN_ON_MAX_MS = 5000;

const state = (s: RecorderViewState): RecorderState => s.status?.state ?? 'idle';
const isIdleNow = (s: RecorderViewState) => s.busy === null && s.countdownLeft === null;

/** Selectors of the recorder store. */
export const recorderSelectors = {
  state,
  /** True while a recording exists (starting, recording, paused or stopping). */
  isActive: (s: RecorderViewState): boolean => state(s) !== 'idle',
  /** Start is possible: a task, nothing recording, no call or countdown running. */
  canStart: (s: RecorderViewState): boolean =>
    s.task.trim() !== '' && state(s) === 'idle' && isIdleNow(s) && s.loadStatus !== 'loading',
  canPause: (s: RecorderViewState): boolean => state(s) === 'recording' && s.busy === null,
  canResume: (s: RecorderViewState): boolean => state(s) === 'paused' && s.busy === null,
  canStop: (s: RecorderViewState): boolean =>
    (state(s) === 'recording' || state(s) === 'paused') && s.busy === null,
  canDiscard: (s: RecorderViewState): boolean =>
    (state(s) === 'recording' || state(s) === 'paused') && s.busy === null,
  /**
   * Time recorded at `nowMs` (Date.now()): the last status's elapsedMs, counting on from its
   * arrival while recording (pauses do not count), so the clock moves between events.
   */
  elapsedMs: (s: RecorderViewState, nowMs: number): number => {
    if (!s.status) {
      return 0;
    }
    const running =
      s.status.state === 'recording'
        ? Math.min(CLOCK_RUN_ON_MAX_MS, Math.max(0, nowMs - s.statusAtMs))
        : 0;
    return s.status.elapsedMs + running;
  },
};
