// Export store actions: configure and run `exports:run`, following `exports:progress` events.
import type { StateCreator } from 'zustand';
import type { ApiEvents } from '../../../shared/contract';
import { ApiError, errorMessage, getApiClient } from '../../api';
import { stepIdsInWarnings } from './selectors';
import { initialExportState, type ExportFormat, type ExportState } from './initialState';

/** Export store actions. */
export type ExportActions = {
  /** Prepares the dialog for these recordings (keeps format and folder). */
  prepare: (ids: string[]) => void;
  setFormat: (format: ExportFormat) => void;
  setOutDir: (outDir: string) => void;
  setOverwrite: (overwrite: boolean) => void;
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
  setOutDir: (outDir) => set({ outDir, existingPath: null }),
  setOverwrite: (overwrite) => set({ overwrite }),
  run: async () => {
    const { ids, format, outDir, status, overwrite } = get();
    if (status === 'running' || ids.length === 0 || outDir.trim() === '') {
      return;
    }
    set({
      status: 'running',
      progress: { done: 0, total: ids.length, recordingId: ids[0] ?? '', phase: 'starting' },
      result: null,
      error: null,
      existingPath: null,
      stepNames: {},
    });
    try {
      const result = await getApiClient().call('exports:run', {
        ids,
        format,
        outDir: outDir.trim(),
        ...(overwrite ? { overwrite: true } : {}),
      });
      set({
        status: 'done',
        result,
        progress: { done: ids.length, total: ids.length, recordingId: '', phase: 'done' },
      });
      // warnings name steps by id: look up their numbers and labels
      const stepNames: ExportState['stepNames'] = {};
      for (const r of result.recordings) {
        if (stepIdsInWarnings(r.warnings).length === 0) {
          continue;
        }
        try {
          const rec = await getApiClient().call('recordings:get', { id: r.id });
          stepNames[r.id] = Object.fromEntries(
            rec.steps.map((st, i) => [
              st.id,
              `Step ${i + 1}${st.label || st.description ? ` · ${st.label || st.description}` : ''}`,
            ]),
          );
        } catch {
          // the warning keeps the id then
        }
      }
      if (Object.keys(stepNames).length > 0 && get().result === result) {
        set({ stepNames });
      }
    } catch (e) {
      const existing =
        e instanceof ApiError &&
        e.code === 'EXPORT_TARGET_EXISTS' &&
        typeof e.details?.path === 'string'
          ? e.details.path
          : null;
      set({
        status: 'error',
        existingPath: existing,
        // the service's message speaks to the command line (--out, --overwrite)
        error:
          existing !== null
            ? `${existing} already exists. Choose another folder, or overwrite it.`
            : errorMessage(e),
      });
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
  dismiss: () =>
    set((s) => ({
      ...s,
      status: 'idle',
      progress: null,
      result: null,
      error: null,
      existingPath: null,
      stepNames: {},
    })),
});
