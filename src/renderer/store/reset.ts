// Resets every store (the test setup calls this after each test).
import { resetExportStore } from './export';
import { resetLibraryStore } from './library';
import { resetReviewStore } from './review';
import { resetUploadsStore } from './uploads';

// Puts every renderer store back to its initial state.
export function resetAllStores(): void {
  resetLibraryStore();
  resetReviewStore();
  resetExportStore();
  resetUploadsStore();
}
