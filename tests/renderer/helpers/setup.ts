// Renderer test setup: every store back to its initial state and the real api client restored
// after each test (docs/architecture.md §4: the test setup resets stores). Import it first in store
// and api tests.
import { afterEach } from 'vitest';
import { setApiClient } from '../../../src/renderer/api';
import { resetAllStores } from '../../../src/renderer/store/reset';

afterEach(() => {
  resetAllStores();
  setApiClient(null);
});
