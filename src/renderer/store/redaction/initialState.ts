// State of the player's redaction layer: the recording's pixel redactions (active box edits,
// excluded intervals and excluded windows' rectangles, from `privacy:redactions`) drawn over the video, and the box the reviewer
// is drawing in "Redact area" mode.
import type { ApiMethods } from '../../../shared/contract';
import type { VideoBox } from '../../lib/redaction-box';

/** What `privacy:redactions` answers. */
export type RecordingRedactions = ApiMethods['privacy:redactions']['output'];

/** A failed call as the player shows it (the coded error of the service or the client). */
export type RedactionError = { code: string; message: string; fix: string | null };

/** The box being drawn: video pixels (null until dragged) over a time range (recording ms). */
export type RedactionDraft = { box: VideoBox | null; startMs: number; endMs: number };

/** Redaction layer state (plain serialisable data). */
export type RedactionState = {
  /** Recording the redactions belong to; null before the first load. */
  recordingId: string | null;
  /** Edit version the redactions were read at (null: not loaded). */
  loadedVersion: number | null;
  boxes: RecordingRedactions['boxes'];
  excluded: RecordingRedactions['excluded'];
  /** Excluded windows' rectangles on the screen over their time (issue 26, item 6). */
  regions: RecordingRedactions['regions'];
  /** Counts started loads; an answer from an older one is dropped. */
  loadSeq: number;
  /** "Redact area" mode: the reviewer is drawing a box; null when not. */
  draft: RedactionDraft | null;
  /** The box redaction is being sent. */
  applying: boolean;
  /** Why the last load or apply failed (shown until dismissed or the next try). */
  error: RedactionError | null;
};

// A fresh redaction state.
export function initialRedactionState(): RedactionState {
  return {
    recordingId: null,
    loadedVersion: null,
    boxes: [],
    excluded: [],
    regions: [],
    loadSeq: 0,
    draft: null,
    applying: false,
    error: null,
  };
}
