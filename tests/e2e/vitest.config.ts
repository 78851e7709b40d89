// Vitest config of the browser end-to-end tests (Debian Chromium + `cua-annotator serve`); the
// main config leaves tests/e2e out, `npm test` runs this one after it.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['tests/e2e/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // one cache folder per run (the example library template: tests/helpers/example-library.ts)
    globalSetup: ['tests/setup/test-cache.ts'],
    // one file at a time: the first one builds out/renderer when it is missing
    fileParallelism: false,
    // `serve` children run the sources under test; built-cli.test.ts builds and runs the bundle
    env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
  },
});
