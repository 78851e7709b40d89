// The contract of recording from a host (the desktop app, or `serve` on the machine being
// recorded), of the machine's health and of the app's settings (docs/architecture.md §3).
import * as v from 'valibot';
import { absolutePathField, boolField, integer, obj, oneOf, text } from './fields';

/** States of the recorder a host drives (one recording at a time per library). */
export const RECORDER_STATES = ['idle', 'starting', 'recording', 'paused', 'stopping'] as const;
/** One of {@link RECORDER_STATES}. */
export type RecorderState = (typeof RECORDER_STATES)[number];

/** How accessibility capture is doing in the running recording. */
export const ACCESSIBILITY_HEALTH = ['ok', 'off', 'unavailable'] as const;

const count = integer(0);
const nullableId = v.nullable(v.string());
const errorDto = obj({ code: text(100, 1), message: text(4000), fix: v.optional(text(4000)) });

/** The recorder's state: what `recorder:get-status` answers and `recorder:status-changed` pushes. */
export const RecorderStatusDtoSchema = obj({
  state: oneOf(RECORDER_STATES),
  /** The recording under way (null when idle). */
  recordingId: nullableId,
  /** Its task instruction (null when idle). */
  task: v.nullable(v.string()),
  /** Time recorded, pauses excluded, ms. */
  elapsedMs: count,
  /** Video frames ffmpeg has written so far. */
  frames: count,
  /** Frames ffmpeg dropped (the machine could not keep up). */
  droppedFrames: count,
  /** Input events captured so far. */
  events: count,
  accessibility: oneOf(ACCESSIBILITY_HEALTH),
  /** Warnings of this recording so far (low disk, hook restarts, no accessibility…). */
  warnings: v.array(v.string()),
  /** The recording the last stop saved (null before; also after a discard). */
  lastRecordingId: nullableId,
  /** Why the last recording ended on its own or failed to start, else null. */
  error: v.nullable(errorDto),
});
/** The recorder's state. */
export type RecorderStatusDto = v.InferOutput<typeof RecorderStatusDtoSchema>;

/** Input of `recorder:start`. */
export const RecorderStartSchema = obj({
  task: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1, 'must not be empty: say what the recording demonstrates'),
    v.maxLength(2000, 'must have at most 2000 characters'),
  ),
  /** Frames per second; default the settings' fps. */
  fps: v.optional(integer(1, 60)),
  /** X display, e.g. `:0`; default the settings' display, else DISPLAY. */
  display: v.optional(
    v.pipe(text(100, 1), v.regex(/^[A-Za-z0-9.:_-]+$/, 'must be a display name like :0')),
  ),
  /** Capture accessibility; default the settings' choice. */
  a11y: v.optional(boolField),
  /** The team hub task this recording is made for (claimed first with `team:claim-task`); it
   * goes with the recording into its submission and exports (docs/team-mode.md §16). */
  teamTaskId: v.optional(integer(1)),
});

/** One check of `system:health` (the doctor's checks). */
export const HealthCheckDtoSchema = obj({
  id: text(100, 1),
  ok: v.boolean(),
  severity: v.picklist(['error', 'warning']),
  summary: v.string(),
  fix: v.optional(v.string()),
});

/** Result of `system:health`. */
export const SystemHealthDtoSchema = obj({
  /** True when recording can work (warnings allowed). */
  ok: v.boolean(),
  platform: v.string(),
  checks: v.array(HealthCheckDtoSchema),
});
/** Result of `system:health`. */
export type SystemHealthDto = v.InferOutput<typeof SystemHealthDtoSchema>;

/** Quality presets of the screen video. */
export const VIDEO_QUALITIES = ['standard', 'high'] as const;

/** Global hotkeys, as the recorder's key chords (e.g. `ctrl+alt+shift+r`); the desktop app
 * registers the same chords with the OS. */
export const HotkeySettingsSchema = obj({
  startStop: text(100, 1),
  pause: text(100, 1),
});

/** Exclusion rules at capture (docs/privacy.md): windows whose keys, clicks and accessibility
 * data are never stored. */
export const PrivacySettingsSchema = obj({
  /** Applications to exclude (WM_CLASS or process name, case-insensitive). */
  excludeApps: v.array(text(200, 1)),
  /** Window-title regular expressions to exclude (case-insensitive). */
  excludeTitles: v.array(text(500, 1)),
  /** Also exclude the built-in list (password managers, private browser windows). */
  useDefaultExclusions: v.boolean(),
  /** An imported recording's kept source files (`raw/`) go with its upload, scanned for PII
   * like the rest; false: they stay home (docs/privacy.md §5). */
  uploadRawFiles: v.boolean(),
});

