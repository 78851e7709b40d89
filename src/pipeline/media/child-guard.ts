// Temp folders of the frame decoders (docs/architecture.md §5). Their children's guards (the
// parent-death signal and the kill-on-exit registry) live in src/infra; what stays here is the
// decoders' own cleanup:
// - an 'exit' hook removes our temp folders;
// - temp folders carry our pid (`cua-frames-<pid>-…`): folders of dead processes are removed by
//   the next decode of any process ({@link sweepStaleTempDirs}).
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../../infra/process-alive';

const tempDirs = new Set<string>();
let isHookInstalled = false;

function installExitHook(): void {
  if (isHookInstalled) {
    return;
  }
  isHookInstalled = true;
  process.once('exit', () => {
    for (const dir of tempDirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

const TEMP_PREFIX = 'cua-frames-';
const TEMP_NAME = /^cua-frames-(\d+)-/;

/** A new temp folder `cua-frames-<our pid>-XXXXXX`, removed on exit if still there. */
export async function makeTempDir(): Promise<string> {
  installExitHook();
  const dir = await mkdtemp(path.join(os.tmpdir(), `${TEMP_PREFIX}${process.pid}-`));
  tempDirs.add(dir);
  return dir;
}

/** Removes a folder made by {@link makeTempDir} (idempotent). */
export async function removeTempDir(dir: string): Promise<void> {
  tempDirs.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/** Removes `cua-frames-<pid>-*` folders of processes that are gone; returns their names. */
export async function sweepStaleTempDirs(): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(os.tmpdir());
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (m && Number(m[1]) !== process.pid && !isProcessAlive(Number(m[1]))) {
      await rm(path.join(os.tmpdir(), name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
