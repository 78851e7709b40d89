// Pure state changes of the recorder store: merging a status from an answer or an event.
import type { RecorderStatusDto } from '../../../shared/contract';
import type { RecorderError, RecorderViewState } from './initialState';

/** How many ended recording ids are remembered (enough for any late event). */
const ENDED_IDS_KEPT = 20;

/** The part of the state a status changes. */
type StatusSlice = Pick<
  RecorderViewState,
  'status' | 'statusAtMs' | 'endedIds' | 'savedRecordingId'
>;

// Merges `next` (arrived at `atMs`) into the state; null when it is stale and must be dropped.
// A status naming a recording already seen ending is stale (an event that was overtaken by the
// answer to stop or discard). A running recording seen ending with a saved id sets
// savedRecordingId, so the page can open it, whichever host or window stopped it.
export function applyStatus(
  s: StatusSlice,
  next: RecorderStatusDto,
  atMs: number,
): StatusSlice | null {
  if (next.recordingId !== null && s.endedIds.includes(next.recordingId)) {
    return null;
  }
  const prev = s.status;
  let endedIds = s.endedIds;
  if (prev?.recordingId && prev.recordingId !== next.recordingId) {
    endedIds = [...s.endedIds, prev.recordingId].slice(-ENDED_IDS_KEPT);
  }
  let savedRecordingId = s.savedRecordingId;
  if (
    prev &&
    prev.state !== 'idle' &&
    next.state === 'idle' &&
    next.lastRecordingId !== null &&
    (next.lastRecordingId === prev.recordingId || next.lastRecordingId !== prev.lastRecordingId)
  ) {
    savedRecordingId = next.lastRecordingId;
  }
  return { status: next, statusAtMs: atMs, endedIds, savedRecordingId };
}

// The error to show for a thrown value (ApiErrors keep their code and fix).
export function recorderError(e: unknown): RecorderError {
  if (typeof e === 'object' && e !== null && 'code' in e && 'message' in e) {
    const o = e as { code: unknown; message: unknown; fix?: unknown };
    return {
      code: String(o.code),
      message: String(o.message),
      fix: typeof o.fix === 'string' && o.fix !== '' ? o.fix : null,
    };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}
