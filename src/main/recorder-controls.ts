// The RecorderControls of the app over the contract's recorder methods (`recorder:start`,
// `recorder:pause`, `recorder:resume`, `recorder:stop`, `recorder:discard`,
// `recorder:get-status`), so the tray and the hotkeys take the same path as the Record page.
import type { Dispatcher } from './ipc';
import type { RecorderControls } from './recording-shell';
import { RecorderStatusDtoSchema, validateWith } from '../shared/contract';
import type { RecorderSnapshot } from './recording-ux';

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

/** The snapshot fields of a recorder status, checked against the contract's schema, or null. */
export function toRecorderSnapshot(value: unknown): RecorderSnapshot | null {
  const status = validateWith(RecorderStatusDtoSchema, value);
  if (!status.ok) {
    return null;
  }
  const { state, task, elapsedMs, lastRecordingId, error } = status.value;
  return {
    state,
    task,
    elapsedMs,
    lastRecordingId,
    error: error ? { code: error.code, message: error.message } : null,
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
