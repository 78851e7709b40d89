// The one parent-death-signal path (docs/architecture.md §5): on Linux a child started through
// util-linux `setpriv --pdeathsig <sig>` gets that signal from the kernel when we die, even when
// we are SIGKILLed or crash. setpriv execs the command, so the pid, stdio and exit status stay the
// command's own. Elsewhere (or without setpriv) the command runs as is.
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
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
