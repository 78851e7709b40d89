// The repository's example recordings (examples/) and writable temp copies of them for tests that
// modify files.
import { existsSync } from 'node:fs';
import { chmod, cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

// The examples live in the repository: nothing outside it is read at test time.
const FIXTURE_ROOT_CANDIDATES = [path.join(REPO_ROOT, 'examples')];

/** A writable temp copy of a fixture folder. */
export type FixtureCopy = {
  /** Absolute path of the copied folder (same folder name as the fixture). */
  dir: string;
  /** Removes the temp copy. */
  cleanup: () => Promise<void>;
};

/** Absolute path of an example recording, e.g. `agentnet-raw/win10-display-settings`. */
export function fixturePath(relative: string): string {
  for (const root of FIXTURE_ROOT_CANDIDATES) {
    const candidate = path.join(root, relative);
    if (existsSync(candidate)) {
      return candidate;
    }
  }
  throw new Error(`fixture ${relative} not found under ${FIXTURE_ROOT_CANDIDATES.join(', ')}`);
}

/** Copies an example folder to a fresh temp dir and makes every copied entry writable. */
export async function copyFixture(relative: string): Promise<FixtureCopy> {
  const source = fixturePath(relative);
  const tempRoot = await mkdtemp(path.join(os.tmpdir(), 'cua-fixture-'));
  const dir = path.join(tempRoot, path.basename(source));
  await cp(source, dir, { recursive: true });
  await makeWritable(dir);
  return {
    dir,
    cleanup: async () => {
      await rm(tempRoot, { recursive: true, force: true });
    },
  };
}

// A checkout may be read-only; fs.cp keeps the modes, so open them up again.
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      await makeWritable(full);
    } else if (entry.isFile()) {
      await chmod(full, 0o644);
    }
  }
}
