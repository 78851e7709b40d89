// State of the settings page: the settings as the service last answered and the form's draft
// (numbers as typed text, so a half-typed value is kept), with the save state and field errors.
import type { SettingsDto } from '../../../shared/contract';

/** A failed call, shown as code, message and fix. */
export type SettingsError = { code: string; message: string; fix: string | null };

/** The form's fields; error keys are the contract's field paths (hotkeys by their sub-field). */
export const SETTINGS_FIELDS = [
  'annotator',
  'fps',
  'quality',
  'display',
  'accessibility',
  'countdownS',
  'requireLabels',
  'replayDisplay',
  'hotkeys.startStop',
  'hotkeys.pause',
  'uploadTarget',
  'uploadEndpoint',
  'uploadCredentials',
  'libraryDir',
] as const;
/** One of {@link SETTINGS_FIELDS}. */
export type SettingsField = (typeof SETTINGS_FIELDS)[number];

/** What the form holds. */
export type SettingsDraft = {
  annotator: string;
  fps: string;
  quality: SettingsDto['quality'];
  display: string;
  accessibility: boolean;
  countdownS: string;
  /** Checks before submit: every step needs a label (docs/quality.md §1). */
  requireLabels: boolean;
  /** X display replays from the review UI run on; empty: replay off (docs/replay.md §6). */
  replayDisplay: string;
  hotkeyStartStop: string;
  hotkeyPause: string;
  uploadTarget: string;
  uploadEndpoint: string;
  /** New upload credentials (sent only when both are typed; never filled from the service). */
  accessKeyId: string;
  secretAccessKey: string;
  /** True when the kept credentials are to be forgotten on save. */
  shouldForgetCredentials: boolean;
  /** Library folder for the next start (shown only where the host can switch it). */
  libraryDir: string;
};

/** Settings page state (plain serialisable data). */
export type SettingsState = {
  /** The settings as last answered (null before the first answer). */
  settings: SettingsDto | null;
  draft: SettingsDraft;
  loadStatus: 'idle' | 'loading' | 'ready' | 'error';
  saveStatus: 'idle' | 'saving' | 'saved' | 'error';
  error: SettingsError | null;
  /** What is wrong with each field (from the form's own checks or the service's error). */
  fieldErrors: Partial<Record<SettingsField, string>>;
};

// The draft showing `s` (credentials empty).
export function draftFrom(s: SettingsDto): SettingsDraft {
  return {
    annotator: s.annotator ?? '',
    fps: String(s.fps),
    quality: s.quality,
    display: s.display ?? '',
    accessibility: s.accessibility,
    countdownS: String(s.countdownS),
    requireLabels: s.requireLabels,
    replayDisplay: s.replayDisplay,
    hotkeyStartStop: s.hotkeys.startStop,
    hotkeyPause: s.hotkeys.pause,
    uploadTarget: s.uploadTarget ?? '',
    uploadEndpoint: s.uploadEndpoint ?? '',
    accessKeyId: '',
    secretAccessKey: '',
    shouldForgetCredentials: false,
    libraryDir: s.libraryDir,
  };
}

// A fresh settings state.
export function initialSettingsState(): SettingsState {
  return {
    settings: null,
    draft: {
      annotator: '',
      fps: '',
      quality: 'standard',
      display: '',
      accessibility: true,
      countdownS: '',
      requireLabels: false,
      replayDisplay: '',
      hotkeyStartStop: '',
      hotkeyPause: '',
      uploadTarget: '',
      uploadEndpoint: '',
      accessKeyId: '',
      secretAccessKey: '',
      shouldForgetCredentials: false,
      libraryDir: '',
    },
    loadStatus: 'idle',
    saveStatus: 'idle',
    error: null,
    fieldErrors: {},
  };
}
