// The example recording (or its 10-second clip: example-clip.ts) imported into a library with its
// keyframes computed, built once per test run and copied into each test's library folder. Most
// tests that export, upload or serve it need the import and the keyframes only as set-up; the
// tests of import and of keyframe computation import it the normal way. The template is built by
// the code under test, once per run (run-cache.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importAgentNetFolder } from '../../src/services/import/agentnet-import';
import { openLibrary, type Library } from '../../src/services/library/library';
import { computeKeyframes } from '../../src/services/keyframes/keyframes';
import { exampleClipDir } from './example-clip';
import { FIXTURE_DIR } from './paths';
import { buildOnce, memoized } from './run-cache';

type Template = { dir: string; id: string };
/** Which template: the whole example or its clip, with stored keyframes or as imported. */
type TemplateKey = `${'whole' | 'clip'}-${'keyframes' | 'imported'}`;

const template = memoized(async (key: TemplateKey): Promise<Template> => {
  const isClip = key.startsWith('clip-');
  const withKeyframes = key.endsWith('-keyframes');
  const source = isClip ? await exampleClipDir() : FIXTURE_DIR;
  const built = await buildOnce(`example-library-${key}`, async (work) => {
    const lib = openLibrary(work);
    let id: string;
    try {
      id = (await importAgentNetFolder(lib, source, { appVersion: 'test' })).id;
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
    return { id };
  });
  return { dir: built.dir, id: built.meta.id };
});

/** What the copied library holds besides the imported example recording. */
export type ExampleOptions = {
  /** Its keyframes computed and stored (default true); false: as right after an import. */
  keyframes?: boolean;
  /** The example's first 10 seconds (example-clip.ts: 2 steps) instead of the whole example
   * (122 s, 14 steps); default false. */
  clip?: boolean;
};

/**
 * Copies a library holding the imported example recording (by default with its keyframes
 * computed and stored) into `dir` (created; must not exist or be empty); returns its id.
 */
export async function copyExampleLibrary(
  dir: string,
  options: ExampleOptions = {},
): Promise<string> {
  const t = await template(
    `${options.clip ? 'clip' : 'whole'}-${(options.keyframes ?? true) ? 'keyframes' : 'imported'}`,
  );
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
