// Export store actions: configure and run `exports:run`, following `exports:progress` events.
import type { StateCreator } from 'zustand';
import type { ApiEvents } from '../../../shared/contract';
import { errorMessage, getApiClient } from '../../api';
import { initialExportState, type ExportFormat, type ExportState } from './initialState';

/** Export store actions. */
export type ExportActions = {
  /** Prepares the dialog for these recordings (keeps format and folder). */
  prepare: (ids: string[]) => void;
  setFormat: (format: ExportFormat) => void;
  setOutDir: (outDir: string) => void;
  /** Runs the export; progress events update the state meanwhile. */
  run: () => Promise<void>;
  /** Applies one progress event (ignored when no export runs or it is for other recordings). */
  onProgress: (event: ApiEvents['exports:progress']) => void;
  /** Back to the form. */
  dismiss: () => void;
};

/** The export store type. */
export type ExportStore = ExportState & ExportActions;

// The actions slice of the export store.
export const createExportActions: StateCreator<ExportStore, [], [], ExportActions> = (
  set,
  get,
) => ({
  prepare: (ids) =>
    set((s) => ({
      ...initialExportState(),
      format: s.format,
      outDir: s.outDir,
      ids: [...ids],
    })),
  setFormat: (format) => set({ format }),
  setOutDir: (outDir) => set({ outDir }),
  run: async () => {
    const { ids, format, outDir, status } = get();
    if (status === 'running' || ids.length === 0 || outDir.trim() === '') {
      return;
    }
    set({
      status: 'running',
      progress: { done: 0, total: ids.length, recordingId: ids[0] ?? '', phase: 'starting' },
      result: null,
      error: null,
    });
    try {
      const result = await getApiClient().call('exports:run', {
        ids,
        format,
        outDir: outDir.trim(),
      });
      set({
        status: 'done',
        result,
        progress: { done: ids.length, total: ids.length, recordingId: '', phase: 'done' },
      });
    } catch (e) {
      set({ status: 'error', error: errorMessage(e) });
    }
  },
  onProgress: (event) => {
    const s = get();
    if (
      s.status !== 'running' ||
      (event.recordingId !== '' && !s.ids.includes(event.recordingId))
    ) {
      return;
    }
    set({ progress: { ...event } });
  },
  dismiss: () => set((s) => ({ ...s, status: 'idle', progress: null, result: null, error: null })),
});
