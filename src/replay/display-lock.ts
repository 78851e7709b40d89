// One replay per display (issue 26 item 21; docs/replay.md §5): a lock file per X server (keyed
// by displayIdentity's key, so `:5`, `:5.0` and `unix:5` share one), created atomically (a hard
// link of a written file: the link fails when the lock exists), released when the run ends or
// its process exits; a lock whose process is gone (killed: pid dead, or reused by a process
// started later) is stale and taken over.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../shared/errors';
import { isProcessAlive } from '../infra/process-alive';
import { replayLockDir } from './display-identity';

/** What a lock file holds. */
export type DisplayLockInfo = {
  pid: number;
  /** /proc/<pid>/stat start time (clock ticks since boot), null off Linux. */
  processStart: number | null;
  /** The display as the holder named it. */
  display: string;
  /** The recording it replays. */
  recording: string;
  startedAt: string;
  /** Random: the holder's own lock (released only by it). */
  token: string;
};

/** A held lock. */
export type DisplayLock = {
  /** The lock file. */
  file: string;
  /** Removes the lock (once; a lock taken over meanwhile is left alone). */
  release(): Promise<void>;
};

function processStart(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return Number.isFinite(start) ? start : null;
  } catch {
    return null;
  }
}

/** True when the lock's process still runs (the same process: its start time matches). */
function isHeld(info: DisplayLockInfo | null): boolean {
  if (info === null || !isProcessAlive(info.pid)) {
    return false;
  }
  const start = processStart(info.pid);
  return info.processStart === null || start === null || start === info.processStart;
}

async function readInfo(file: string): Promise<DisplayLockInfo | null> {
  try {
    const info = JSON.parse(await fsp.readFile(file, 'utf8')) as DisplayLockInfo;
    return typeof info.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** The lock file of an X server key (`:5`). */
export function displayLockFile(key: string, dir = replayLockDir()): string {
  return path.join(dir, `display-${key.replace(/[^A-Za-z0-9.-]/g, '_')}.lock`);
}

function busy(display: string, holder: DisplayLockInfo | null): AppError {
  const who = holder
    ? `a replay of recording ${holder.recording} (process ${holder.pid}, since ${holder.startedAt}, ` +
      `on ${holder.display})`
    : 'another replay';
  return new AppError(
    'REPLAY_DISPLAY_BUSY',
    `${who} is driving ${display}: one replay runs per display`,
    { display, pid: holder?.pid ?? null, recording: holder?.recording ?? null },
    'Wait for that replay to end (or stop it), or replay on another virtual display.',
  );
}

/**
 * Throws REPLAY_DISPLAY_BUSY when a live replay holds the lock of X server `key` (a check before
 * a replay is started in the background, so the refusal is answered at once; the run itself
 * takes the lock with {@link acquireDisplayLock}).
 */
export async function assertDisplayFree(
  key: string,
  display: string,
  dir = replayLockDir(),
): Promise<void> {
  const holder = await readInfo(displayLockFile(key, dir));
  if (isHeld(holder)) {
    throw busy(display, holder);
  }
}

/**
 * Takes the lock of X server `key` for this process, or throws REPLAY_DISPLAY_BUSY naming the
 * replay holding it. Stale locks (their process gone) are taken over.
 */
export async function acquireDisplayLock(
  key: string,
  what: { display: string; recording: string },
  dir = replayLockDir(),
): Promise<DisplayLock> {
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const file = displayLockFile(key, dir);
  const info: DisplayLockInfo = {
    pid: process.pid,
    processStart: processStart(process.pid),
    display: what.display,
    recording: what.recording,
    startedAt: new Date().toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  const tmp = `${file}.${process.pid}.${info.token}.tmp`;
  await fsp.writeFile(tmp, `${JSON.stringify(info)}\n`);
  try {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        await fsp.link(tmp, file);
        return held(file, info.token);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw error;
        }
      }
      const holder = await readInfo(file);
      if (isHeld(holder)) {
        throw busy(what.display, holder);
      }
      // stale (or half-written by a holder that died at once): move it aside atomically, so of
      // two processes taking it over only one succeeds; a live lock moved by mistake goes back
      const aside = `${file}.${process.pid}.${info.token}.stale`;
      try {
        await fsp.rename(file, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          continue;
        }
        throw error;
      }
      const moved = await readInfo(aside);
      if (isHeld(moved)) {
        await fsp.link(aside, file).catch(() => undefined);
        await fsp.rm(aside, { force: true });
        throw busy(what.display, moved);
      }
      await fsp.rm(aside, { force: true });
    }
    throw busy(what.display, await readInfo(file));
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

function held(file: string, token: string): DisplayLock {
  let isReleased = false;
  // a process that exits without its finally (process.exit in a signal handler) frees it too
  const onExit = () => removeIfOurs(file, token);
  process.once('exit', onExit);
  return {
    file,
    release() {
      if (!isReleased) {
        isReleased = true;
        process.off('exit', onExit);
        removeIfOurs(file, token);
      }
      return Promise.resolve();
    },
  };
}

function removeIfOurs(file: string, token: string): void {
  try {
    const info = JSON.parse(fs.readFileSync(file, 'utf8')) as DisplayLockInfo;
    if (info.token === token) {
      fs.rmSync(file, { force: true });
    }
  } catch {
    // gone already
  }
}
