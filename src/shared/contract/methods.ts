// The one service contract: every method with the schema of its input and of its output, and
// every event with the schema of its payload, served over Electron IPC and HTTP alike
// (docs/architecture.md §3). The TypeScript types are inferred from the schemas.
import * as v from 'valibot';
import {
  ActionCallSchema,
  CheckCodeSchema,
  CheckSeveritySchema,
  EventCountsSchema,
  EXPORT_FORMATS,
  KEYFRAME_JOB_PHASES,
  PiiKindSchema,
  PiiSourceSchema,
  PlatformInfoSchema,
  PreMoveSchema,
  RECORDING_STATUSES,
  RecordingStatusSchema,
  RecordingSummarySchema,
  REPLAY_STOP_REASONS,
  REVIEW_STATUSES,
  ReviewStatusSchema,
  ScreenInfoSchema,
  StepKindSchema,
  UPLOAD_PHASES,
  UploadStatusSchema,
  type UploadStatus,
} from '../domain';
import { SkippedEditSchema, StepEditSchema, StepMarkSchema } from './edits';
import { RECORDER_METHOD_SCHEMAS, RecorderStatusDtoSchema } from './recorder';
import { TEAM_METHOD_SCHEMAS, TEAM_METHODS, TeamChangedDtoSchema } from './team';
import { COT_METHOD_SCHEMAS, COT_METHODS } from './cot';
import {
  absolutePathField,
  boolField,
  finiteField,
  got,
  idField,
  idList,
  integer,
  obj,
  oneOf,
  text,
} from './fields';

const id = idField;
const num = v.number();
const nullableNum = v.nullable(v.number());
const nullableStr = v.nullable(v.string());

// ---- results --------------------------------------------------------------------------------

/** A step as the UI shows it (edits applied). */
export const StepDtoSchema = v.strictObject({
  id: v.string(),
  index: num,
  kind: StepKindSchema,
  label: v.string(),
  description: v.string(),
  calls: v.array(ActionCallSchema),
  code: v.string(),
  startMs: num,
  endMs: num,
  coordinate: v.nullable(v.strictObject({ x: num, y: num })),
  preMove: v.nullable(PreMoveSchema),
  /** Keyframe time, ms on the recording clock (null until computed). */
  keyframeMs: nullableNum,
  /** URL of the keyframe image (null until computed). */
  keyframeUrl: nullableStr,
  /**
   * Element under the pointer at the step's start (pointer steps only), outermost ancestor first
   * and the element itself last; null when none was captured.
   */
  element: v.nullable(v.array(v.strictObject({ role: v.string(), name: v.string() }))),
  /** Active window at the step's start: its title, else its application name (AgentNet). */
  windowTitle: nullableStr,
  mark: v.nullable(StepMarkSchema),
  /** True when an edit changed or inserted the step. */
  isEdited: v.boolean(),
  diagnostics: v.array(v.string()),
  /** Kind-specific overlay data: drag path, scroll ticks, typed text (pixel coordinates). */
  overlay: v.strictObject({
    /** Pointer positions while the button was held (raw events, screen px). */
    dragPath: v.optional(v.array(v.tuple([num, num]))),
    /** Notches of the step's scroll/hscroll calls: dy > 0 = up, dx > 0 = right. */
    scroll: v.optional(v.strictObject({ dx: num, dy: num })),
    /** Text of the step's write calls. */
    text: v.optional(v.string()),
    /** Keys of press calls, one entry per key; hotkeys as one `ctrl+c` entry. */
    keys: v.optional(v.array(v.string())),
  }),
});
/** A step as the UI shows it (edits applied). */
export type StepDto = v.InferOutput<typeof StepDtoSchema>;

const score = v.nullable(integer(0, 10));

/** Task labels of a recording (scores are ints 0–10, docs/pyautogui-code.md §5). */
export const TaskLabelsSchema = obj({
  taskCompleted: v.nullable(boolField),
  taskDifficulty: score,
  alignmentScore: score,
  efficiencyScore: score,
});
/** Task labels of a recording (scores are ints 0–10, docs/pyautogui-code.md §5). */
export type TaskLabels = v.InferOutput<typeof TaskLabelsSchema>;

