// Children die with the host (docs/architecture.md §5), in two layers:
// - on Linux, long-running children are started through util-linux `setpriv --pdeathsig KILL`,
//   so the kernel kills them even when the recorder itself is SIGKILLed or crashes;
// - a synchronous 'exit' hook SIGKILLs whatever is still registered on a normal exit.
import type { ChildProcess } from 'node:child_process';
import { accessSync, constants as fsConstants } from 'node:fs';

const children = new Set<ChildProcess>();
let isHookInstalled = false;
let setprivPath: string | null | undefined;

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
  }
  children.clear();
}

// Registers `child` to be killed when this process exits; returns the unregister function.
export function killOnParentExit(child: ChildProcess): () => void {
  if (!isHookInstalled) {
    isHookInstalled = true;
    process.once('exit', killAll);
  }
  children.add(child);
  return () => {
    children.delete(child);
  };
}

// util-linux setpriv on this machine (Linux only), or null: then no parent-death signal is set.
export function findSetpriv(): string | null {
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

// `[command, args]` wrapped so the kernel SIGKILLs the child when we die (Linux with setpriv).
export function withParentDeathSignal(
  command: string,
  args: readonly string[],
): [string, string[]] {
  const setpriv = findSetpriv();
  // setpriv execs the command: the pid, stdio and exit status stay the command's own
  return setpriv === null
    ? [command, [...args]]
    : [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]];
}
