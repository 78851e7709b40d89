// One export at a time per output folder: an export holds `<out>/.cua-export.lock` (created
// exclusively, holding its pid) while it checks for existing outputs, commits its staging folder
// and recovers the staging folders of dead exports, so two exports into one folder never both
// "succeed" with one lost, nor collide on the same renames. A lock whose process is gone, or that
// nobody touched for a day (the pid may have been reused), is stale and is taken over. A second
// export waits a few seconds for the lock and then fails with EXPORT_TARGET_BUSY.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { isProcessAlive } from '../../infra/process-alive';
import { errnoOf } from './export-target';

// name of the lock file inside an output folder
const LOCK_NAME = '.cua-export.lock';
// taking over a stale lock is itself guarded by this exclusive file, so two exports that both
// saw the same stale lock cannot remove a fresh lock taken meanwhile by one of them
const BREAK_SUFFIX = '.break';
const STALE_AFTER_MS = 24 * 60 * 60 * 1000;
// a lock file created but not yet holding its pid (the holder died in between) after this long
const EMPTY_STALE_MS = 10_000;
// the holder touches its lock this often, so a long export's lock never looks a day old
const TOUCH_EVERY_MS = 60 * 60 * 1000;
// how long an export waits for a folder another export is writing to
const LOCK_WAIT_MS = 5000;
const POLL_MS = 100;

/** Releases a held lock (idempotent). */
export type ReleaseLock = () => Promise<void>;

type Seen = { text: string; ino: number; stale: boolean; pid: number | null };

// Reads the lock at `file`: null when it is gone.
async function inspect(file: string): Promise<Seen | null> {
  try {
    const st = await fs.stat(file);
    const text = await fs.readFile(file, 'utf8');
    const pid = /^(\d+)\b/.exec(text)?.[1];
    const age = Date.now() - st.mtimeMs;
    const stale =
      pid === undefined
        ? age > EMPTY_STALE_MS
        : !isProcessAlive(Number(pid)) || age > STALE_AFTER_MS;
    return { text, ino: st.ino, stale, pid: pid === undefined ? null : Number(pid) };
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') {
      return null;
    }
    throw e;
  }
}

// Creates `file` exclusively with `content`; false when it exists.
async function create(file: string, content: string): Promise<boolean> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'wx');
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') {
      return false;
    }
    throw e;
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

// Removes the stale lock `seen` at `file` unless it changed meanwhile.
async function breakStale(file: string, seen: Seen): Promise<void> {
  const guard = file + BREAK_SUFFIX;
  if (!(await create(guard, `${process.pid}\n`))) {
    const other = await inspect(guard);
    if (other?.stale) {
      await fs.rm(guard, { force: true }); // its taker died within these few lines
    }
    return;
  }
  try {
    const now = await inspect(file);
    if (now && now.stale && now.ino === seen.ino && now.text === seen.text) {
      await fs.rm(file, { force: true });
    }
  } finally {
    await fs.rm(guard, { force: true });
  }
}

/**
 * Takes the export lock of `outDir` (which exists), waiting up to LOCK_WAIT_MS while a live export
 * holds it; throws EXPORT_TARGET_BUSY after that.
 */
export async function acquireExportLock(outDir: string): Promise<ReleaseLock> {
  const file = path.join(outDir, LOCK_NAME);
  const content = `${process.pid}\n${randomBytes(8).toString('hex')}\n`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    if (await create(file, content)) {
      break;
    }
    const seen = await inspect(file);
    if (seen === null) {
      continue; // released meanwhile
    }
    if (seen.stale) {
      await breakStale(file, seen);
      continue;
    }
    const holder = seen.pid;
    if (Date.now() >= deadline) {
      throw new AppError(
        'EXPORT_TARGET_BUSY',
        `Another export${holder === null ? '' : ` (process ${holder})`} is writing to ${outDir}; nothing was exported.`,
        { outDir, pid: holder },
        `Another export is writing to ${outDir}; wait for it or choose another --out.`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const touch = setInterval(() => {
    const now = new Date();
    fs.utimes(file, now, now).catch(() => undefined);
  }, TOUCH_EVERY_MS);
  touch.unref();
  let released = false;
  return async () => {
    if (released) {
      return;
    }
    released = true;
    clearInterval(touch);
    // remove it only while it is still ours (a lock taken over as stale is not)
    const text = await fs.readFile(file, 'utf8').catch(() => null);
    if (text === content) {
      await fs.rm(file, { force: true });
    }
  };
}
