// The one runner for one-shot commands (ffprobe, ffmpeg probes and cuts, xdpyinfo, xprop,
// xkbcomp, dbus-send): run to completion, collect output, kill on timeout (docs/architecture.md
// §5). Built on execa: a time limit with SIGTERM then SIGKILL after a grace, cleanup when this
// process exits, no shell. Long-lived children get a lifecycle class of their own instead.
import { AppError } from '../shared/errors';
import { tailLines } from './lines';
import { HeadBuffer, TailBuffer } from './stderr-tail';

/** Default cap on the kept stderr tail: 64 KiB. */
export const DEFAULT_STDERR_TAIL_BYTES = 64 * 1024;
/** Default cap on collected stdout: 32 MiB (ffprobe JSON of long files stays far below). */
export const DEFAULT_MAX_STDOUT_BYTES = 32 * 1024 * 1024;
/** Default delay between the kill signal and SIGKILL after a timeout. */
export const DEFAULT_KILL_GRACE_MS = 1000;
/** Lines of stderr quoted in {@link runCommandChecked}'s errors. */
const ERROR_TAIL_LINES = 5;

/** Options of {@link runCommand}. */
export type RunCommandOptions = {
  /** Wall-clock limit in ms; on expiry the child gets `killSignal`, then SIGKILL after the grace. */
  timeoutMs: number;
  /** Written to the child's stdin, which is then closed; without it stdin is ignored. */
  input?: string | Buffer;
  /** Environment of the child (replaces, not extends); default: the parent's `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Working directory of the child; default: the parent's. */
  cwd?: string;
  /** Keep only the last this many bytes of stderr; default {@link DEFAULT_STDERR_TAIL_BYTES}. */
  stderrTailBytes?: number;
  /** Stop collecting stdout after this many bytes; default {@link DEFAULT_MAX_STDOUT_BYTES}. */
  maxStdoutBytes?: number;
  /** ms between `killSignal` and SIGKILL after a timeout; default {@link DEFAULT_KILL_GRACE_MS}. */
  killGraceMs?: number;
  /** First signal on timeout; default SIGTERM. */
  killSignal?: NodeJS.Signals;
  /**
   * Start the child in a process group of its own, so a terminal's Ctrl+C (SIGINT to the whole
   * foreground group) does not reach it; default false. For work that must finish once begun
   * (saving a recording); the timeout still ends it, but this process's exit does not.
   */
  isOwnProcessGroup?: boolean;
};

/** Outcome of a command that started (whatever its exit status). */
export type CommandResult = {
  /** Exit code, or null when the child was ended by a signal. */
  code: number | null;
  /** Signal that ended the child, or null when it exited by itself. */
  signal: NodeJS.Signals | null;
  /** Collected stdout (UTF-8), at most `maxStdoutBytes`. */
  stdout: string;
  /** The last `stderrTailBytes` of stderr (UTF-8), starting at a line boundary when cut. */
  stderr: string;
  /** True when stdout was cut at `maxStdoutBytes`. */
  isStdoutTruncated: boolean;
  /** True when stderr was cut to its tail. */
  isStderrTruncated: boolean;
  /** True when the child was killed because `timeoutMs` expired. */
  isTimedOut: boolean;
  /** Wall-clock run time in ms. */
  durationMs: number;
};

