// Derived values of the settings store.
import type { SettingsState } from './initialState';
import { buildSettingsPatch } from './reducers';

/** Selectors of the settings store. */
export const settingsSelectors = {
  /** True when the draft differs from the saved settings (or holds something to check). */
  isDirty: (s: SettingsState): boolean => {
    if (!s.settings) {
      return false;
    }
    const { patch, errors } = buildSettingsPatch(s.settings, s.draft);
    return Object.keys(patch).length > 0 || Object.keys(errors).length > 0;
  },
  canSave: (s: SettingsState): boolean =>
    s.settings !== null && s.saveStatus !== 'saving' && settingsSelectors.isDirty(s),
};
