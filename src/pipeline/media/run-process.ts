// One-shot child processes (ffprobe, ffmpeg probes, xdpyinfo, dbus-send): run to completion,
// collect output, kill on timeout. Long-lived children get their own lifecycle class instead
// (docs/architecture.md §5); this is only for commands that answer and exit.
import { spawn } from 'node:child_process';

/** Default cap on the kept stderr tail: 64 KiB. */
export const DEFAULT_STDERR_TAIL_BYTES = 64 * 1024;
/** Default cap on collected stdout: 32 MiB (ffprobe JSON of long files stays far below). */
export const DEFAULT_MAX_STDOUT_BYTES = 32 * 1024 * 1024;
/** Default delay between SIGTERM and SIGKILL after a timeout. */
export const DEFAULT_KILL_GRACE_MS = 1000;

/** Options of {@link runProcess}. */
export type RunProcessOptions = {
  /** Wall-clock limit in ms; on expiry the child gets SIGTERM, then SIGKILL after the grace. */
  timeoutMs: number;
  /** Written to the child's stdin, which is then closed; without it stdin is ignored. */
  input?: string | Buffer;
  /** Environment of the child; default: the parent's `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Working directory of the child; default: the parent's. */
  cwd?: string;
  /** Keep only the last this many bytes of stderr; default {@link DEFAULT_STDERR_TAIL_BYTES}. */
  stderrTailBytes?: number;
  /** Stop collecting stdout after this many bytes; default {@link DEFAULT_MAX_STDOUT_BYTES}. */
  maxStdoutBytes?: number;
  /** ms between SIGTERM and SIGKILL after a timeout; default {@link DEFAULT_KILL_GRACE_MS}. */
  killGraceMs?: number;
  /**
   * Start the child in a process group of its own, so a terminal's Ctrl+C (SIGINT to the whole
   * foreground group) does not reach it; default false. For work that must finish once begun
   * (saving a recording); the caller's timeout still ends it.
   */
  isOwnProcessGroup?: boolean;
};

/** Outcome of a process that started (whatever its exit status). */
export type RunProcessResult = {
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
export class ProcessStartError extends Error {
  override readonly name = 'ProcessStartError';
  constructor(
    /** The command that failed to start. */
    readonly command: string,
    /** The system error code, e.g. `ENOENT` or `EACCES`. */
    readonly errno: string | undefined,
    options: { cause: unknown },
  ) {
    super(
      `could not start '${command}'${errno ? ` (${errno})` : ''}: ${errorMessage(options.cause)}`,
      options,
    );
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Keeps the last `limit` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  isTruncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit && this.chunks.length > 0) {
      const first = this.chunks[0] as Buffer;
      const excess = this.size - this.limit;
      this.isTruncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks).toString('utf8');
    if (!this.isTruncated) {
      return all;
    }
    // drop the partial first line (and any half-cut UTF-8 sequence with it)
    const newline = all.indexOf('\n');
    return newline >= 0 ? all.slice(newline + 1) : all;
  }
}

/** Keeps the first `limit` bytes written to it. */
class HeadBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  isTruncated = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      this.isTruncated = true;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.isTruncated ||= kept.length < chunk.length;
    this.chunks.push(kept);
    this.size += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

// Runs `cmd args` to completion; rejects with ProcessStartError only when it cannot start.
export async function runProcess(
  cmd: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<RunProcessResult> {
  const startedAt = performance.now();
  const stdout = new HeadBuffer(options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT_BYTES);
  const stderr = new TailBuffer(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;

  return await new Promise<RunProcessResult>((resolve, reject) => {
    const child = spawn(cmd, [...args], {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
      detached: options.isOwnProcessGroup ?? false,
    });
    let isTimedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timeoutTimer = setTimeout(() => {
      isTimedOut = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), killGraceMs);
    }, options.timeoutMs);

    const clearTimers = (): void => {
      clearTimeout(timeoutTimer);
      if (killTimer) {
        clearTimeout(killTimer);
      }
    };

    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));

    child.once('error', (error: NodeJS.ErrnoException) => {
      // 'error' without a pid means the spawn itself failed; 'close' will not follow
      if (child.pid === undefined) {
        clearTimers();
        reject(new ProcessStartError(cmd, error.code, { cause: error }));
      }
    });

    child.once('close', (code, signal) => {
      clearTimers();
      resolve({
        code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        isStdoutTruncated: stdout.isTruncated,
        isStderrTruncated: stderr.isTruncated,
        isTimedOut,
        durationMs: performance.now() - startedAt,
      });
    });

    if (options.input !== undefined && child.stdin) {
      // a child that exits without reading its input raises EPIPE here: not our failure
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** The last `lineCount` non-empty lines of `text`, joined by newlines (for error messages). */
export function tailLines(text: string, lineCount: number): string {
  return text
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.length > 0)
    .slice(-lineCount)
    .join('\n');
}
