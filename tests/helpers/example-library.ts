// The example recording imported into a library with its keyframes computed, built once per test
// run and copied into each test's library folder. Importing it (hashing and parsing) and decoding
// its keyframes cost ~15 s of CPU each time; most tests that export, upload or serve it need that
// only as set-up. The tests of import and of keyframe computation import it the normal way.
//
// The template is built by the first test that asks for it, under a lock, in the run's cache
// folder (CUA_TEST_CACHE_DIR, made by tests/setup/test-cache.ts for each `vitest run`), so it is
// always built by the code under test; without that variable (a file run under another config)
// each test process builds its own.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { openLibrary, type Library } from '../../src/services/library/library';
import { computeKeyframes } from '../../src/services/keyframes/keyframes';
import { FIXTURE_DIR } from './paths';

/** How long a test waits for another process building the template. */
const BUILD_WAIT_MS = 180_000;

type Template = { dir: string; id: string };

let processCache: string | null = null;
const memo = new Map<boolean, Promise<Template>>();

function cacheRoot(): string {
  const shared = process.env.CUA_TEST_CACHE_DIR;
  if (shared && fs.existsSync(shared)) {
    return shared;
  }
  processCache ??= fs.mkdtempSync(path.join(os.tmpdir(), 'cua-test-cache-'));
  return processCache;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function build(root: string, withKeyframes: boolean): Promise<Template> {
  const name = withKeyframes ? 'example-library-keyframes' : 'example-library';
  const done = path.join(root, name);
  const meta = path.join(root, `${name}.json`);
  const read = (): Template => ({
    dir: done,
    id: (JSON.parse(fs.readFileSync(meta, 'utf8')) as { id: string }).id,
  });
  const lock = path.join(root, `${name}.lock`);
  const deadline = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    if (fs.existsSync(meta)) {
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
      throw new Error(`the example library in ${root} was not built within ${BUILD_WAIT_MS} ms`);
    }
    await sleep(100);
  }
  try {
    const work = `${done}.tmp-${process.pid}`;
    fs.rmSync(work, { recursive: true, force: true });
    const lib = openLibrary(work);
    let id: string;
    try {
      id = (await importAgentNetFolder(lib, FIXTURE_DIR, { appVersion: 'test' })).id;
      if (withKeyframes) {
        await computeKeyframes(lib, id);
      }
      lib.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      lib.close();
    }
    for (const f of ['library.sqlite-wal', 'library.sqlite-shm']) {
      fs.rmSync(path.join(work, f), { force: true });
    }
    fs.renameSync(work, done);
    fs.writeFileSync(`${meta}.tmp`, JSON.stringify({ id }));
    fs.renameSync(`${meta}.tmp`, meta);
    return read();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

function template(withKeyframes: boolean): Promise<Template> {
  let built = memo.get(withKeyframes);
  if (!built) {
    built = build(cacheRoot(), withKeyframes).catch((e: unknown) => {
      memo.delete(withKeyframes);
      throw e;
    });
    memo.set(withKeyframes, built);
  }
  return built;
}

/** What the copied library holds besides the imported example recording. */
export type ExampleOptions = {
  /** Its keyframes computed and stored (default true); false: as right after an import. */
  keyframes?: boolean;
};

/**
 * Copies a library holding the imported example recording (by default with its keyframes
 * computed and stored) into `dir` (created; must not exist or be empty); returns its id.
 */
export async function copyExampleLibrary(
  dir: string,
  options: ExampleOptions = {},
): Promise<string> {
  const t = await template(options.keyframes ?? true);
  if (fs.existsSync(dir) && fs.readdirSync(dir).length) {
    throw new Error(`copyExampleLibrary: ${dir} is not empty`);
  }
  fs.cpSync(t.dir, dir, { recursive: true });
  return t.id;
}

/** A temp library holding the example recording (by default with stored keyframes), opened, and
 * its cleanup: like tempLibrary() plus importAgentNetFolder() (and computeKeyframes()). */
export async function exampleLibrary(options: ExampleOptions = {}): Promise<{
  lib: Library;
  dir: string;
  id: string;
  cleanup: () => void;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-lib-'));
  const id = await copyExampleLibrary(dir, options);
  const lib = openLibrary(dir);
  return {
    lib,
    dir,
    id,
    cleanup: () => {
      lib.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
