// State of the Record page and the HUD: the recorder's status as the service last reported it,
// the task being typed, the countdown, the call in flight and the last error.
import type { RecorderStatusDto } from '../../../shared/contract';

/** A failed call or a recording that ended on its own, shown as code, message and fix. */
export type RecorderError = { code: string; message: string; fix: string | null };

/** The recorder calls the page makes. */
export type RecorderCall = 'start' | 'pause' | 'resume' | 'stop' | 'discard';

/** Record page state (plain serialisable data). */
export type RecorderViewState = {
  /** The recorder's status as last answered or pushed (null before the first answer). */
  status: RecorderStatusDto | null;
  /** Date.now() when `status` arrived, ms: the live clock counts on from there. */
  statusAtMs: number;
  loadStatus: 'idle' | 'loading' | 'ready' | 'error';
  /** The task instruction typed on the Record page. */
  task: string;
  /** The team hub task claimed on the Record page, recorded with the next start (its id goes
   * into the recording), else null. */
  teamTask: { id: number; expiresAtMs: number } | null;
  /** Seconds of countdown before a start (the settings' countdownS; 0 = none). */
  countdownS: number;
  /** Seconds left in the running countdown, else null. */
  countdownLeft: number | null;
  /** The recorder call in flight, else null. */
  busy: RecorderCall | null;
  error: RecorderError | null;
  /** True while the discard confirmation is open. */
  isConfirmingDiscard: boolean;
  /** A recording that was seen being saved (running → idle with lastRecordingId), to open. */
  savedRecordingId: string | null;
  /** A one-line notice (e.g. after a discard), else null. */
  notice: string | null;
  /** Recordings seen ending: statuses that still name them arrived late and are dropped. */
  endedIds: string[];
};

// A fresh recorder state.
export function initialRecorderState(): RecorderViewState {
  return {
    status: null,
    statusAtMs: 0,
    loadStatus: 'idle',
    task: '',
    teamTask: null,
    countdownS: 0,
    countdownLeft: null,
    busy: null,
    error: null,
    isConfirmingDiscard: false,
    savedRecordingId: null,
    notice: null,
    endedIds: [],
  };
}
