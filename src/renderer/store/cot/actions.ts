// CoT store actions: `cot:get` on load, `cot:edit-step` / `cot:edit-summary` on a field left
// changed; each answers the whole view, which replaces the shown one.
import type { StateCreator } from 'zustand';
import type { ApiMethods, CotViewDto } from '../../../shared/contract';
import { errorMessage, getApiClient } from '../../api';
import { useReviewStore } from '../review';
import { initialCotState, type CotState } from './initialState';

type StepTexts = Omit<ApiMethods['cot:edit-step']['input'], 'id' | 'index' | 'force'>;
type SummaryFields = Omit<ApiMethods['cot:edit-summary']['input'], 'id' | 'force'>;

// an accepted recording: edits go through once the user said yes on the review page's prompt
const force = (): { force?: true } => (useReviewStore.getState().forceEdits ? { force: true } : {});

/** CoT store actions. */
export type CotActions = {
  load: (recordingId: string) => Promise<void>;
  editStep: (index: number, texts: StepTexts) => Promise<void>;
  editSummary: (fields: SummaryFields) => Promise<void>;
};

/** The CoT store type. */
export type CotStore = CotState & CotActions;

/** Creates the CoT actions. */
export const createCotActions: StateCreator<CotStore, [], [], CotActions> = (set, get) => {
  const run = async (recordingId: string, call: () => Promise<CotViewDto>) => {
    set({ isLoading: true, error: null });
    try {
      const view = await call();
      if (get().recordingId === recordingId) {
        set({ view, isLoading: false });
      }
    } catch (e) {
      if (get().recordingId === recordingId) {
        set({ isLoading: false, error: errorMessage(e) });
      }
    }
  };
  return {
    load: async (recordingId) => {
      if (get().recordingId !== recordingId) {
        set({ ...initialCotState(), recordingId });
      }
      await run(recordingId, () => getApiClient().call('cot:get', { id: recordingId }));
    },
    editStep: async (index, texts) => {
      const id = get().recordingId;
      if (id) {
        await run(id, () =>
          getApiClient().call('cot:edit-step', { id, index, ...texts, ...force() }),
        );
      }
    },
    editSummary: async (fields) => {
      const id = get().recordingId;
      if (id) {
        await run(id, () => getApiClient().call('cot:edit-summary', { id, ...fields, ...force() }));
      }
    },
  };
};
