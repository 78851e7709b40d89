// Redaction layer actions: reading a recording's pixel redactions (newest read winning), and the
// "Redact area" draft (box, start, end) applied as an `edits:apply` of a `redact-box` edit
// through the review store's ordered queue (its answer refreshes the recording view; the layer
// reads the redactions again on the new edit version).
import type { StateCreator } from 'zustand';
import { ApiError, getApiClient } from '../../api';
import { defaultRange, draftProblem, type VideoBox } from '../../lib/redaction-box';
import { useReviewStore } from '../review';
import { initialRedactionState, type RedactionError, type RedactionState } from './initialState';

/** Redaction layer actions. */
export type RedactionActions = {
  /** Reads the redactions of recording `id` at edit version `version` (again when it moved). */
  load: (id: string, version: number) => Promise<void>;
  /** Enters "Redact area" mode with the range [nowMs, nowMs + 1 s] and no box yet. */
  startDrawing: (nowMs: number) => void;
  /** The dragged box (video px), or null to draw again. */
  setBox: (box: VideoBox | null) => void;
  /** Sets the range start / end (recording ms). */
  setStart: (ms: number) => void;
  setEnd: (ms: number) => void;
  /** Leaves "Redact area" mode without applying. */
  cancelDrawing: () => void;
  /** Applies the draft to recording `id` as a `redact-box` edit; leaves the mode on success. */
  apply: (id: string) => Promise<void>;
  dismissError: () => void;
  /** Forgets everything (tests). */
  clear: () => void;
};

/** The redaction store type. */
export type RedactionStore = RedactionState & RedactionActions;

function shownError(e: unknown): RedactionError {
  return e instanceof ApiError
    ? { code: e.code, message: e.message, fix: e.fix ?? null }
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}

// The actions slice of the redaction store.
export const createRedactionActions: StateCreator<RedactionStore, [], [], RedactionActions> = (
  set,
  get,
) => {
  const patchDraft = (patch: Partial<NonNullable<RedactionState['draft']>>) =>
    set((s) => (s.draft ? { draft: { ...s.draft, ...patch } } : {}));

  return {
    load: async (id, version) => {
      const s = get();
      if (s.recordingId === id && s.loadedVersion === version) {
        return;
      }
      const seq = s.loadSeq + 1;
      set(
        s.recordingId === id
          ? { loadSeq: seq }
          : { ...initialRedactionState(), recordingId: id, loadSeq: seq },
      );
      try {
        const r = await getApiClient().call('privacy:redactions', { id });
        if (get().loadSeq === seq) {
          set({
            boxes: r.boxes,
            excluded: r.excluded,
            regions: r.regions,
            loadedVersion: version,
          });
        }
      } catch (e) {
        if (get().loadSeq === seq) {
          set({ error: shownError(e) });
        }
      }
    },
    startDrawing: (nowMs) => set({ draft: { box: null, ...defaultRange(nowMs) }, error: null }),
    setBox: (box) => patchDraft({ box }),
    setStart: (ms) => patchDraft({ startMs: Math.max(0, Math.round(ms)) }),
    setEnd: (ms) => patchDraft({ endMs: Math.max(0, Math.round(ms)) }),
    cancelDrawing: () => set({ draft: null, error: null }),
    apply: async (id) => {
      const { draft, applying } = get();
      if (!draft || applying || draftProblem(draft) !== null || !draft.box) {
        return;
      }
      const box = draft.box;
      set({ applying: true, error: null });
      const outcome = await useReviewStore.getState().runRecordingCall((rid, force) =>
        getApiClient().call('edits:apply', {
          id: rid,
          edit: {
            op: 'redact-box',
            stepId: null,
            startMs: draft.startMs,
            endMs: draft.endMs,
            box,
          },
          ...force,
        }),
      );
      if (outcome.state === 'failed') {
        set({ applying: false, error: shownError(outcome.error) });
      } else if (outcome.state === 'done') {
        set({ applying: false, draft: null });
        await get().load(id, outcome.dto.editVersion);
      } else {
        set({ applying: false });
      }
    },
    dismissError: () => set({ error: null }),
    clear: () => set((s) => ({ ...initialRedactionState(), loadSeq: s.loadSeq + 1 })),
  };
};
