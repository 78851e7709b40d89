// The contract as it was written by hand before the schemas (commit 4b61a4a), kept only so
// that schema-types.test.ts can prove the inferred types equal it.
// The one service contract: every method with its input and output, served over Electron IPC
// and HTTP alike (docs/architecture.md §3).
import type {
  RecordingStatus,
  RecordingSummary,
  ReviewStatus,
  ScreenInfo,
  PlatformInfo,
  EventCounts,
  ActionCall,
  PreMove,
} from './domain';
import type { SkippedEdit, StepEdit, StepMark } from './edits';

/** A step as the UI shows it (edits applied). */
export type StepDto = {
  id: string;
  index: number;
  kind: string;
  label: string;
  description: string;
  calls: ActionCall[];
  code: string;
  startMs: number;
  endMs: number;
  coordinate: { x: number; y: number } | null;
  preMove: PreMove | null;
  /** Keyframe time, ms on the recording clock (null until computed). */
  keyframeMs: number | null;
  /** URL of the keyframe image (null until computed). */
  keyframeUrl: string | null;
  /**
   * Element under the pointer at the step's start (pointer steps only), outermost ancestor first
   * and the element itself last; null when none was captured.
   */
  element: { role: string; name: string }[] | null;
  /** Active window at the step's start: its title, else its application name (AgentNet). */
  windowTitle: string | null;
  mark: StepMark | null;
  /** True when an edit changed or inserted the step. */
  isEdited: boolean;
  diagnostics: string[];
  /** Kind-specific overlay data: drag path, scroll ticks, typed text (pixel coordinates). */
  overlay: {
    /** Pointer positions while the button was held (raw events, screen px). */
    dragPath?: [number, number][];
    /** Notches of the step's scroll/hscroll calls: dy > 0 = up, dx > 0 = right. */
    scroll?: { dx: number; dy: number };
    /** Text of the step's write calls. */
    text?: string;
    /** Keys of press calls, one entry per key; hotkeys as one `ctrl+c` entry. */
    keys?: string[];
  };
};

/** Task labels of a recording (scores are ints 0–10, docs/pyautogui-code.md §5). */
export type TaskLabels = {
  taskCompleted: boolean | null;
  taskDifficulty: number | null;
  alignmentScore: number | null;
  efficiencyScore: number | null;
};

/** One verdict in the review history. */
export type ReviewEntry = {
  atMs: number;
  reviewer: string | null;
  status: ReviewStatus;
  grade: string | null;
  comment: string | null;
};

/** Everything the recording page needs. */
export type RecordingDto = {
  id: string;
  task: string;
  description: string;
  status: RecordingStatus;
  reviewStatus: ReviewStatus;
  source: string;
  platform: PlatformInfo;
  screen: ScreenInfo;
  createdAtMs: number;
  durationMs: number | null;
  eventCounts: EventCounts;
  video: {
    url: string;
    width: number;
    height: number;
    fps: number;
    durationMs: number;
    /** Recording-clock ms of video frame 0: video time = (t − startMs) / 1000. */
    startMs: number;
  } | null;
  trim: { startMs: number | null; endMs: number | null };
  steps: StepDto[];
  labels: TaskLabels;
  reviews: ReviewEntry[];
  /** Edit log position for undo/redo: id of the latest applied edit (0 = none). */
  editVersion: number;
  canUndo: boolean;
  canRedo: boolean;
  /** Applied edits that no longer fit the steps (e.g. after a re-reduction); shown, not fatal. */
  skippedEdits: SkippedEdit[];
};

/** Library page query. */
export type RecordingQuery = {
  /** Case-insensitive substring of the task or description, or a recording id prefix. */
  search?: string;
  status?: RecordingStatus;
  reviewStatus?: ReviewStatus;
  os?: string;
  /** Created at or after (epoch ms). */
  fromMs?: number;
  /** Created before (epoch ms). */
  toMs?: number;
  sort?: 'created' | 'task' | 'duration' | 'steps' | 'status';
  order?: 'asc' | 'desc';
  offset?: number;
  /** Page size; default 200, at most 5000. */
  limit?: number;
};

/** Default and largest page size of {@link RecordingQuery}. */
export const RECORDING_PAGE_DEFAULT_LIMIT = 200;
export const RECORDING_PAGE_MAX_LIMIT = 5000;

/** Lifecycle of an upload (the `uploads` table's statuses). */
export const UPLOAD_VIEW_STATUSES = [
  'queued',
  'preparing',
  'uploading',
  'verifying',
  'uploaded',
  'paused',
  'failed',
  'cancelled',
] as const;
/** One of {@link UPLOAD_VIEW_STATUSES}. */
export type UploadViewStatus = (typeof UPLOAD_VIEW_STATUSES)[number];

/** An upload as the uploads view lists it. */
export type UploadViewDto = {
  uploadId: number;
  recordingId: string;
  task: string;
  /** `s3://bucket/prefix` of the target. */
  target: string;
  /** Endpoint URL (null = AWS). */
  endpoint: string | null;
  annotator: string;
  /** `s3://bucket/<prefix>/<annotator>/<recording-id>/`. */
  location: string;
  status: UploadViewStatus;
  /** Bytes acknowledged by the server / all bytes of the submission. */
  bytesDone: number;
  bytesTotal: number;
  objectsVerified: number;
  objectsTotal: number;
  error: string | null;
  partRequests: number;
  retries: number;
  /** Epoch ms. */
  createdAtMs: number;
  updatedAtMs: number;
  submittedAtMs: number | null;
};

