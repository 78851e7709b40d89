// The app's settings (`settings:get` / `settings:set`), kept in the library: recording defaults
// (fps, quality, display, accessibility, countdown, hotkeys) under one key, the annotator and the
// upload target with the upload defaults (the same ones `cua-annotator upload --save` writes), and
// upload credentials only through the host's secret store (Electron's safeStorage): a host
// without one (the browser host, the CLI) refuses them, so no secret is ever stored in plain text.
import type { SettingsDto, SettingsPatch } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { getAppSettings, setAppSettings } from '../../store';
import {
  getUploadSetting,
  setUploadSetting,
  UPLOAD_SETTING_KEYS,
} from '../../store/queries/uploads';
import type { Library } from '../library/library';
import {
  clearUploadCredentials,
  saveUploadCredentials,
  storedCredentialsHint,
  type SecretCipher,
} from '../upload/secret-store';
import { checkKeySegment, parseS3Url, type UploadDefaults } from '../upload/target';
import { checkSettingsPatch } from './settings-checks';

/** The recording defaults a fresh library starts with. */
export const DEFAULT_SETTINGS = {
  fps: 30,
  quality: 'standard',
  display: null,
  accessibility: true,
  countdownS: 3,
  // the recorder's own chords (src/recorder/input/hotkeys.ts): the desktop app registers them too
  hotkeys: { startStop: 'ctrl+alt+shift+r', pause: 'ctrl+alt+shift+p' },
  // exclusion rules at capture (docs/privacy.md): the built-in list only
  // an import's kept source files go with its upload, scanned for PII (docs/privacy.md §5)
  privacy: {
    excludeApps: [],
    excludeTitles: [],
    useDefaultExclusions: true,
    uploadRawFiles: true,
  },
  // checks before submit (docs/quality.md §1): unlabelled steps are not an error by default
  requireLabels: false,
  // replay in the review UI (docs/replay.md §6): off until a (virtual) display is named
  replayDisplay: '',
} as const satisfies RecordingDefaults;

type RecordingDefaults = Pick<
  SettingsDto,
  | 'fps'
  | 'quality'
  | 'display'
  | 'accessibility'
  | 'countdownS'
  | 'hotkeys'
  | 'privacy'
  | 'requireLabels'
  | 'replayDisplay'
>;

const isStringList = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

// Privacy settings stored before `uploadRawFiles` existed get its default.
function withRawFilesDefault(p: SettingsDto['privacy']): SettingsDto['privacy'] {
  const stored = p as Partial<SettingsDto['privacy']>;
  return { ...p, uploadRawFiles: stored.uploadRawFiles ?? DEFAULT_SETTINGS.privacy.uploadRawFiles };
}

