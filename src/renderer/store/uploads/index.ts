// The uploads store: the upload dialog and the uploads view (docs/architecture.md §4).
import { create } from 'zustand';
import { createUploadsActions, type UploadsStore } from './actions';
import { initialUploadsState } from './initialState';

/** The uploads store hook. */
export const useUploadsStore = create<UploadsStore>()((...a) => ({
  ...initialUploadsState(),
  ...createUploadsActions(...a),
}));

// Puts the uploads store back to its initial state (tests).
export function resetUploadsStore(): void {
  useUploadsStore.setState(useUploadsStore.getInitialState(), true);
}

export { uploadsSelectors, UPLOAD_STATUS_LABELS } from './selectors';
export { applyUploadProgress, mergeUploadViews } from './actions';
export type { UploadsState, UploadLiveProgress } from './initialState';
export type { UploadsStore, UploadsActions } from './actions';
