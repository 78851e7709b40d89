// Derived values of the uploads store.
import type { UploadViewDto } from '../../../shared/contract';
import type { UploadsState } from './initialState';

/** Statuses in which an upload may run again. */
const RETRYABLE = new Set<UploadViewDto['status']>(['failed', 'paused', 'queued']);
/** Statuses in which an upload may be cancelled. */
const FINAL = new Set<UploadViewDto['status']>(['uploaded', 'cancelled']);

// Human names of the upload statuses.
export const UPLOAD_STATUS_LABELS: Record<UploadViewDto['status'], string> = {
  queued: 'Queued',
  preparing: 'Preparing',
  uploading: 'Uploading',
  verifying: 'Verifying',
  uploaded: 'Uploaded',
  paused: 'Paused',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** Statuses in which an upload is moving. */
const RUNNING = new Set<UploadViewDto['status']>(['preparing', 'uploading', 'verifying']);

// `12.3 KiB`, `4.5 MiB`, `1.2 GiB` (binary units).
export function formatBytes(n: number): string {
  if (n < 1024) {
    return `${n} B`;
  }
  if (n < 1024 * 1024) {
    return `${(n / 1024).toFixed(1)} KiB`;
  }
  if (n < 1024 * 1024 * 1024) {
    return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  }
  return `${(n / (1024 * 1024 * 1024)).toFixed(2)} GiB`;
}

/** Selectors of the uploads store. */
export const uploadsSelectors = {
  /** Bytes done and total of an upload: the live event if newer data, else the listed row. */
  bytes: (s: UploadsState, u: UploadViewDto): { done: number; total: number } => {
    const live = s.progress[u.uploadId];
    return live && !FINAL.has(u.status)
      ? { done: live.bytesDone, total: live.bytesTotal }
      : { done: u.bytesDone, total: u.bytesTotal };
  },
  /** Progress of an upload as a fraction 0…1 (null before its size is known). */
  fraction: (s: UploadsState, u: UploadViewDto): number | null => {
    if (u.status === 'uploaded') {
      return 1;
    }
    const { done, total } = uploadsSelectors.bytes(s, u);
    return total > 0 ? Math.min(1, Math.max(0, done / total)) : null;
  },
  /** What the last event said (e.g. `part 3/12 video/x.mp4`), or ''. */
  detail: (s: UploadsState, u: UploadViewDto): string =>
    FINAL.has(u.status) ? '' : (s.progress[u.uploadId]?.detail ?? ''),
  /**
   * The line under an upload's progress bar: bytes only once the size is known, what is
   * happening only while it runs (a failed upload's message is its error, shown once, apart).
   */
  progressText: (s: UploadsState, u: UploadViewDto): string => {
    const { done, total } = uploadsSelectors.bytes(s, u);
    const parts: string[] = [];
    if (total > 0) {
      parts.push(
        u.status === 'uploaded'
          ? formatBytes(total)
          : `${formatBytes(done)} of ${formatBytes(total)}`,
      );
    }
    const detail = RUNNING.has(u.status) ? uploadsSelectors.detail(s, u) : '';
    if (detail && detail !== u.error) {
      parts.push(detail);
    }
    return parts.join(' · ');
  },
  canRetry: (s: UploadsState, u: UploadViewDto): boolean =>
    RETRYABLE.has(u.status) && !s.busy.includes(u.uploadId) && !isActive(s, u),
  canCancel: (s: UploadsState, u: UploadViewDto): boolean =>
    !FINAL.has(u.status) && !s.busy.includes(u.uploadId),
  /** True when the dialog can start (recordings, a target URL and an annotator). */
  canStart: (s: UploadsState): boolean =>
    s.dialog.ids.length > 0 &&
    /^s3:\/\/[^/\s]+/.test(s.dialog.to.trim()) &&
    s.dialog.annotator.trim() !== '' &&
    s.dialog.status !== 'starting' &&
    s.dialog.status !== 'loading',
  /** Uploads still moving (queued or running). */
  activeCount: (s: UploadsState): number => s.uploads.filter((u) => isActive(s, u)).length,
};

function isActive(s: UploadsState, u: UploadViewDto): boolean {
  const live = s.progress[u.uploadId];
  if (live && (live.phase === 'failed' || live.phase === 'paused' || live.phase === 'uploaded')) {
    return false;
  }
  return ['preparing', 'uploading', 'verifying'].includes(u.status) || live !== undefined;
}
