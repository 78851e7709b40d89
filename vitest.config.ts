import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // two test files at a time: most files wait on X, ffmpeg, D-Bus or Chromium rather than the
    // CPU, so on the 2-core CI machine the suite takes ~8 min instead of ~12 (vitest's default
    // there is one worker); measured green with the timing-sensitive tests included
    maxWorkers: 2,
    // CLI children (bin/cua-annotator.mjs) run the sources under test, not the last build of
    // out/node (tests/e2e/built-cli.test.ts tests a fresh build)
    env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
  },
});
