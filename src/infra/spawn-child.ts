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
import { withParentDeathSignal } from './parent-death';

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
   * Signal the kernel sends the child when this process dies, even by SIGKILL (Linux with
   * setpriv, ./parent-death.ts); default SIGKILL; null: none.
   */
  parentDeathSignal?: NodeJS.Signals | null;
  /** setpriv executable to use for the parent-death signal; default the one found on the system. */
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
  const [file, fileArgs] =
    parentDeathSignal === null
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
  return child;
}
