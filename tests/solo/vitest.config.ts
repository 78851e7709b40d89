// Vitest config of the tests that must have the machine to themselves, run one file at a time
// after the main run (`npm test`; the main config leaves these files out):
// - tests/faults/trust-input.test.ts loads every core with busy loops on purpose (issue 26 item
//   12), which starves whatever runs beside it;
// - the X input flood tests lose whole X RECORD replies inside Xvfb when a neighbour starves the
//   machine (docs/platform-linux.md §3a; seen in clean-clone runs beside Wine, PGlite and that
//   load test).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** The files this config runs (and the main config excludes). */
export const SOLO_TESTS = [
  'tests/faults/trust-input.test.ts',
  'tests/recorder/input/hook-process.test.ts',
  'tests/recorder/input/x11-record-hook.test.ts',
];

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: SOLO_TESTS,
    // as the main config's
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['tests/setup/test-cache.ts'],
    fileParallelism: false,
    env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
  },
});
