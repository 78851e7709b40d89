// Types of the upload engine: its options, progress events, result, and the state it keeps in
// `uploads.upload_state_json`.
import type { UploadProgressDto } from '../../../shared/contract/methods';
import type { UploadRecord, UploadStatus } from '../../../store/queries/uploads';
import type { PiiAllowance } from '../../privacy/policy';
import type { ExtraFile } from '../bundle';
import type { RetryPolicy } from '../retry';
import type { UploadTarget } from '../target';

/** Phases reported in progress events. */
export type UploadPhase = UploadProgressDto['phase'];

/** A progress event (the contract's `uploads:progress` payload). */
export type UploadProgress = UploadProgressDto;

/** How objects are proven to hold our bytes after the transfer. */
export type VerifyMode =
  /** HEAD: size, sha256 metadata and the ETag (MD5 / multipart MD5); read back if the ETag is opaque. */
  | 'etag'
  /** Additionally read every object back and compare its SHA-256. */
  | 'download';

/** Options of runUpload (engine.ts). */
export type UploadEngineOptions = {
  /** Version written into the manifest and exports. */
  appVersion: string;
  /** Part size for new objects (bytes, ≥ 5 MiB). Default 8 MiB. */
  partSizeBytes?: number;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /**
   * Also send Content-MD5 with every part and require the part's ETag to equal it. Parts always
   * carry their SHA-256 in the signature, which S3 and Swift verify; this adds a second check for
   * servers that do not, at ~20 % of throughput (MD5 runs at ~0.5 GB/s). Default false.
   */
  partContentMd5?: boolean;
  retry?: RetryPolicy;
  verify?: VerifyMode;
  /** Export keyframes (agentnet-jsonl) into the submission. Default true. */
  includeKeyframes?: boolean;
  /** Files added as-is (tests, benchmarks). */
  extraFiles?: readonly ExtraFile[];
  /** Stops the run, leaving it resumable (`paused`). */
  signal?: AbortSignal;
  onProgress?: (p: UploadProgress) => void;
  /** Clock (epoch ms). Default Date.now. */
  now?: () => number;
};

/** What a finished upload did. */
export type UploadResult = {
  uploadId: number;
  recordingId: string;
  status: UploadStatus;
  /** `s3://bucket/<prefix>/<annotator>/<recording-id>/`. */
  location: string;
  manifestKey: string;
  objects: number;
  bytesTotal: number;
  /** Bytes this run sent (resumed runs send less). */
  bytesSent: number;
  /** UploadPart requests this run sent. */
  partRequests: number;
  retries: number;
  /** Objects whose bytes were read back to verify them. */
  downloadedForVerify: number;
  durationMs: number;
};

/** What the engine keeps in `uploads.upload_state_json`. */
export type UploadState = {
  target: UploadTarget;
  annotator: string;
  /** `<prefix>/<annotator>/<recording-id>`. */
  keyPrefix: string;
  /** Library-relative staging folder of generated files. */
  stageDir: string;
  /** Process currently running the upload (guards against two runners). */
  ownerPid: number | null;
  manifestKey: string;
  /** Fingerprint of the recording's rows that was uploaded (set when `uploaded`). */
  fingerprint?: string;
  /** Blocking PII findings let through with `allowPii` (written into the manifest). */
  pii?: PiiAllowance;
};

// Reads the engine state of an upload row.
export function uploadState(row: UploadRecord): UploadState {
  return row.state as unknown as UploadState;
}
