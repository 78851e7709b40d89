// Uploads: the lifecycle of an upload and the phases its progress reports.
import * as v from 'valibot';

/** Lifecycle of an upload (the `uploads` table's statuses). `uploaded` only after every object
 * and the manifest verified. */
export const UPLOAD_STATUSES = [
  'queued',
  'preparing',
  'uploading',
  'verifying',
  'uploaded',
  'paused',
  'failed',
  'cancelled',
] as const;
/** One of {@link UPLOAD_STATUSES}. */
export const UploadStatusSchema = v.picklist(UPLOAD_STATUSES);
/** One of {@link UPLOAD_STATUSES}. */
export type UploadStatus = v.InferOutput<typeof UploadStatusSchema>;

/** Phases of upload progress (the `uploads:progress` event). */
export const UPLOAD_PHASES = [
  'preparing',
  'uploading',
  'verifying',
  'manifest',
  'uploaded',
  'paused',
  'failed',
] as const;
/** One of {@link UPLOAD_PHASES}. */
export const UploadPhaseSchema = v.picklist(UPLOAD_PHASES);
/** One of {@link UPLOAD_PHASES}. */
export type UploadPhase = v.InferOutput<typeof UploadPhaseSchema>;
