import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // CLI children (bin/cua-annotator.mjs) run the sources under test, not the last build of
    // out/node (tests/e2e/built-cli.test.ts tests a fresh build)
    env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
  },
});