/** One verdict in the review history. */
export const ReviewEntrySchema = v.strictObject({
  atMs: num,
  reviewer: nullableStr,
  status: ReviewStatusSchema,
  grade: nullableStr,
  comment: nullableStr,
});
/** One verdict in the review history. */
export type ReviewEntry = v.InferOutput<typeof ReviewEntrySchema>;

/** Everything the recording page needs. */
export const RecordingDtoSchema = v.strictObject({
  id: v.string(),
  task: v.string(),
  description: v.string(),
  status: RecordingStatusSchema,
  reviewStatus: ReviewStatusSchema,
  source: v.string(),
  platform: PlatformInfoSchema,
  screen: ScreenInfoSchema,
  createdAtMs: num,
  durationMs: nullableNum,
  eventCounts: EventCountsSchema,
  video: v.nullable(
    v.strictObject({
      url: v.string(),
      width: num,
      height: num,
      fps: num,
      durationMs: num,
      /** Recording-clock ms of video frame 0: video time = (t − startMs) / 1000. */
      startMs: num,
    }),
  ),
  trim: v.strictObject({ startMs: nullableNum, endMs: nullableNum }),
  steps: v.array(StepDtoSchema),
  labels: TaskLabelsSchema,
  reviews: v.array(ReviewEntrySchema),
  /** Edit log position for undo/redo: id of the latest applied edit (0 = none). */
  editVersion: num,
  canUndo: v.boolean(),
  canRedo: v.boolean(),
  /** Applied edits that no longer fit the steps (e.g. after a re-reduction); shown, not fatal. */
  skippedEdits: v.array(SkippedEditSchema),
  /** Why this process's last keyframe job of the recording failed (the page shows it with its
   * fix); absent or null when none failed. */
  keyframesError: v.optional(
    v.nullable(obj({ code: text(100, 1), message: text(2000), fix: v.nullable(text(2000)) })),
  ),
});
/** Everything the recording page needs. */
export type RecordingDto = v.InferOutput<typeof RecordingDtoSchema>;

/** An upload as the uploads view lists it. */
export const UploadViewDtoSchema = v.strictObject({
  uploadId: num,
  recordingId: v.string(),
  task: v.string(),
  /** `s3://bucket/prefix` of the target. */
  target: v.string(),
  /** Endpoint URL (null = AWS). */
  endpoint: nullableStr,
  annotator: v.string(),
  /** `s3://bucket/<prefix>/<annotator>/<recording-id>/`. */
  location: v.string(),
  status: UploadStatusSchema,
  /** Bytes acknowledged by the server / all bytes of the submission. */
  bytesDone: num,
  bytesTotal: num,
  objectsVerified: num,
  objectsTotal: num,
  error: nullableStr,
  partRequests: num,
  retries: num,
  /** Epoch ms. */
  createdAtMs: num,
  updatedAtMs: num,
  submittedAtMs: nullableNum,
});
/** An upload as the uploads view lists it. */
export type UploadViewDto = v.InferOutput<typeof UploadViewDtoSchema>;
/** An upload's status as the uploads view shows it (the domain's {@link UploadStatus}). */
export type UploadViewStatus = UploadStatus;

// ---- payloads -------------------------------------------------------------------------------

/** Default and largest page size of {@link RecordingQuery}. */
export const RECORDING_PAGE_DEFAULT_LIMIT = 200;
export const RECORDING_PAGE_MAX_LIMIT = 5000;
/** Sort keys and orders of the library page. */
export const RECORDING_SORTS = ['created', 'task', 'duration', 'steps', 'status'] as const;
export const SORT_ORDERS = ['asc', 'desc'] as const;
/** Most recordings in one export run. */
const MAX_EXPORT_IDS = 10_000;
/** Most recordings in one upload request. */
const MAX_UPLOAD_IDS = 10_000;
/** Most findings in one `privacy:redact` request. */
const MAX_REDACT_FINDINGS = 500;

/** Library page query (an absent or null payload is the empty query). */
export const RecordingQuerySchema = v.nullish(
  obj({
    /** Case-insensitive substring of the task or description, or a recording id prefix. */
    search: v.optional(text(500)),
    status: v.optional(oneOf(RECORDING_STATUSES)),
    reviewStatus: v.optional(oneOf(REVIEW_STATUSES)),
    os: v.optional(text(50, 1)),
    /** Created at or after (epoch ms). */
    fromMs: v.optional(finiteField),
    /** Created before (epoch ms). */
    toMs: v.optional(finiteField),
    sort: v.optional(oneOf(RECORDING_SORTS)),
    order: v.optional(oneOf(SORT_ORDERS)),
    offset: v.optional(integer(0)),
    /** Page size; default 200, at most 5000. */
    limit: v.optional(integer(1, RECORDING_PAGE_MAX_LIMIT)),
  }),
  {},
);
/** Library page query. */
export type RecordingQuery = v.InferOutput<typeof RecordingQuerySchema>;

