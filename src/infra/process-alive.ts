// Whether a process id names a live process, and which processes hold a file open.
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';

/**
 * Whether a process id names a live process (signal 0; EPERM = alive but not ours). A zombie
 * (ended, not yet reaped by its parent: an init that reaps orphans late keeps them for a while)
 * is not alive: it holds no files and does nothing more.
 */
export function isProcessAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) {
    return false;
  }
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') {
      return false;
    }
  }
  return processState(pid) !== 'Z';
}

// The state letter of /proc/<pid>/stat (R, S, D, Z, …); null where there is no /proc entry
// (gone, or not Linux: then the signal-0 answer stands).
function processState(pid: number): string | null {
  if (process.platform !== 'linux') {
    return null;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count from its closing one
    return stat.charAt(stat.lastIndexOf(')') + 2) || null;
  } catch {
    return null;
  }
}

/**
 * Live processes (other than this one) that have `file` open for writing, e.g. an ffmpeg still
 * finishing a recording whose recorder died (Linux: /proc/<pid>/fd and fdinfo; elsewhere always
 * empty). Readers (a player) are not listed, nor processes we may not inspect.
 */
export function processesWritingFile(file: string): number[] {
  if (process.platform !== 'linux') {
    return [];
  }
  let target: string;
  try {
    target = realpathSync(file);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of safeReaddir('/proc')) {
    const pid = Number(entry);
    if (!/^\d+$/.test(entry) || pid === process.pid) {
      continue;
    }
    const fdDir = `/proc/${entry}/fd`;
    const holds = safeReaddir(fdDir).some((fd) => {
      try {
        return readlinkSync(`${fdDir}/${fd}`) === target && isOpenForWriting(entry, fd);
      } catch {
        return false;
      }
    });
    if (holds && isProcessAlive(pid)) {
      pids.push(pid);
    }
  }
  return pids;
}

// The access mode in the octal `flags:` line of /proc/<pid>/fdinfo/<fd>: O_WRONLY (1) or
// O_RDWR (2).
function isOpenForWriting(pid: string, fd: string): boolean {
  const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'));
  return flags !== null && (parseInt(flags[1]!, 8) & 3) !== 0;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
