// The embedded hub's exclusive lock on its data folder. PGlite has no lock of its own: two
// processes opening one data folder both succeed and lose rows (measured), so every opener of
// `--data DIR` takes DIR/hub.lock first. The lock file is created complete and atomically (a
// hard link of a written temp file, which fails if the lock exists); a lock whose process is gone
// (SIGKILL, power loss) is taken over, under a short-lived takeover guard so two openers never
// both take it. docs/team-mode.md §3.
import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../../infra/process-alive';
import { AppError } from '../../shared/errors';

/** The lock's file name inside the data folder. */
export const DATA_LOCK_FILE = 'hub.lock';

/** A takeover guard older than this was left by a crashed opener and is removed. */
const TAKEOVER_STALE_MS = 10_000;
const RETRY_MS = 25;
const MAX_ATTEMPTS = 200;

/** What the lock file records about its holder. */
export type DataLockOwner = {
  pid: number;
  host: string;
  /** What holds it, e.g. `cua-annotator hub` or `cua-annotator hub user add`. */
  holder: string;
  startedAtMs: number;
  /** Random per lock: tells this lock from a later one of the same pid. */
  nonce: string;
  /** Linux: the process's start time in clock ticks (/proc/PID/stat field 22), so a reused pid is
   * not taken for the holder; absent elsewhere. */
  processStart?: string;
};

/** A held lock. */
export type DataLock = {
  path: string;
  owner: DataLockOwner;
  /** Removes the lock if it is still this one; safe to call twice. */
  release: () => Promise<void>;
};

/** Who opens the data folder: the fix of a refusal depends on it. */
export type DataLockPurpose = 'hub' | 'cli';

/** Options of {@link acquireDataLock}. */
export type DataLockOptions = {
  /** Recorded in the lock and named in the refusal, e.g. `cua-annotator hub user add`. */
  holder: string;
  /** `hub` for the server, `cli` for a one-shot command (default). */
  purpose?: DataLockPurpose;
};

// Linux: field 22 of /proc/PID/stat (after the parenthesised command name, which may hold spaces)
function processStartOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(owner: DataLockOwner): boolean {
  if (owner.host !== hostname()) {
    return true; // another machine's process cannot be checked from here
  }
  if (!isProcessAlive(owner.pid)) {
    return false; // gone, or a zombie that holds nothing
  }
  const start = owner.processStart === undefined ? undefined : processStartOf(owner.pid);
  return start === undefined || start === owner.processStart;
}

type LockContent = { raw: string; owner: DataLockOwner | null };

// The lock file's text and, when this code wrote it, its owner; throws ENOENT when it is gone.
async function readLock(file: string): Promise<LockContent> {
  const raw = await readFile(file, 'utf8');
  try {
    const value = JSON.parse(raw) as Partial<DataLockOwner>;
    if (typeof value.pid === 'number' && typeof value.nonce === 'string') {
      const owner: DataLockOwner = {
        pid: value.pid,
        host: String(value.host ?? ''),
        holder: String(value.holder ?? 'unknown'),
        startedAtMs: Number(value.startedAtMs ?? 0),
        nonce: value.nonce,
        ...(value.processStart ? { processStart: value.processStart } : {}),
      };
      return { raw, owner };
    }
  } catch {
    // not JSON: not a lock this code wrote
  }
  return { raw, owner: null };
}