const idOnly = obj({ id });
/** `force` (here and in the edit methods): edit an accepted recording, which returns it to
 * review; without it such a call fails with REVIEW_LOCKED. */
const force = v.optional(boolField);
const idAndForce = obj({ id, force });
const uploadIdOnly = obj({ uploadId: integer(1) });
/** The payload of a method that takes no field. */
const nothing: v.GenericSchema<unknown, Record<string, never>> = obj({});

const updateTask = v.pipe(
  obj({ id, task: v.optional(text(10_000)), description: v.optional(text()), force }),
  v.forward(
    v.check(
      (p) => p.task !== undefined || p.description !== undefined,
      'give task or description (or both)',
    ),
    ['task'],
  ),
  v.forward(
    v.check((p) => p.task === undefined || p.task.trim() !== '', 'must not be blank'),
    ['task'],
  ),
);

const exportResult = v.strictObject({
  outDir: v.string(),
  /** `outputs`: top-level names written (folders or files); `files`: every file written. */
  recordings: v.array(
    v.strictObject({
      id: v.string(),
      episodeId: v.string(),
      outputs: v.array(v.string()),
      files: v.optional(num),
      warnings: v.array(v.string()),
    }),
  ),
  /** Damaged recordings left out (only with `skipDamaged`). */
  skipped: v.array(v.strictObject({ id: v.string(), code: v.string(), message: v.string() })),
});

/** One finding of the PII scan (`privacy:scan`), the domain's `PiiFinding`. */
export const PiiFindingDtoSchema = v.strictObject({
  /** Stable across scans of the same data. */
  id: v.string(),
  kind: PiiKindSchema,
  source: PiiSourceSchema,
  /** Index of the (edited) step the text belongs to or is nearest; null when none. */
  stepIndex: nullableNum,
  /** Session-clock time of the text, ms; null when it has none (task, label data). */
  tMs: nullableNum,
  /** The text around the match with the match masked. */
  excerpt: v.string(),
  /** Source `raw-file`: the imported file's name (kept as `raw/<file>`). */
  file: v.optional(v.string()),
  /** Resolved by a `pii-accept` (accepted) or `redact-text` (redacted) edit; null: open. */
  resolved: v.optional(v.nullable(v.picklist(['accepted', 'redacted']))),
});

/** One problem of the checks before submit (`recordings:check`, docs/quality.md §1). */
export const CheckProblemDtoSchema = v.strictObject({
  code: CheckCodeSchema,
  /** Index of the (edited) step it concerns; null when it concerns the whole recording. */
  stepIndex: nullableNum,
  message: v.string(),
  fix: v.string(),
  /** An error blocks submit and upload; a warning does not. */
  severity: CheckSeveritySchema,
});

const replayElement = v.nullable(v.strictObject({ controlType: v.string(), title: v.string() }));

/** One replay result as the review UI shows it (the domain's `ReplayStepResult` with its images
 * as media URLs; docs/replay.md §6). */
export const ReplayResultDtoSchema = v.strictObject({
  /** Step index (edited numbering); the end state has the number of steps. */
  index: num,
  kind: v.picklist(['step', 'end']),
  stepId: nullableStr,
  /** Share of the screen's blocks that differ from the keyframe; null when not compared. */
  screenDiff: nullableNum,
  /** The element under the action point has the recorded role and name; null: none recorded. */
  elementMatch: v.nullable(v.boolean()),
  ok: v.boolean(),
  /** A step typed into a password field: not replayed, not compared, left out of the score. */
  masked: v.boolean(),
  recordedElement: replayElement,
  liveElement: replayElement,
  /** Why the step was not compared or driven, else null. */
  note: nullableStr,
  /** The live screen of a divergent result; null when none was saved. */
  screenshotUrl: nullableStr,
  /** The keyframe it was compared with; null when none. */
  keyframeUrl: nullableStr,
});
/** One replay result as the review UI shows it. */
export type ReplayResultDto = v.InferOutput<typeof ReplayResultDtoSchema>;

