// Decoder children die with their parent, whatever kills it (docs/architecture.md §5):
// - on Linux they start through util-linux `setpriv --pdeathsig KILL`, so the kernel SIGKILLs
//   them when we die, even by SIGKILL (an ffmpeg blocked opening a named pipe whose reader is
//   gone would otherwise wait forever; it ignores SIGTERM there);
// - an 'exit' hook SIGKILLs whatever is still running and removes our temp folders;
// - temp folders carry our pid (`cua-frames-<pid>-…`): folders of dead processes are removed by
//   the next decode of any process ({@link sweepStaleTempDirs}).
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants, rmSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let isHookInstalled = false;
let setprivPath: string | null | undefined;

function installExitHook(): void {
  if (isHookInstalled) {
    return;
  }
  isHookInstalled = true;
  process.once('exit', () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
      }
    }
    for (const dir of tempDirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Registers a running child to be SIGKILLed on exit; returns the unregister function. */
export function killOnExit(child: ChildProcess): () => void {
  installExitHook();
  children.add(child);
  return () => {
    children.delete(child);
  };
}

// util-linux setpriv on this machine (Linux only), or null: then no parent-death signal is set.
function findSetpriv(): string | null {
  if (setprivPath !== undefined) {
    return setprivPath;
  }
  setprivPath = null;
  if (process.platform === 'linux') {
    for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv']) {
      try {
        accessSync(candidate, fsConstants.X_OK);
        setprivPath = candidate;
        break;
      } catch {
        // try the next location
      }
    }
  }
  return setprivPath;
}

// True when `command` (a path, or a name looked up in PATH) is an executable file.
function isExecutable(command: string): boolean {
  const candidates = command.includes(path.sep)
    ? [command]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((d) => path.join(d, command));
  return candidates.some((c) => {
    try {
      accessSync(c, fsConstants.X_OK);
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

/** `[command, args]` wrapped so the kernel SIGKILLs the child when we die (Linux + setpriv). */
export function withParentDeathSignal(
  command: string,
  args: readonly string[],
): [string, string[]] {
  const setpriv = findSetpriv();
  // setpriv execs the command: the pid, stdio and exit status stay the command's own; a command
  // that cannot run is spawned as is, so that the spawn itself fails (ENOENT, EACCES) as before
  return setpriv === null || !isExecutable(command)
    ? [command, [...args]]
    : [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]];
}

const TEMP_PREFIX = 'cua-frames-';
const TEMP_NAME = /^cua-frames-(\d+)-/;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