/** The app's settings (`settings:get`); stored in the library. */
export const SettingsDtoSchema = obj({
  /** Annotator name: the default for uploads. */
  annotator: v.nullable(v.string()),
  fps: integer(1, 60),
  quality: oneOf(VIDEO_QUALITIES),
  /** X display to record (null: DISPLAY). */
  display: v.nullable(v.string()),
  /** Capture the accessibility tree. */
  accessibility: v.boolean(),
  /** Seconds of countdown before a recording starts (0: none). */
  countdownS: integer(0, 10),
  hotkeys: HotkeySettingsSchema,
  privacy: PrivacySettingsSchema,
  /** Every step needs a label before submit (`check`: UNLABELLED_STEP, docs/quality.md §1). */
  requireLabels: v.boolean(),
  /** X display the review UI replays recordings on (a virtual desktop showing the start state,
   * e.g. `:99`); empty: replay is off (docs/replay.md §6). */
  replayDisplay: v.string(),
  /** Upload target `s3://bucket/prefix` (null: none saved). */
  uploadTarget: v.nullable(v.string()),
  /** S3 endpoint of the target (null: AWS). */
  uploadEndpoint: v.nullable(v.string()),
  /** True when upload credentials are kept by the desktop app's secret store. */
  hasUploadCredentials: v.boolean(),
  /** True when this host can keep credentials (the desktop app; not the browser host). */
  canStoreCredentials: v.boolean(),
  /** The library folder in use. */
  libraryDir: v.string(),
  /** True when this host can switch the library folder (the desktop app, after a restart). */
  canChangeLibrary: v.boolean(),
});
/** The app's settings. */
export type SettingsDto = v.InferOutput<typeof SettingsDtoSchema>;

// every title rule runs on every window title the recorder sees (src/recorder/privacy/exclusion.ts)
const MAX_RULES = 'must have at most 100 rules';

/** Input of `settings:set`: the fields to change. */
export const SettingsPatchSchema = obj({
  annotator: v.optional(v.nullable(text(200))),
  fps: v.optional(integer(1, 60)),
  quality: v.optional(oneOf(VIDEO_QUALITIES)),
  display: v.optional(
    v.nullable(
      v.pipe(text(100, 1), v.regex(/^[A-Za-z0-9.:_-]+$/, 'must be a display name like :0')),
    ),
  ),
  accessibility: v.optional(boolField),
  countdownS: v.optional(integer(0, 10)),
  hotkeys: v.optional(HotkeySettingsSchema),
  /** Exclusion rules; fields left out keep their value. */
  privacy: v.optional(
    obj({
      excludeApps: v.optional(v.pipe(v.array(text(200, 1)), v.maxLength(100, MAX_RULES))),
      excludeTitles: v.optional(v.pipe(v.array(text(500, 1)), v.maxLength(100, MAX_RULES))),
      useDefaultExclusions: v.optional(boolField),
      uploadRawFiles: v.optional(boolField),
    }),
  ),
  requireLabels: v.optional(boolField),
  /** X display for replays from the review UI; empty turns replay off. */
  replayDisplay: v.optional(
    v.pipe(
      text(100),
      v.regex(
        /^([A-Za-z0-9._-]*:\d{1,9}(\.\d{1,9})?)?$/,
        'must be a display name like :99, or empty',
      ),
    ),
  ),
  uploadTarget: v.optional(
    v.nullable(
      v.pipe(text(1000, 1), v.regex(/^s3:\/\/[^/\s]+(\/\S*)?$/, 'must be s3://BUCKET/PREFIX')),
    ),
  ),
  uploadEndpoint: v.optional(
    v.nullable(v.pipe(text(1000, 1), v.regex(/^https?:\/\/\S+$/, 'must be an http(s) URL'))),
  ),
  /** Library folder for the next start (only hosts that can switch it: the desktop app). */
  libraryDir: v.optional(absolutePathField),
  /** Upload credentials: only hosts with a secret store keep them (null: forget them). */
  uploadCredentials: v.optional(
    v.nullable(obj({ accessKeyId: text(200, 1), secretAccessKey: text(200, 1) })),
  ),
});
/** Input of `settings:set`. */
export type SettingsPatch = v.InferOutput<typeof SettingsPatchSchema>;

const nothing: v.GenericSchema<unknown, Record<string, never>> = obj({});

/** The recorder, health and settings methods (merged into METHOD_SCHEMAS). */
export const RECORDER_METHOD_SCHEMAS = {
  'recorder:start': { input: RecorderStartSchema, output: RecorderStatusDtoSchema },
  'recorder:pause': { input: nothing, output: RecorderStatusDtoSchema },
  'recorder:resume': { input: nothing, output: RecorderStatusDtoSchema },
  'recorder:stop': { input: nothing, output: RecorderStatusDtoSchema },
  'recorder:discard': { input: nothing, output: RecorderStatusDtoSchema },
  'recorder:get-status': { input: nothing, output: RecorderStatusDtoSchema },
  'system:health': { input: nothing, output: SystemHealthDtoSchema },
  'settings:get': { input: nothing, output: SettingsDtoSchema },
  'settings:set': { input: SettingsPatchSchema, output: SettingsDtoSchema },
} satisfies Record<string, { input: v.GenericSchema; output: v.GenericSchema }>;

/**
 * Methods that act on the machine the host runs on (record it, read its health, change the app's
 * settings, drive a display of it with a replay): the browser host serves them to loopback
 * clients only, never through `serve --host`.
 */
export const LOCAL_ONLY_METHODS: readonly string[] = [
  ...Object.keys(RECORDER_METHOD_SCHEMAS),
  'replay:start',
];