/** A finished replay run as the review UI shows it (the domain's `ReplayReport`). */
export const ReplayReportDtoSchema = v.strictObject({
  runId: v.string(),
  startedAt: v.string(),
  display: nullableStr,
  speed: num,
  /** Share of results (each step, then the end state) that match, 0–1. */
  score: num,
  firstDivergent: nullableNum,
  stepCount: num,
  stopped: v.nullable(
    v.strictObject({
      reason: v.picklist(REPLAY_STOP_REASONS),
      stepIndex: num,
      message: v.string(),
    }),
  ),
  durationMs: num,
  warnings: v.array(v.string()),
  steps: v.array(ReplayResultDtoSchema),
});
/** A finished replay run as the review UI shows it. */
export type ReplayReportDto = v.InferOutput<typeof ReplayReportDtoSchema>;

/** A recording's replay in the review UI (`replay:status`, docs/replay.md §6). */
export const ReplayStatusDtoSchema = v.strictObject({
  /** The display of the settings (`replayDisplay`); empty: replay is off. */
  display: v.string(),
  /** A replay of this recording is under way. */
  running: v.boolean(),
  /** Another recording's replay is under way (its id), else null: one at a time per library. */
  busyWith: nullableStr,
  /** Results of the run under way (or the last run of this session) so far. */
  results: v.array(ReplayResultDtoSchema),
  /** Results the run under way will have (steps + the end state); 0 when none runs. */
  total: num,
  /** The last finished run (stored with the recording), null when it was never replayed. */
  report: v.nullable(ReplayReportDtoSchema),
  /** Why the last run of this session failed, else null. */
  error: v.nullable(v.strictObject({ code: v.string(), message: v.string(), fix: nullableStr })),
});
/** A recording's replay in the review UI. */
export type ReplayStatusDto = v.InferOutput<typeof ReplayStatusDtoSchema>;

