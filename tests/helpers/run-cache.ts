// Things the tests of one `vitest run` build once and share: the example library template
// (example-library.ts) and the example's 10-second clip (example-clip.ts). They are built by the
// first test that asks, under a lock, in the run's cache folder (CUA_TEST_CACHE_DIR, made by
// tests/setup/test-cache.ts for each `vitest run`), so they are always built by the code under
// test; without that variable (a file run under another config) each test process builds its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** How long a test waits for another process building the same thing. */
const BUILD_WAIT_MS = 180_000;

let processCache: string | null = null;

/** The run's cache folder (CUA_TEST_CACHE_DIR), else one temp folder for this test process. */
export function runCacheDir(): string {
  const shared = process.env.CUA_TEST_CACHE_DIR;
  if (shared && fs.existsSync(shared)) {
    return shared;
  }
  processCache ??= fs.mkdtempSync(path.join(os.tmpdir(), 'cua-test-cache-'));
  return processCache;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The folder `name` in the run's cache folder and the JSON meta `make` returned for it, built
 * once per run: the first caller runs `make(work)` to fill the empty folder `work` (moved into
 * place when it resolves) under a lock; the others wait for it (up to 180 s) and read the result.
 */
export async function buildOnce<T>(
  name: string,
  make: (work: string) => Promise<T>,
): Promise<{ dir: string; meta: T }> {
  const root = runCacheDir();
  const done = path.join(root, name);
  const metaFile = path.join(root, `${name}.json`);
  const read = () => ({ dir: done, meta: JSON.parse(fs.readFileSync(metaFile, 'utf8')) as T });
  const lock = path.join(root, `${name}.lock`);
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    if (fs.existsSync(metaFile)) {
      return read();
    }
    try {
      fs.mkdirSync(lock);
      break; // ours to build
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw e;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`${name} in ${root} was not built within ${BUILD_WAIT_MS} ms`);
    }
    await sleep(100);
  }
  try {
    const work = `${done}.tmp-${process.pid}`;
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work);
    const meta = await make(work);
    fs.renameSync(work, done);
    fs.writeFileSync(`${metaFile}.tmp`, JSON.stringify(meta));
    fs.renameSync(`${metaFile}.tmp`, metaFile);
    return read();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/** `build` run once per process for each key; a failed build is forgotten (the next call tries
 * again). */
export function memoized<K, T>(build: (key: K) => Promise<T>): (key: K) => Promise<T> {
  const memo = new Map<K, Promise<T>>();
  return (key) => {
    let built = memo.get(key);
    if (!built) {
      built = build(key).catch((e: unknown) => {
        memo.delete(key);
        throw e;
      });
      memo.set(key, built);
    }
    return built;
  };
}
