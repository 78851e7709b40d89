// The export store: the export dialog's run (docs/architecture.md §4).
import { create } from 'zustand';
import { createExportActions, type ExportStore } from './actions';
import { initialExportState } from './initialState';

/** The export store hook. */
export const useExportStore = create<ExportStore>()((...a) => ({
  ...initialExportState(),
  ...createExportActions(...a),
}));

// Puts the export store back to its initial state (tests).
export function resetExportStore(): void {
  useExportStore.setState(useExportStore.getInitialState(), true);
}

export { exportSelectors, EXPORT_FORMAT_LABELS } from './selectors';
export type { ExportState, ExportFormat, ExportResult } from './initialState';
export type { ExportStore, ExportActions } from './actions';