/** The schemas of every method: `input` checks the payload, `output` describes the result. */
export const METHOD_SCHEMAS = {
  'recordings:list': {
    input: RecordingQuerySchema,
    output: v.strictObject({ total: num, items: v.array(RecordingSummarySchema) }),
  },
  'recordings:get': { input: idOnly, output: RecordingDtoSchema },
  'recordings:update-task': { input: updateTask, output: RecordingDtoSchema },
  'recordings:delete': { input: idOnly, output: v.strictObject({ id: v.string() }) },
  /** The checks before submit (docs/quality.md): `ok` is false when any problem is an error. */
  'recordings:check': {
    input: idOnly,
    output: v.strictObject({ ok: v.boolean(), problems: v.array(CheckProblemDtoSchema) }),
  },
  'edits:apply': {
    input: obj({ id, edit: StepEditSchema, force }),
    output: RecordingDtoSchema,
  },
  'edits:undo': { input: idAndForce, output: RecordingDtoSchema },
  'edits:redo': { input: idAndForce, output: RecordingDtoSchema },
  'labels:save': {
    input: obj({ id, labels: TaskLabelsSchema, force }),
    output: RecordingDtoSchema,
  },
  'reviews:set-status': {
    input: obj({
      id,
      status: oneOf(REVIEW_STATUSES),
      comment: v.optional(text(20_000)),
      grade: v.optional(text(100)),
      reviewer: v.optional(text(200)),
    }),
    output: RecordingDtoSchema,
  },
  'keyframes:compute': { input: idOnly, output: RecordingDtoSchema },
  /** The window snapshot (tree, recording-clock tMs) at or before the step's start and the
   * element record nearest to it (null/null when none). */
  'axtree:get': {
    input: obj({ id, stepId: id }),
    output: v.strictObject({ tMs: nullableNum, tree: v.unknown(), element: v.unknown() }),
  },
  'exports:run': {
    input: obj({
      ids: idList(MAX_EXPORT_IDS),
      format: oneOf(EXPORT_FORMATS),
      /** Absolute output folder on the machine running the services. */
      outDir: absolutePathField,
      /** Export the others when some recordings are damaged (listed in `skipped`). */
      skipDamaged: v.optional(boolField),
      /** Replace existing outputs of the same names (else EXPORT_TARGET_EXISTS). */
      overwrite: v.optional(boolField),
      /** Export despite unresolved card/iban/secret findings (else PII_UNRESOLVED); recorded. */
      allowPii: v.optional(boolField),
    }),
    output: exportResult,
  },
  /** Scans a recording's typed text, window titles, accessibility data, task and labels for
   * personal data and secrets (masked excerpts; nothing is changed). */
  'privacy:scan': {
    input: idOnly,
    output: v.strictObject({ findings: v.array(PiiFindingDtoSchema) }),
  },
  /** Redacts findings' text by their `privacy:scan` ids: one `redact-text` edit each (the
   * service looks up the unmasked text; one already redacted is left; an unknown id is
   * NOT_FOUND). Undone with `edits:undo`, newest first. */
  'privacy:redact': {
    input: obj({
      id,
      findingIds: v.pipe(
        v.array(text(200, 1), got(`must be a list of 1 to ${MAX_REDACT_FINDINGS} finding ids`)),
        v.minLength(1, got(`must be a list of 1 to ${MAX_REDACT_FINDINGS} finding ids`)),
        v.maxLength(
          MAX_REDACT_FINDINGS,
          got(`must be a list of 1 to ${MAX_REDACT_FINDINGS} finding ids`),
        ),
      ),
      force,
    }),
    output: RecordingDtoSchema,
  },
  /** What the player blacks out over the video (what leaves the machine): the active
   * `redact-box` edits, the excluded intervals (whole frame; endMs null = still open) and the
   * rectangles of excluded windows on the screen (`excluded-region` marks, video px). */
  'privacy:redactions': {
    input: idOnly,
    output: v.strictObject({
      boxes: v.array(
        v.strictObject({
          editId: num,
          startMs: num,
          endMs: num,
          box: v.strictObject({ x: num, y: num, width: num, height: num }),
        }),
      ),
      excluded: v.array(v.strictObject({ startMs: num, endMs: nullableNum })),
      regions: v.array(
        v.strictObject({
          startMs: num,
          endMs: nullableNum,
          box: v.strictObject({ x: num, y: num, width: num, height: num }),
        }),
      ),
    }),
  },
  /** Saved upload target (`s3://bucket/prefix`) and annotator, null when none. */
  'uploads:defaults': {
    input: nothing,
    output: v.strictObject({ to: nullableStr, endpoint: nullableStr, annotator: nullableStr }),
  },
  /** Queues recordings for upload and starts them in the background (progress by event). */
  'uploads:enqueue': {
    input: obj({
      ids: idList(MAX_UPLOAD_IDS),
      /** `s3://bucket/prefix`; default: the saved target. */
      to: v.optional(
        v.pipe(text(1024, 1), v.startsWith('s3://', got('must be an s3://bucket/prefix URL'))),
      ),
      /** Annotator folder; default: the saved annotator. */
      annotator: v.optional(text(64, 1)),
      /** Upload despite unresolved card/iban/secret findings (else PII_UNRESOLVED); recorded. */
      allowPii: v.optional(boolField),
    }),
    output: v.array(UploadViewDtoSchema),
  },
  'uploads:list': { input: nothing, output: v.array(UploadViewDtoSchema) },
  /** Runs an unfinished (failed, paused, queued) upload again in the background. */
  'uploads:retry': { input: uploadIdOnly, output: UploadViewDtoSchema },
  'uploads:cancel': { input: uploadIdOnly, output: UploadViewDtoSchema },
  /** Starts a replay of the recording in the background on the settings' `replayDisplay`
   * (REPLAY_NO_DISPLAY when it is empty, INVALID_STATE while another replay of the library
   * runs); `speed` divides the recorded pauses (default 1). Answers the status. */
  'replay:start': {
    input: obj({
      id,
      speed: v.optional(
        v.pipe(
          finiteField,
          v.check((n) => n > 0 && n <= 100, got('must be a number in (0, 100]')),
        ),
      ),
    }),
    output: ReplayStatusDtoSchema,
  },
  /** The replay of a recording: the run under way, its results so far, the last report. */
  'replay:status': { input: idOnly, output: ReplayStatusDtoSchema },
  /** Stops the recording's replay under way (its report says `cancelled`); answers the status. */
  'replay:cancel': { input: idOnly, output: ReplayStatusDtoSchema },
  ...RECORDER_METHOD_SCHEMAS,
  ...TEAM_METHOD_SCHEMAS,
  ...COT_METHOD_SCHEMAS,
} satisfies Record<string, { input: v.GenericSchema; output: v.GenericSchema }>;

