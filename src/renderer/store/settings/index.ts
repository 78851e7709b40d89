// The settings store: the settings page (docs/architecture.md §4).
import { create } from 'zustand';
import { createSettingsActions, type SettingsStore } from './actions';
import { initialSettingsState } from './initialState';

/** The settings store hook. */
export const useSettingsStore = create<SettingsStore>()((...a) => ({
  ...initialSettingsState(),
  ...createSettingsActions(...a),
}));

// Puts the settings store back to its initial state (tests).
export function resetSettingsStore(): void {
  useSettingsStore.setState(useSettingsStore.getInitialState(), true);
}

export { settingsSelectors } from './selectors';
export { buildSettingsPatch, settingsFieldOf } from './reducers';
export { draftFrom, SETTINGS_FIELDS } from './initialState';
export type { SettingsStore, SettingsActions } from './actions';
export type { SettingsState, SettingsDraft, SettingsField, SettingsError } from './initialState';