/** Phases of an `uploads:progress` event. */
export const UPLOAD_PHASES = [
  'preparing',
  'uploading',
  'verifying',
  'manifest',
  'uploaded',
  'paused',
  'failed',
] as const;

/** The `uploads:progress` payload. */
export type UploadProgressDto = {
  uploadId: number;
  recordingId: string;
  phase: (typeof UPLOAD_PHASES)[number];
  /** Bytes acknowledged by the server so far / all bytes. */
  bytesDone: number;
  bytesTotal: number;
  objectsDone: number;
  objectsTotal: number;
  /** What just happened, e.g. `part 3/12 video/x.mp4`. */
  detail: string;
};

/** The request/response map of every method. */
export type ApiMethods = {
  'recordings:list': {
    input: RecordingQuery;
    output: { total: number; items: RecordingSummary[] };
  };
  'recordings:get': { input: { id: string }; output: RecordingDto };
  /** `force` (here and in the edit methods): edit an accepted recording, which returns it to
   * review; without it such a call fails with REVIEW_LOCKED. */
  'recordings:update-task': {
    input: { id: string; task?: string; description?: string; force?: boolean };
    output: RecordingDto;
  };
  'recordings:delete': { input: { id: string }; output: { id: string } };
  'edits:apply': { input: { id: string; edit: StepEdit; force?: boolean }; output: RecordingDto };
  'edits:undo': { input: { id: string; force?: boolean }; output: RecordingDto };
  'edits:redo': { input: { id: string; force?: boolean }; output: RecordingDto };
  'labels:save': {
    input: { id: string; labels: TaskLabels; force?: boolean };
    output: RecordingDto;
  };
  'reviews:set-status': {
    input: {
      id: string;
      status: ReviewStatus;
      comment?: string;
      grade?: string;
      reviewer?: string;
    };
    output: RecordingDto;
  };
  'keyframes:compute': { input: { id: string }; output: RecordingDto };
  /** The window snapshot (tree, recording-clock tMs) at or before the step's start and the
   * element record nearest to it (null/null when none). */
  'axtree:get': {
    input: { id: string; stepId: string };
    output: { tMs: number | null; tree: unknown; element: unknown };
  };
  'exports:run': {
    input: {
      ids: string[];
      format: 'agentnet-raw' | 'agentnet-jsonl' | 'standardized';
      /** Absolute output folder on the machine running the services. */
      outDir: string;
      /** Export the others when some recordings are damaged (listed in `skipped`). */
      skipDamaged?: boolean;
      /** Replace existing outputs of the same names (else EXPORT_TARGET_EXISTS). */
      overwrite?: boolean;
    };
    output: {
      outDir: string;
      /** `outputs`: top-level names written (folders or files); `files`: every file written. */
      recordings: {
        id: string;
        episodeId: string;
        outputs: string[];
        files?: number;
        warnings: string[];
      }[];
      /** Damaged recordings left out (only with `skipDamaged`). */
      skipped: { id: string; code: string; message: string }[];
    };
  };
  /** Saved upload target (`s3://bucket/prefix`) and annotator, null when none. */
  'uploads:defaults': {
    input: Record<string, never>;
    output: { to: string | null; endpoint: string | null; annotator: string | null };
  };
  /** Queues recordings for upload and starts them in the background (progress by event). */
  'uploads:enqueue': {
    input: {
      ids: string[];
      /** `s3://bucket/prefix`; default: the saved target. */
      to?: string;
      /** Annotator folder; default: the saved annotator. */
      annotator?: string;
    };
    output: UploadViewDto[];
  };
  'uploads:list': { input: Record<string, never>; output: UploadViewDto[] };
  /** Runs an unfinished (failed, paused, queued) upload again in the background. */
  'uploads:retry': { input: { uploadId: number }; output: UploadViewDto };
  'uploads:cancel': { input: { uploadId: number }; output: UploadViewDto };
};

/** Runtime allow-list of methods (the preload and the HTTP server accept exactly these). */
export const API_METHODS = [
  'recordings:list',
  'recordings:get',
  'recordings:update-task',
  'recordings:delete',
  'edits:apply',
  'edits:undo',
  'edits:redo',
  'labels:save',
  'reviews:set-status',
  'keyframes:compute',
  'axtree:get',
  'exports:run',
  'uploads:defaults',
  'uploads:enqueue',
  'uploads:list',
  'uploads:retry',
  'uploads:cancel',
] as const satisfies readonly (keyof ApiMethods)[];

/** A method name. */
export type ApiMethod = keyof ApiMethods;

/** Push events and their payloads. */
export type ApiEvents = {
  'exports:progress': { done: number; total: number; recordingId: string; phase: string };
  'recordings:changed': { id: string };
  'uploads:progress': UploadProgressDto;
};

/** Runtime allow-list of events. */
export const API_EVENTS = [
  'exports:progress',
  'recordings:changed',
  'uploads:progress',
] as const satisfies readonly (keyof ApiEvents)[];

/** An event name. */
export type ApiEvent = keyof ApiEvents;
