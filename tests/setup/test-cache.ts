// Vitest global set-up: one cache folder per `vitest run` (CUA_TEST_CACHE_DIR), inherited by
// every test process and removed at the end. tests/helpers/example-library.ts keeps the example
// library template there, built by the code under test in this run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export default function setup(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-test-cache-'));
  process.env.CUA_TEST_CACHE_DIR = dir;
  return () => {
    fs.rmSync(dir, { recursive: true, force: true });
  };
}
