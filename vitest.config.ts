import { defineConfig } from 'vitest/config';
import { SOLO_TESTS } from './tests/solo/vitest.config';

export default defineConfig({
  test: {
    // .tsx: the renderer's component and page tests (tests/renderer/{components,pages}), each
    // choosing happy-dom with a `// @vitest-environment happy-dom` docblock; the rest run in Node
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    // tests/e2e, tests/hub and the tests that need the machine to themselves (tests/solo) have
    // configs of their own, run after this one (`npm test`)
    exclude: ['tests/e2e/**', 'tests/hub/**', ...SOLO_TESTS, 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // one cache folder per run (the example library template: tests/helpers/example-library.ts)
    globalSetup: ['tests/setup/test-cache.ts'],
    // two files at a time: vitest's default (cores − 1) runs them one by one on a 2-core CI
    // machine, and most files wait on processes (ffmpeg, Xvfb, Swift) rather than compute
    // (a clean-clone run: 1,049 s one at a time, 767 s two at a time)
    maxWorkers: 2,
    // CLI children (bin/cua-annotator.mjs) run the sources under test, not the last build of
    // out/node (tests/e2e/built-cli.test.ts tests a fresh build)
    env: { CUA_ANNOTATOR_FROM_SOURCE: '1' },
  },
});
