// Starting a long-lived child (ffmpeg capture, native helpers, xprop -spy, the input hook): the
// spawn itself, with the parent-death signal and the kill-on-exit registration applied, so every
// lifecycle class gets both (docs/architecture.md §5). Readiness, protocol and stopping stay in
// the class that owns the child; one-shot commands use ./run-command.ts instead.
import { spawn } from 'node:child_process';
import type {
  ChildProcess,
  ChildProcessWithoutNullStreams,
  StdioOptions,
} from 'node:child_process';
import { killOnExit } from './kill-on-exit';
import {
  needsParentDeathWatcher,
  parentDeathWatcherCommand,
  withParentDeathSignal,
} from './parent-death';

export type { ChildProcess, ChildProcessWithoutNullStreams } from 'node:child_process';

/** Options of {@link spawnChild}. */
export type SpawnChildOptions = {
  /** Environment of the child (replaces, not extends); default: the parent's `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Working directory of the child; default: the parent's. */
  cwd?: string;
  /** stdio of the child; default all three piped. */
  stdio?: StdioOptions;
  /**
   * Signal the child gets when this process dies, even by SIGKILL (Linux, ./parent-death.ts):
   * SIGKILL from the kernel (setpriv), any other signal exactly once from a watcher process, so
   * that a child finishing its file on the first signal is not cut short by a second one; default
   * SIGKILL; null: none.
   */
  parentDeathSignal?: NodeJS.Signals | null;
  /** setpriv executable to use for a SIGKILL on parent death; default the one found on the system. */
  setprivPath?: string;
  /**
   * Signal sent from the 'exit' hook when this process exits while the child runs
   * (./kill-on-exit.ts); default SIGKILL; null: not registered.
   */
  exitSignal?: NodeJS.Signals | null;
  /** Start the child in a process group of its own; default false. */
  detached?: boolean;
};

/**
 * Spawns `command args` as a long-lived child with the parent-death signal and kill-on-exit
 * registration (dropped again when the child exits). Spawn failures surface as the child's
 * 'error' event with `child.pid === undefined`, as with node's spawn.
 */
export function spawnChild(
  command: string,
  args: readonly string[],
  options?: SpawnChildOptions & { stdio?: 'pipe' | ['pipe', 'pipe', 'pipe'] },
): ChildProcessWithoutNullStreams;
export function spawnChild(
  command: string,
  args: readonly string[],
  options?: SpawnChildOptions,
): ChildProcess;
export function spawnChild(
  command: string,
  args: readonly string[],
  options: SpawnChildOptions = {},
): ChildProcess {
  const parentDeathSignal =
    options.parentDeathSignal === undefined ? 'SIGKILL' : options.parentDeathSignal;
  const useWatcher = parentDeathSignal !== null && needsParentDeathWatcher(parentDeathSignal);
  const [file, fileArgs] =
    parentDeathSignal === null || useWatcher
      ? [command, [...args]]
      : withParentDeathSignal(command, args, {
          signal: parentDeathSignal,
          setprivPath: options.setprivPath,
        });
  const child = spawn(file, fileArgs, {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: options.stdio ?? ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
    detached: options.detached ?? false,
  });
  const exitSignal = options.exitSignal === undefined ? 'SIGKILL' : options.exitSignal;
  if (exitSignal !== null && child.pid !== undefined) {
    const unregister = killOnExit(child, exitSignal);
    child.once('exit', unregister);
  }
  if (useWatcher && child.pid !== undefined) {
    watchForParentDeath(child, child.pid, parentDeathSignal);
  }
  return child;
}

// Starts the watcher that signals `child` once when we die (./parent-death.ts). It is SIGKILLed
// (it then signals nothing) when the child ends and from our 'exit' hook, where the child gets
// its own exit signal instead. It runs in a session of its own and never keeps us alive.
function watchForParentDeath(child: ChildProcess, pid: number, signal: NodeJS.Signals): void {
  const command = parentDeathWatcherCommand(pid, signal);
  if (command === null) {
    return;
  }
  const watcher = spawn(command[0], command[1], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
    windowsHide: true,
  });
  // a watcher that cannot start leaves the child without a parent-death signal, nothing more
  watcher.once('error', () => undefined);
  watcher.stdin?.on('error', () => undefined);
  watcher.unref();
  if (watcher.pid === undefined) {
    return;
  }
  const unregister = killOnExit(watcher, 'SIGKILL');
  watcher.once('exit', unregister);
  const disarm = () => {
    if (watcher.exitCode === null && watcher.signalCode === null) {
      watcher.kill('SIGKILL');
    }
  };
  child.once('exit', disarm);
}
