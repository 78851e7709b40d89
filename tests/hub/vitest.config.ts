// Vitest config of the team hub's tests (PGlite, PostgreSQL, argon2, hub and CLI children). The
// main config leaves tests/hub out and `npm test` runs this one after it: a PGlite first open and
// argon2 keep a core busy for seconds, and beside them the X input tests' synthetic floods lose
// whole X RECORD replies inside Xvfb (docs/platform-linux.md §3a; seen in clean-clone runs).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['tests/hub/**/*.test.ts'],
    // as the main config's
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['tests/setup/test-cache.ts'],
    maxWorkers: 2,
    env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
  },
});