/** A method name. */
export type ApiMethod = keyof typeof METHOD_SCHEMAS;

/** The request/response map of every method, inferred from {@link METHOD_SCHEMAS}. */
export type ApiMethods = {
  [M in ApiMethod]: {
    input: v.InferOutput<(typeof METHOD_SCHEMAS)[M]['input']>;
    output: v.InferOutput<(typeof METHOD_SCHEMAS)[M]['output']>;
  };
};

/** Runtime allow-list of methods (the preload and the HTTP server accept exactly these). Kept as
 * its own list so that a host can check names without loading the schemas; validators.ts proves
 * it names exactly the methods of {@link METHOD_SCHEMAS}. */
export const API_METHODS = [
  'recordings:list',
  'recordings:get',
  'recordings:update-task',
  'recordings:delete',
  'recordings:check',
  'edits:apply',
  'edits:undo',
  'edits:redo',
  'labels:save',
  'reviews:set-status',
  'keyframes:compute',
  'axtree:get',
  'exports:run',
  'privacy:scan',
  'privacy:redact',
  'privacy:redactions',
  'uploads:defaults',
  'uploads:enqueue',
  'uploads:list',
  'uploads:retry',
  'uploads:cancel',
  'replay:start',
  'replay:status',
  'replay:cancel',
  'recorder:start',
  'recorder:pause',
  'recorder:resume',
  'recorder:stop',
  'recorder:discard',
  'recorder:get-status',
  'system:health',
  'settings:get',
  'settings:set',
  ...TEAM_METHODS,
  ...COT_METHODS,
] as const satisfies readonly ApiMethod[];

// ---- events ---------------------------------------------------------------------------------

const count = integer(0);

/** The `uploads:progress` payload. */
export const UploadProgressDtoSchema = obj({
  uploadId: integer(1),
  recordingId: id,
  phase: oneOf(UPLOAD_PHASES),
  /** Bytes acknowledged by the server so far / all bytes. */
  bytesDone: count,
  bytesTotal: count,
  objectsDone: count,
  objectsTotal: count,
  /** What just happened, e.g. `part 3/12 video/x.mp4`. */
  detail: text(2000),
});
/** The `uploads:progress` payload. */
export type UploadProgressDto = v.InferOutput<typeof UploadProgressDtoSchema>;

/** The `keyframes:progress` payload: a background keyframe job of one recording. */
export const KeyframesProgressDtoSchema = obj({
  recordingId: id,
  phase: oneOf(KEYFRAME_JOB_PHASES),
  /** Steps being computed (0 while queued and after a failure or cancel). */
  steps: count,
  /** Why the job failed (phase `failed`), else null. */
  error: v.nullable(
    obj({
      code: text(100, 1),
      message: text(2000),
      /** What to do about it, when there is something to do (e.g. free disk space). */
      fix: v.optional(v.nullable(text(2000))),
    }),
  ),
});
/** The `keyframes:progress` payload. */
export type KeyframesProgressDto = v.InferOutput<typeof KeyframesProgressDtoSchema>;

/** The payload schema of every push event. */
export const EVENT_SCHEMAS = {
  'exports:progress': obj({ done: count, total: count, recordingId: id, phase: text(100, 1) }),
  'keyframes:progress': KeyframesProgressDtoSchema,
  'recordings:changed': idOnly,
  'uploads:progress': UploadProgressDtoSchema,
  'recorder:status-changed': RecorderStatusDtoSchema,
  'team:changed': TeamChangedDtoSchema,
} satisfies Record<string, v.GenericSchema>;

/** An event name. */
export type ApiEvent = keyof typeof EVENT_SCHEMAS;

/** Push events and their payloads, inferred from {@link EVENT_SCHEMAS}. */
export type ApiEvents = { [E in ApiEvent]: v.InferOutput<(typeof EVENT_SCHEMAS)[E]> };

/** Runtime allow-list of events (validators.ts proves it names every event of the schemas). */
export const API_EVENTS = [
  'exports:progress',
  'keyframes:progress',
  'recordings:changed',
  'uploads:progress',
  'recorder:status-changed',
  'team:changed',
] as const satisfies readonly ApiEvent[];