// The stored recording defaults over the built-in ones (a value of the wrong type is ignored).
function recordingDefaults(lib: Library): RecordingDefaults {
  const raw = getAppSettings(lib.db);
  const stored = raw && typeof raw === 'object' ? (raw as Partial<RecordingDefaults>) : {};
  const pick = <K extends keyof RecordingDefaults>(
    key: K,
    ok: (v: unknown) => boolean,
  ): RecordingDefaults[K] => (ok(stored[key]) ? stored[key] : DEFAULT_SETTINGS[key]) as never;
  return {
    fps: pick('fps', (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 60),
    quality: pick('quality', (v) => v === 'standard' || v === 'high'),
    display: pick('display', (v) => v === null || typeof v === 'string'),
    accessibility: pick('accessibility', (v) => typeof v === 'boolean'),
    countdownS: pick('countdownS', (v) => Number.isInteger(v) && (v as number) >= 0),
    hotkeys: pick(
      'hotkeys',
      (v) =>
        !!v &&
        typeof (v as { startStop?: unknown }).startStop === 'string' &&
        typeof (v as { pause?: unknown }).pause === 'string',
    ),
    privacy: withRawFilesDefault(
      pick('privacy', (v) => {
        const p = v as Partial<SettingsDto['privacy']> | null;
        return (
          !!p &&
          isStringList(p.excludeApps) &&
          isStringList(p.excludeTitles) &&
          typeof p.useDefaultExclusions === 'boolean' &&
          (p.uploadRawFiles === undefined || typeof p.uploadRawFiles === 'boolean')
        );
      }),
    ),
    requireLabels: pick('requireLabels', (v) => typeof v === 'boolean'),
    replayDisplay: pick('replayDisplay', (v) => typeof v === 'string'),
  };
}

/** The exclusion rules kept in the library's settings (docs/privacy.md). */
export function readPrivacySettings(lib: Library): SettingsDto['privacy'] {
  return recordingDefaults(lib).privacy;
}

/** The settings the checks before submit read (docs/quality.md §1). */
export function readCheckSettings(lib: Library): { requireLabels: boolean } {
  return { requireLabels: recordingDefaults(lib).requireLabels };
}

/** The display the review UI replays on (docs/replay.md §6); empty: replay is off. */
export function readReplayDisplay(lib: Library): string {
  return recordingDefaults(lib).replayDisplay.trim();
}

function uploadDefaults(lib: Library): UploadDefaults {
  const v = getUploadSetting(lib.db, UPLOAD_SETTING_KEYS.target);
  return v && typeof v === 'object' ? v : {};
}

/** What a host adds to the settings: its secret store and how it switches libraries. */
export type SettingsHost = {
  cipher: SecretCipher | null;
  /** The library folder the host will open next (its own config); null: it cannot switch. */
  libraryDir: { next: () => string | null; set: (dir: string) => void } | null;
};

/** The settings as `settings:get` answers them. */
export function readSettings(lib: Library, host: SettingsHost): SettingsDto {
  const { cipher } = host;
  const upload = uploadDefaults(lib);
  return {
    annotator: upload.annotator ?? null,
    ...recordingDefaults(lib),
    uploadTarget: upload.bucket
      ? `s3://${upload.bucket}${upload.prefix ? `/${upload.prefix}` : ''}`
      : null,
    uploadEndpoint: upload.endpoint ?? null,
    hasUploadCredentials: storedCredentialsHint(lib.db) !== null,
    canStoreCredentials: cipher !== null && cipher.isEncryptionAvailable(),
    libraryDir: host.libraryDir?.next() ?? lib.dir,
    canChangeLibrary: host.libraryDir !== null,
  };
}

/** Applies a `settings:set` patch (all or nothing) and answers the settings after it; a value
 * that would break or harm later is refused before anything is written (settings-checks.ts).
 * `env` is the host's environment (its DISPLAY: never the replay display). */
export function writeSettings(
  lib: Library,
  patch: SettingsPatch,
  host: SettingsHost,
  env: NodeJS.ProcessEnv = process.env,
): SettingsDto {
  const { cipher } = host;
  if (patch.libraryDir !== undefined && host.libraryDir === null) {
    throw new AppError(
      'INVALID_STATE',
      'This host cannot switch the library folder: it serves the library it was started with.',
      { field: 'libraryDir' },
      'Start `cua-annotator serve --library DIR` (or set CUA_ANNOTATOR_LIBRARY) with the other folder.',
    );
  }
  if (patch.uploadCredentials && !(cipher && cipher.isEncryptionAvailable())) {
    throw new AppError(
      'SECRET_STORAGE_UNAVAILABLE',
      'This host cannot keep upload credentials: only the desktop app stores them, encrypted by ' +
        "the system's secret store.",
      { field: 'uploadCredentials' },
      'Save the credentials in the desktop app, or give them to the CLI through the standard AWS ' +
        'variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or an AWS profile (--profile).',
    );
  }
  // checked before anything is written
  const annotator =
    patch.annotator === undefined || patch.annotator === null || patch.annotator === ''
      ? patch.annotator
      : checkKeySegment('annotator', patch.annotator);
  const target =
    patch.uploadTarget === undefined || patch.uploadTarget === null
      ? patch.uploadTarget
      : parseS3Url(patch.uploadTarget);
  // a bad rule, hotkey, endpoint or replay display is refused before anything is written, naming
  // the field and the fix
  checkSettingsPatch(patch, env);
  lib.db.transaction(() => {
    const current = recordingDefaults(lib);
    const next: RecordingDefaults = {
      ...current,
      ...(patch.fps === undefined ? {} : { fps: patch.fps }),
      ...(patch.quality === undefined ? {} : { quality: patch.quality }),
      ...(patch.display === undefined ? {} : { display: patch.display }),
      ...(patch.accessibility === undefined ? {} : { accessibility: patch.accessibility }),
      ...(patch.countdownS === undefined ? {} : { countdownS: patch.countdownS }),
      ...(patch.hotkeys === undefined ? {} : { hotkeys: patch.hotkeys }),
      ...(patch.requireLabels === undefined ? {} : { requireLabels: patch.requireLabels }),
      ...(patch.replayDisplay === undefined ? {} : { replayDisplay: patch.replayDisplay.trim() }),
      ...(patch.privacy === undefined
        ? {}
        : {
            privacy: {
              excludeApps: patch.privacy.excludeApps ?? current.privacy.excludeApps,
              excludeTitles: patch.privacy.excludeTitles ?? current.privacy.excludeTitles,
              useDefaultExclusions:
                patch.privacy.useDefaultExclusions ?? current.privacy.useDefaultExclusions,
              uploadRawFiles: patch.privacy.uploadRawFiles ?? current.privacy.uploadRawFiles,
            },
          }),
    };
    setAppSettings(lib.db, next);
    const upload: UploadDefaults = { ...uploadDefaults(lib) };
    if (annotator !== undefined) {
      if (annotator) {
        upload.annotator = annotator;
      } else {
        delete upload.annotator;
      }
    }
    if (target !== undefined) {
      if (target) {
        upload.bucket = target.bucket;
        upload.prefix = target.prefix;
      } else {
        delete upload.bucket;
        delete upload.prefix;
      }
    }
    if (patch.uploadEndpoint !== undefined) {
      if (patch.uploadEndpoint) {
        upload.endpoint = patch.uploadEndpoint;
      } else {
        delete upload.endpoint;
      }
    }
    setUploadSetting(lib.db, UPLOAD_SETTING_KEYS.target, upload);
    if (patch.libraryDir !== undefined) {
      // the host's own config (outside any library): takes effect when it next opens a library
      host.libraryDir?.set(patch.libraryDir);
    }
    if (patch.uploadCredentials === null) {
      clearUploadCredentials(lib.db);
    } else if (patch.uploadCredentials && cipher) {
      saveUploadCredentials(lib.db, cipher, patch.uploadCredentials);
    }
  })();
  return readSettings(lib, host);
}
