// The RecorderControls of the app over the contract's recorder methods (`recorder:start`,
// `recorder:pause`, `recorder:resume`, `recorder:stop`, `recorder:discard`,
// `recorder:get-status`), so the tray and the hotkeys take the same path as the Record page.
import type { Dispatcher } from './ipc';
import type { RecorderControls } from './recording-shell';
import { RECORDER_PHASES, type RecorderPhase, type RecorderSnapshot } from './recording-ux';

/** A refused recorder call, with the contract's error code. */
export class RecorderCallError extends Error {
  override readonly name = 'RecorderCallError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const isPhase = (value: unknown): value is RecorderPhase =>
  typeof value === 'string' && (RECORDER_PHASES as readonly string[]).includes(value);

/** The snapshot fields of a recorder status (the contract's RecorderStatusDto), or null. */
export function toRecorderSnapshot(value: unknown): RecorderSnapshot | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const v = value as Record<string, unknown>;
  if (!isPhase(v.state)) {
    return null;
  }
  const error = v.error as { code?: unknown; message?: unknown } | null | undefined;
  return {
    state: v.state,
    task: typeof v.task === 'string' ? v.task : null,
    elapsedMs: typeof v.elapsedMs === 'number' ? v.elapsedMs : 0,
    lastRecordingId: typeof v.lastRecordingId === 'string' ? v.lastRecordingId : null,
    error:
      error && typeof error.message === 'string'
        ? { code: typeof error.code === 'string' ? error.code : 'INTERNAL', message: error.message }
        : null,
  };
}

// Controls that call the recorder methods through the services' dispatcher.
export function dispatchRecorderControls(services: Dispatcher): RecorderControls {
  const call = async (method: string, payload: unknown): Promise<RecorderSnapshot> => {
    const result = await services.dispatch(method, payload);
    if (!result.ok) {
      throw new RecorderCallError(result.error.code, result.error.message);
    }
    const snapshot = toRecorderSnapshot(result.value);
    if (snapshot === null) {
      throw new RecorderCallError('INTERNAL', `${method} answered without a recorder status`);
    }
    return snapshot;
  };
  return {
    start: (task) => call('recorder:start', { task }),
    pause: () => call('recorder:pause', {}),
    resume: () => call('recorder:resume', {}),
    stop: () => call('recorder:stop', {}),
    discard: () => call('recorder:discard', {}),
    status: () => call('recorder:get-status', {}),
  };
}
