// The one parent-death-signal path (docs/architecture.md §5): on Linux a child started through
// util-linux `setpriv --pdeathsig <sig>` gets that signal from the kernel when we die, even when
// we are SIGKILLed or crash. setpriv execs the command, so the pid, stdio and exit status stay the
// command's own. Elsewhere (or without setpriv) the command runs as is.
//
// The kernel sends the parent-death signal once per thread of ours that exits while it holds the
// child: the child is handed from the dying thread to a live sibling thread, with the signal each
// time, and last to init. A SIGKILLed Node (7 threads) signals it 2–4 times (measured). That is
// harmless for SIGKILL, but not for a signal the child handles: ffmpeg finishes its file on the
// first SIGINT/SIGTERM and treats a second one as "exit immediately", which aborts every write
// still to come, so the fragment under way and the trailer were never written. Signals other
// than SIGKILL therefore come from a watcher process instead ({@link parentDeathWatcherCommand}),
// which sends them exactly once.
import { accessSync, constants as fsConstants, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

let setprivPath: string | null | undefined;

/** util-linux setpriv on this machine (Linux only), or null: then no parent-death signal is set. */
export function findSetpriv(): string | null {
  if (setprivPath !== undefined) {
    return setprivPath;
  }
  setprivPath = null;
  if (process.platform === 'linux') {
    for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv']) {
      if (isExecutableFile(candidate)) {
        setprivPath = candidate;
        break;
      }
    }
  }
  return setprivPath;
}

/** Options of {@link withParentDeathSignal}. */
export type ParentDeathOptions = {
  /** Signal the kernel sends the child when we die; default SIGKILL. */
  signal?: NodeJS.Signals;
  /** setpriv executable to use instead of the one {@link findSetpriv} finds. */
  setprivPath?: string;
};

/**
 * `[command, args]` wrapped so the kernel signals the child when we die (Linux with setpriv).
 * A command that cannot run is returned unwrapped, so that the spawn itself fails (ENOENT,
 * EACCES) instead of setpriv.
 */
export function withParentDeathSignal(
  command: string,
  args: readonly string[],
  options: ParentDeathOptions = {},
): [string, string[]] {
  const setpriv = process.platform === 'linux' ? (options.setprivPath ?? findSetpriv()) : null;
  if (setpriv === null || !isExecutableCommand(command)) {
    return [command, [...args]];
  }
  const signal = (options.signal ?? 'SIGKILL').replace(/^SIG/, '');
  return [setpriv, ['--pdeathsig', signal, '--', command, ...args]];
}

// True when `command` (a path, or a name looked up in PATH) is an executable file.
function isExecutableCommand(command: string): boolean {
  const candidates = command.includes(path.sep)
    ? [command]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  return candidates.some(isExecutableFile);
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Whether a parent-death `signal` must come from a watcher, exactly once (Linux, any signal but
 * SIGKILL), rather than from the kernel through setpriv (see the top of this file).
 */
export function needsParentDeathWatcher(signal: NodeJS.Signals): boolean {
  return process.platform === 'linux' && signal !== 'SIGKILL';
}

// The watcher: /bin/sh reading its stdin, a pipe from us. A line disarms it (exit quietly); end of
// input means every copy of our end is closed, i.e. we died (by any signal, crash or exit), and
// it sends the signal once, only if the pid still names the same process (same start time: a pid
// reused since cannot be hit). Terminal signals are ignored, so a Ctrl+C or hang-up that ends us
// does not end it before it has done its job.
const WATCHER_SCRIPT = [
  "trap '' INT QUIT HUP",
  'if read -r _; then exit 0; fi',
  'read -r stat < "/proc/$1/stat" || exit 0',
  'pid=$1; signal=$2; started=$3',
  // the fields after ") " start at field 3; the start time is field 22, the 20th of them
  'set -- ${stat##*) }',
  '[ "${20}" = "$started" ] || exit 0',
  'kill -s "$signal" "$pid"',
].join('\n');

/**
 * `[command, args]` of a watcher that sends `signal` to `pid` once when this process dies; start
 * it with its stdin piped from us (and nothing else holding that pipe). Null when the process is
 * already gone (or this is not Linux).
 */
export function parentDeathWatcherCommand(
  pid: number,
  signal: NodeJS.Signals,
): [string, string[]] | null {
  const startTime = processStartTime(pid);
  if (startTime === null) {
    return null;
  }
  return [
    '/bin/sh',
    [
      '-c',
      WATCHER_SCRIPT,
      'cua-parent-death-watcher',
      String(pid),
      signal.replace(/^SIG/, ''),
      startTime,
    ],
  ];
}

/** Start time of process `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or null. */
export function processStartTime(pid: number): string | null {
  if (process.platform !== 'linux') {
    return null;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: count from its closing one
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}
