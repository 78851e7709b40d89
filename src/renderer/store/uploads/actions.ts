// Uploads store actions: the upload dialog (`uploads:defaults`, `uploads:enqueue`) and the
// uploads view (`uploads:list`, `uploads:retry`, `uploads:cancel`, `uploads:progress` events).
import type { StateCreator } from 'zustand';
import type { UploadProgressDto, UploadViewDto } from '../../../shared/contract';
import { errorMessage, getApiClient } from '../../api';
import { initialUploadDialog, type UploadsState } from './initialState';

/** Uploads store actions. */
export type UploadsActions = {
  /** Opens the dialog for these recordings and prefills it from the saved target. */
  openDialog: (ids: string[]) => Promise<void>;
  setTarget: (to: string) => void;
  setAnnotator: (annotator: string) => void;
  closeDialog: () => void;
  /** Queues the dialog's recordings; the uploads then run in the background. */
  start: () => Promise<void>;
  /** Lists every upload. */
  load: () => Promise<void>;
  retry: (uploadId: number) => Promise<void>;
  cancel: (uploadId: number) => Promise<void>;
  /** Applies one progress event (reloads the list when an upload reaches an end state). */
  onProgress: (event: UploadProgressDto) => void;
};

/** The uploads store type. */
export type UploadsStore = UploadsState & UploadsActions;

/** Phases after which the listed row has changed status. */
const END_PHASES = new Set<UploadProgressDto['phase']>(['uploaded', 'failed', 'paused']);

// Replaces listed uploads by fresher views (by id), adding new ones at the top.
export function mergeUploadViews(
  current: readonly UploadViewDto[],
  fresh: readonly UploadViewDto[],
): UploadViewDto[] {
  const byId = new Map(fresh.map((u) => [u.uploadId, u]));
  const kept = current.map((u) => byId.get(u.uploadId) ?? u);
  const known = new Set(current.map((u) => u.uploadId));
  return [...fresh.filter((u) => !known.has(u.uploadId)), ...kept];
}

// Applies a progress event to the listed row (status and bytes) and the live progress map.
export function applyUploadProgress(
  s: Pick<UploadsState, 'uploads' | 'progress'>,
  event: UploadProgressDto,
): Pick<UploadsState, 'uploads' | 'progress'> {
  const status: UploadViewDto['status'] | null =
    event.phase === 'manifest' ? 'verifying' : event.phase;
  return {
    progress: { ...s.progress, [event.uploadId]: { ...event } },
    uploads: s.uploads.map((u) =>
      u.uploadId === event.uploadId && u.status !== 'cancelled'
        ? {
            ...u,
            status: status ?? u.status,
            bytesDone: event.bytesDone,
            bytesTotal: event.bytesTotal,
            ...(event.phase === 'uploaded' ? { error: null } : {}),
          }
        : u,
    ),
  };
}

// The actions slice of the uploads store.
export const createUploadsActions: StateCreator<UploadsStore, [], [], UploadsActions> = (
  set,
  get,
) => {
  const setBusy = (uploadId: number, on: boolean) =>
    set((s) => ({
      busy: on ? [...s.busy, uploadId] : s.busy.filter((id) => id !== uploadId),
    }));
  const patchDialog = (patch: Partial<UploadsState['dialog']>) =>
    set((s) => ({ dialog: { ...s.dialog, ...patch } }));
  return {
    openDialog: async (ids) => {
      const keep = get().dialog;
      set({
        dialog: {
          ...initialUploadDialog(),
          open: true,
          ids: [...ids],
          to: keep.to,
          annotator: keep.annotator,
          status: 'loading',
        },
      });
      try {
        const saved = await getApiClient().call('uploads:defaults', {});
        const d = get().dialog;
        patchDialog({
          to: d.to || (saved.to ?? ''),
          annotator: d.annotator || (saved.annotator ?? ''),
          endpoint: saved.endpoint,
          status: 'idle',
        });
      } catch (e) {
        patchDialog({ status: 'idle', error: errorMessage(e) });
      }
    },
    setTarget: (to) => patchDialog({ to }),
    setAnnotator: (annotator) => patchDialog({ annotator }),
    closeDialog: () => patchDialog({ open: false, status: 'idle', error: null }),
    start: async () => {
      const { dialog } = get();
      if (dialog.ids.length === 0 || dialog.status === 'starting') {
        return;
      }
      patchDialog({ status: 'starting', error: null });
      try {
        const views = await getApiClient().call('uploads:enqueue', {
          ids: dialog.ids,
          ...(dialog.to.trim() ? { to: dialog.to.trim() } : {}),
          ...(dialog.annotator.trim() ? { annotator: dialog.annotator.trim() } : {}),
        });
        set((s) => ({ uploads: mergeUploadViews(s.uploads, views) }));
        patchDialog({ status: 'started' });
      } catch (e) {
        patchDialog({ status: 'error', error: errorMessage(e) });
      }
    },
    load: async () => {
      set({ listStatus: 'loading' });
      try {
        const uploads = await getApiClient().call('uploads:list', {});
        set({ uploads, listStatus: 'ready', error: null });
      } catch (e) {
        set({ listStatus: 'error', error: errorMessage(e) });
      }
    },
    retry: async (uploadId) => {
      setBusy(uploadId, true);
      try {
        const view = await getApiClient().call('uploads:retry', { uploadId });
        set((s) => {
          const { [uploadId]: _dropped, ...progress } = s.progress;
          return { uploads: mergeUploadViews(s.uploads, [view]), progress, error: null };
        });
      } catch (e) {
        set({ error: errorMessage(e) });
      } finally {
        setBusy(uploadId, false);
      }
    },
    cancel: async (uploadId) => {
      setBusy(uploadId, true);
      try {
        const view = await getApiClient().call('uploads:cancel', { uploadId });
        set((s) => ({ uploads: mergeUploadViews(s.uploads, [view]), error: null }));
      } catch (e) {
        set({ error: errorMessage(e) });
      } finally {
        setBusy(uploadId, false);
      }
    },
    onProgress: (event) => {
      const known = get().uploads.some((u) => u.uploadId === event.uploadId);
      set((s) => applyUploadProgress(s, event));
      if (!known || END_PHASES.has(event.phase)) {
        void get().load();
      }
    },
  };
};
