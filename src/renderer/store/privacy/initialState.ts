// State of the PII scan of the open recording (the review page's Privacy panel) and of the
// reviewer's actions on its findings (redact, accept).
import type { ApiMethods } from '../../../shared/contract';

/** A finding as the scan answers it: the domain's finding and whether an edit resolved it. */
export type ScanFinding = ApiMethods['privacy:scan']['output']['findings'][number];

/** A redaction or acceptance on its way: which findings it is about. */
export type PrivacyAction = { kind: 'redact' | 'accept'; findingIds: string[] };

/** A failed scan as the panel shows it (the coded error of the service or the client). */
export type PrivacyError = { code: string; message: string; fix: string | null };

/** Privacy state (plain serialisable data). */
export type PrivacyState = {
  /** Recording the findings (or the running scan) belong to; null before the first scan. */
  recordingId: string | null;
  /** `scanning` keeps the previous findings of the same recording shown until the answer. */
  status: 'idle' | 'scanning' | 'done' | 'error';
  findings: ScanFinding[];
  error: PrivacyError | null;
  /** The redaction or acceptance being sent (one at a time), null when none. */
  busy: PrivacyAction | null;
  /** Why the last redaction or acceptance failed (shown until dismissed or the next one). */
  actionError: PrivacyError | null;
  /** Wall-clock ms of the last finished scan (null: none yet). */
  scannedAtMs: number | null;
  /** Counts started scans; an answer from an older one is dropped. */
  scanSeq: number;
};

// A fresh privacy state.
export function initialPrivacyState(): PrivacyState {
  return {
    recordingId: null,
    status: 'idle',
    findings: [],
    error: null,
    busy: null,
    actionError: null,
    scannedAtMs: null,
    scanSeq: 0,
  };
}