/** The command could not be started at all (missing binary, not executable, …). */
export class ProcessStartError extends AppError {
  constructor(
    /** The command that failed to start. */
    readonly command: string,
    /** The system error code, e.g. `ENOENT` or `EACCES`. */
    readonly errno: string | undefined,
    options: { cause: unknown },
  ) {
    super(
      'COMMAND_NOT_FOUND',
      `could not start '${command}'${errno ? ` (${errno})` : ''}: ${errorMessage(options.cause)}`,
      { command, errno },
    );
    this.cause = options.cause;
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Runs `cmd args` to completion. Resolves whatever the exit status (a timeout shows as
 * `isTimedOut`); rejects with {@link ProcessStartError} only when the command cannot start.
 */
export async function runCommand(
  cmd: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  let result = await runOnce(cmd, args, options);
  // A child in a group of its own can still get a terminal's Ctrl+C in the instant between its
  // fork and its setsid: the signal waits, blocked, and kills it before it execs (seen on a loaded
  // CI machine with Ctrl+C held down: the saved recording's ffprobe died of SIGINT three runs in
  // a row). We never send these signals, so such an end is that race: run it again after a pause,
  // for as long as a user may keep pressing (bounded by OWN_GROUP_RETRY_WINDOW_MS).
  const retryUntil = performance.now() + OWN_GROUP_RETRY_WINDOW_MS;
  while (
    options.isOwnProcessGroup === true &&
    !result.isTimedOut &&
    result.signal !== null &&
    TERMINAL_SIGNALS.has(result.signal) &&
    performance.now() < retryUntil
  ) {
    await new Promise((resolve) => setTimeout(resolve, OWN_GROUP_RETRY_PAUSE_MS));
    result = await runOnce(cmd, args, options);
  }
  return result;
}

/** Signals a terminal sends its foreground group, never sent by {@link runCommand} itself. */
const TERMINAL_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(['SIGINT', 'SIGQUIT', 'SIGHUP']);
/** How long an own-group command ended by one of {@link TERMINAL_SIGNALS} is run again, in ms. */
const OWN_GROUP_RETRY_WINDOW_MS = 30_000;
/** Pause before running such a command again, in ms. */
const OWN_GROUP_RETRY_PAUSE_MS = 50;

async function runOnce(
  cmd: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  const stdout = new HeadBuffer(options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES);
  const stderr = new TailBuffer(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  const isOwnGroup = options.isOwnProcessGroup ?? false;
  // loaded on first use: execa takes ~0.2 s to import, which every CLI start would pay
  const { execa } = await import('execa');
  const startedAt = performance.now();
  const subprocess = execa(cmd, [...args], {
    env: options.env ?? process.env,
    extendEnv: false,
    cwd: options.cwd,
    stdin: options.input === undefined ? 'ignore' : 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    // output is collected here, bounded (head of stdout, tail of stderr), not by execa
    buffer: false,
    reject: false,
    timeout: options.timeoutMs,
    killSignal: options.killSignal ?? 'SIGTERM',
    forceKillAfterDelay: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    // kill the child if we exit first (execa skips this for detached children)
    cleanup: true,
    detached: isOwnGroup,
    windowsHide: true,
  });
  subprocess.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  subprocess.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  if (options.input !== undefined && subprocess.stdin) {
    // a child that exits without reading its input raises EPIPE here: not our failure
    subprocess.stdin.on('error', () => undefined);
    subprocess.stdin.end(options.input);
  }
  const result = await subprocess;
  if (subprocess.pid === undefined) {
    const cause = result.cause ?? new Error(result.shortMessage ?? 'spawn failed');
    throw new ProcessStartError(cmd, (cause as NodeJS.ErrnoException).code, { cause });
  }
  return {
    code: result.exitCode ?? null,
    signal: result.signal ?? null,
    stdout: stdout.text(),
    stderr: stderr.text(),
    isStdoutTruncated: stdout.isTruncated,
    isStderrTruncated: stderr.isTruncated,
    isTimedOut: result.timedOut,
    durationMs: performance.now() - startedAt,
  };
}

/**
 * {@link runCommand} that also rejects unless the command exits with 0: COMMAND_TIMEOUT when the
 * time limit killed it, COMMAND_FAILED for another exit status or signal (the message names the
 * command and quotes the last stderr lines), COMMAND_NOT_FOUND when it cannot start.
 */
export async function runCommandChecked(
  cmd: string,
  args: readonly string[],
  options: RunCommandOptions,
): Promise<CommandResult> {
  const result = await runCommand(cmd, args, options);
  if (result.code === 0 && !result.isTimedOut) {
    return result;
  }
  const tail = tailLines(result.stderr, ERROR_TAIL_LINES);
  const details = {
    command: cmd,
    args: [...args],
    code: result.code,
    signal: result.signal,
    stderrTail: tail,
  };
  if (result.isTimedOut) {
    throw new AppError(
      'COMMAND_TIMEOUT',
      `'${cmd}' did not finish within ${options.timeoutMs} ms and was killed (${result.signal ?? 'exited'})${tail ? `: ${tail}` : '.'}`,
      details,
    );
  }
  const status = result.code === null ? `signal ${result.signal}` : `exit code ${result.code}`;
  throw new AppError(
    'COMMAND_FAILED',
    `'${cmd}' failed with ${status}${tail ? `: ${tail}` : '.'}`,
    details,
  );
}
