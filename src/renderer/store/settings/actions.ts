// Settings store actions: `settings:get` on load, `settings:set` with the changed fields on save;
// a refused save shows the service's message (and fix) at the field it names.
import type { StateCreator } from 'zustand';
import { ApiError, getApiClient } from '../../api';
import {
  draftFrom,
  type SettingsDraft,
  type SettingsField,
  type SettingsState,
} from './initialState';
import { buildSettingsPatch, settingsFieldOf } from './reducers';

/** Settings store actions. */
export type SettingsActions = {
  load: () => Promise<void>;
  /** Changes one draft field (clearing its error). */
  setField: <K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]) => void;
  /** Sends the changed fields; on success the form shows what the service kept. */
  save: () => Promise<void>;
  /** Puts the draft back to the saved settings. */
  revert: () => void;
};

/** The settings store type. */
export type SettingsStore = SettingsState & SettingsActions;

/** The error fields each draft field clears when edited. */
const FIELD_OF_DRAFT: Record<keyof SettingsDraft, SettingsField> = {
  annotator: 'annotator',
  fps: 'fps',
  quality: 'quality',
  display: 'display',
  accessibility: 'accessibility',
  countdownS: 'countdownS',
  requireLabels: 'requireLabels',
  replayDisplay: 'replayDisplay',
  hotkeyStartStop: 'hotkeys.startStop',
  hotkeyPause: 'hotkeys.pause',
  uploadTarget: 'uploadTarget',
  uploadEndpoint: 'uploadEndpoint',
  accessKeyId: 'uploadCredentials',
  secretAccessKey: 'uploadCredentials',
  shouldForgetCredentials: 'uploadCredentials',
  libraryDir: 'libraryDir',
};

function toError(e: unknown): { code: string; message: string; fix: string | null } {
  if (e instanceof ApiError) {
    return { code: e.code, message: e.message, fix: e.fix ?? null };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}

// The actions slice of the settings store.
export const createSettingsActions: StateCreator<SettingsStore, [], [], SettingsActions> = (
  set,
  get,
) => ({
  load: async () => {
    set({ loadStatus: 'loading', error: null });
    try {
      const settings = await getApiClient().call('settings:get', {});
      set({ settings, draft: draftFrom(settings), loadStatus: 'ready', fieldErrors: {} });
    } catch (e) {
      set({ loadStatus: 'error', error: toError(e) });
    }
  },
  setField: (key, value) =>
    set((s) => {
      const { [FIELD_OF_DRAFT[key]]: _cleared, ...fieldErrors } = s.fieldErrors;
      return {
        draft: { ...s.draft, [key]: value },
        fieldErrors,
        saveStatus: s.saveStatus === 'saving' ? 'saving' : 'idle',
      };
    }),
  save: async () => {
    const { settings, draft, saveStatus } = get();
    if (!settings || saveStatus === 'saving') {
      return;
    }
    const { patch, errors } = buildSettingsPatch(settings, draft);
    if (Object.keys(errors).length > 0) {
      set({ fieldErrors: errors, saveStatus: 'error', error: null });
      return;
    }
    if (Object.keys(patch).length === 0) {
      set({ saveStatus: 'saved', error: null, fieldErrors: {} });
      return;
    }
    set({ saveStatus: 'saving', error: null, fieldErrors: {} });
    try {
      const saved = await getApiClient().call('settings:set', patch);
      set({ settings: saved, draft: draftFrom(saved), saveStatus: 'saved' });
    } catch (e) {
      const field = e instanceof ApiError ? settingsFieldOf(e.field) : null;
      set({
        saveStatus: 'error',
        error: toError(e),
        fieldErrors: field ? { [field]: e instanceof Error ? e.message : String(e) } : {},
      });
    }
  },
  revert: () =>
    set((s) => ({
      draft: s.settings ? draftFrom(s.settings) : s.draft,
      fieldErrors: {},
      error: null,
      saveStatus: 'idle',
    })),
});
