// Resets every store (the test setup calls this after each test).
import { resetCheckGateStore } from './check';
import { resetCotStore } from './cot';
import { resetExportStore } from './export';
import { resetHealthStore } from './health';
import { resetLibraryStore } from './library';
import { resetPrivacyStore } from './privacy';
import { resetRecorderStore } from './recorder';
import { resetRedactionStore } from './redaction';
import { resetReplayStore } from './replay';
import { resetReviewStore } from './review';
import { resetSettingsStore } from './settings';
import { resetTeamStore } from './team';
import { resetUploadsStore } from './uploads';

// Puts every renderer store back to its initial state.
export function resetAllStores(): void {
  resetLibraryStore();
  resetReviewStore();
  resetExportStore();
  resetUploadsStore();
  resetRecorderStore();
  resetSettingsStore();
  resetHealthStore();
  resetPrivacyStore();
  resetRedactionStore();
  resetCheckGateStore();
  resetReplayStore();
  resetTeamStore();
  resetCotStore();
}
