// State of the uploads view and the upload dialog.
import type { UploadProgressDto, UploadViewDto } from '../../../shared/contract';

/** Live progress of one upload (last `uploads:progress` event). */
export type UploadLiveProgress = UploadProgressDto;

/** Uploads state (plain serialisable data). */
export type UploadsState = {
  /** Uploads as last listed, newest first. */
  uploads: UploadViewDto[];
  /** Latest progress event per upload id. */
  progress: Record<number, UploadLiveProgress>;
  listStatus: 'idle' | 'loading' | 'ready' | 'error';
  /** Error of the last list, retry or cancel call. */
  error: string | null;
  /** Upload ids with a retry or cancel call in flight. */
  busy: number[];
  dialog: {
    open: boolean;
    /** Recordings to upload. */
    ids: string[];
    /** `s3://bucket/prefix` (prefilled from the saved target). */
    to: string;
    annotator: string;
    /** Saved endpoint, shown for information (null = AWS or the environment's). */
    endpoint: string | null;
    status: 'idle' | 'loading' | 'starting' | 'started' | 'error';
    error: string | null;
  };
};

// A fresh upload dialog state.
export function initialUploadDialog(): UploadsState['dialog'] {
  return {
    open: false,
    ids: [],
    to: '',
    annotator: '',
    endpoint: null,
    status: 'idle',
    error: null,
  };
}

// A fresh uploads state.
export function initialUploadsState(): UploadsState {
  return {
    uploads: [],
    progress: {},
    listStatus: 'idle',
    error: null,
    busy: [],
    dialog: initialUploadDialog(),
  };
}