function lockedError(dir: string, file: string, owner: DataLockOwner, purpose: DataLockPurpose) {
  const since = owner.startedAtMs ? new Date(owner.startedAtMs).toISOString() : 'an unknown time';
  const where = owner.host === hostname() ? '' : ` on ${owner.host}`;
  const fix =
    purpose === 'cli'
      ? `If it is a running hub, make the change on its Team page (as an admin), or stop it ` +
        `(Ctrl+C in its terminal, or kill -TERM ${owner.pid}) and run this command again; an ` +
        'embedded hub keeps its data folder to itself.'
      : `Only one hub can use a data folder: stop process ${owner.pid} first, or start this hub ` +
        'with another --data folder.';
  const remote =
    where && ` If no process of ${owner.host} uses it any more, delete ${file} and try again.`;
  return new AppError(
    'HUB_DATA_LOCKED',
    `the hub data folder ${dir} is in use by process ${owner.pid}${where} (${owner.holder}, ` +
      `since ${since})`,
    { dir, lockFile: file, pid: owner.pid, host: owner.host, holder: owner.holder },
    fix + remote,
  );
}

async function tryCreate(file: string, owner: DataLockOwner): Promise<boolean> {
  // written in full beside the lock, then linked into place: the lock never exists half-written
  const temp = `${file}.${owner.nonce}.tmp`;
  await writeFile(temp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  try {
    await link(temp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      return false;
    }
    throw e;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

// Removes the stale lock whose text is `stale` under the takeover guard; false when another
// opener holds the guard (the caller waits and looks again).
async function removeStale(file: string, stale: string): Promise<boolean> {
  const guard = `${file}.takeover`;
  let handle;
  try {
    handle = await open(guard, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw e;
    }
    let age = 0;
    try {
      age = Date.now() - (await stat(guard)).mtimeMs;
    } catch {
      // removed meanwhile: its opener is done
    }
    if (age > TAKEOVER_STALE_MS) {
      await unlink(guard).catch(() => undefined);
    }
    return false;
  }
  try {
    const now = await readLock(file).catch(() => null);
    // still the same stale lock (not one a faster opener has just made): remove it
    if (now?.raw === stale) {
      await unlink(file).catch(() => undefined);
    }
    return true;
  } finally {
    await handle.close();
    await unlink(guard).catch(() => undefined);
  }
}

/** Takes the exclusive lock on the hub data folder `dir` (which must exist), or throws
 * HUB_DATA_LOCKED naming the live holder's pid; a dead holder's lock is taken over. */
export async function acquireDataLock(dir: string, options: DataLockOptions): Promise<DataLock> {
  const file = path.join(dir, DATA_LOCK_FILE);
  const processStart = processStartOf(process.pid);
  const owner: DataLockOwner = {
    pid: process.pid,
    host: hostname(),
    holder: options.holder,
    startedAtMs: Date.now(),
    nonce: randomUUID(),
    ...(processStart ? { processStart } : {}),
  };
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (await tryCreate(file, owner)) {
      return heldLock(file, owner);
    }
    let current: LockContent;
    try {
      current = await readLock(file);
    } catch {
      continue; // removed between our attempt and the read: try again
    }
    if (current.owner && isAlive(current.owner)) {
      throw lockedError(dir, file, current.owner, options.purpose ?? 'cli');
    }
    // a dead holder's lock, or text this code never writes (the lock is always written whole):
    // nobody holds it
    if (!(await removeStale(file, current.raw))) {
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
  throw new AppError(
    'HUB_DATA_LOCKED',
    `could not take the lock ${file}: other processes keep taking it`,
    { dir, lockFile: file },
    'Stop the other cua-annotator hub processes using this data folder and try again.',
  );
}

function heldLock(file: string, owner: DataLockOwner): DataLock {
  let released = false;
  // a process that ends without release (an uncaught error, process.exit) leaves no lock; SIGKILL
  // leaves one, which the next opener takes over
  const onExit = () => {
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as DataLockOwner).nonce === owner.nonce) {
        unlinkSync(file);
      }
    } catch {
      // gone already
    }
  };
  process.once('exit', onExit);
  return {
    path: file,
    owner,
    release: async () => {
      if (released) {
        return;
      }
      released = true;
      process.removeListener('exit', onExit);
      const now = await readLock(file).catch(() => null);
      if (now?.owner?.nonce === owner.nonce) {
        await unlink(file);
      }
    },
  };
}
