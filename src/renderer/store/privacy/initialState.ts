// State of the PII scan of the open recording (the review page's Privacy panel).
import type { PiiFinding } from '../../../shared/domain';

/** A failed scan as the panel shows it (the coded error of the service or the client). */
export type PrivacyError = { code: string; message: string; fix: string | null };

/** Privacy state (plain serialisable data). */
export type PrivacyState = {
  /** Recording the findings (or the running scan) belong to; null before the first scan. */
  recordingId: string | null;
  /** `scanning` keeps the previous findings of the same recording shown until the answer. */
  status: 'idle' | 'scanning' | 'done' | 'error';
  findings: PiiFinding[];
  error: PrivacyError | null;
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
    scannedAtMs: null,
    scanSeq: 0,
  };
}
