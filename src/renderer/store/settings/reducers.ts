// Pure parts of the settings store: the patch a draft makes (only changed fields, checked
// numbers), and which form field a service error names.
import type { SettingsDto, SettingsPatch } from '../../../shared/contract';
import type { SettingsDraft, SettingsField } from './initialState';
import { SETTINGS_FIELDS } from './initialState';

/** The patch of a draft, or the fields the form itself finds wrong. */
export type PatchResult = {
  patch: SettingsPatch;
  errors: Partial<Record<SettingsField, string>>;
};

const orNull = (text: string): string | null => (text.trim() === '' ? null : text.trim());

function wholeNumber(text: string, min: number, max: number): number | null {
  const t = text.trim();
  if (!/^\d+$/.test(t)) {
    return null;
  }
  const n = Number(t);
  return n >= min && n <= max ? n : null;
}

// The changes of `draft` against `saved`; numbers out of range are errors, not sent.
export function buildSettingsPatch(saved: SettingsDto, draft: SettingsDraft): PatchResult {
  const patch: SettingsPatch = {};
  const errors: PatchResult['errors'] = {};
  const annotator = orNull(draft.annotator);
  if (annotator !== saved.annotator) {
    patch.annotator = annotator;
  }
  const fps = wholeNumber(draft.fps, 1, 60);
  if (fps === null) {
    errors.fps = 'must be a whole number from 1 to 60';
  } else if (fps !== saved.fps) {
    patch.fps = fps;
  }
  if (draft.quality !== saved.quality) {
    patch.quality = draft.quality;
  }
  const display = orNull(draft.display);
  if (display !== saved.display) {
    patch.display = display;
  }
  if (draft.accessibility !== saved.accessibility) {
    patch.accessibility = draft.accessibility;
  }
  if (draft.requireLabels !== saved.requireLabels) {
    patch.requireLabels = draft.requireLabels;
  }
  const replayDisplay = draft.replayDisplay.trim();
  if (replayDisplay !== saved.replayDisplay) {
    patch.replayDisplay = replayDisplay;
  }
  const countdownS = wholeNumber(draft.countdownS, 0, 10);
  if (countdownS === null) {
    errors.countdownS = 'must be a whole number of seconds from 0 to 10';
  } else if (countdownS !== saved.countdownS) {
    patch.countdownS = countdownS;
  }
  const hotkeys = { startStop: draft.hotkeyStartStop.trim(), pause: draft.hotkeyPause.trim() };
  if (hotkeys.startStop === '') {
    errors['hotkeys.startStop'] = 'must not be empty';
  }
  if (hotkeys.pause === '') {
    errors['hotkeys.pause'] = 'must not be empty';
  }
  if (hotkeys.startStop !== saved.hotkeys.startStop || hotkeys.pause !== saved.hotkeys.pause) {
    patch.hotkeys = hotkeys;
  }
  const uploadTarget = orNull(draft.uploadTarget);
  if (uploadTarget !== saved.uploadTarget) {
    patch.uploadTarget = uploadTarget;
  }
  const uploadEndpoint = orNull(draft.uploadEndpoint);
  if (uploadEndpoint !== saved.uploadEndpoint) {
    patch.uploadEndpoint = uploadEndpoint;
  }
  const accessKeyId = draft.accessKeyId.trim();
  const secretAccessKey = draft.secretAccessKey.trim();
  if (accessKeyId !== '' || secretAccessKey !== '') {
    if (accessKeyId === '' || secretAccessKey === '') {
      errors.uploadCredentials = 'needs both the access key id and the secret access key';
    } else {
      patch.uploadCredentials = { accessKeyId, secretAccessKey };
    }
  } else if (draft.shouldForgetCredentials) {
    patch.uploadCredentials = null;
  }
  const libraryDir = draft.libraryDir.trim();
  if (saved.canChangeLibrary && libraryDir !== saved.libraryDir) {
    if (libraryDir === '') {
      errors.libraryDir = 'must not be empty';
    } else {
      patch.libraryDir = libraryDir;
    }
  }
  return { patch, errors };
}

// The form field a service error's field path names (`hotkeys.pause`, `uploadCredentials.x`),
// else null (the error is about the whole form).
export function settingsFieldOf(path: string | null): SettingsField | null {
  if (path === null) {
    return null;
  }
  const known = SETTINGS_FIELDS.find((f) => path === f || path.startsWith(`${f}.`));
  if (known) {
    return known;
  }
  if (path === 'hotkeys') {
    return 'hotkeys.startStop';
  }
  return path.startsWith('uploadCredentials') ? 'uploadCredentials' : null;
}
