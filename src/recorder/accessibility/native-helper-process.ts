// The native accessibility helper as a child process (docs/architecture.md §5): spawns the per-OS
// helper program (src/helpers/), splits its stdout into lines, keeps a stderr tail, and stops it
// gracefully (shutdown line + stdin close), then SIGTERM, then SIGKILL. The JSON-lines protocol itself is
// pure and lives in src/axtree/platform/native-helper.ts; spawning, line splitting and the stderr
// tail are the infrastructure layer's (src/infra).
import { constants as fsConstants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { HelperChannel, HelperExit } from '../../axtree/platform/native-helper';
import { NativeHelperAdapter, encodeHelperShutdown } from '../../axtree/platform/native-helper';
import { LineSplitter } from '../../infra/lines';
import { spawnChild } from '../../infra/spawn-child';
import type { ChildProcess } from '../../infra/spawn-child';
import { StderrTail } from '../../infra/stderr-tail';
import { stopChild } from '../../infra/stop-child';
import { AppError } from '../../shared/errors';

/** Options of {@link NativeHelperProcess}. */
export type NativeHelperProcessOptions = {
  /** Executable to spawn (absolute path recommended). */
  command: string;
  /** Arguments; default none. */
  args?: readonly string[];
  /**
   * Starts the helper in a host-specific way instead of spawning `command`: the desktop app's
   * utility process (ChildLauncher.fork, src/main/launcher.ts). Called once per process.
   */
  fork?: () => ChildProcess;
  /** Environment; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** ms to wait after the shutdown line and stdin close before SIGTERM; default 1 000. */
  stopGraceMs?: number;
  /** ms to wait after SIGTERM before SIGKILL; default 1 000. */
  killGraceMs?: number;
  /** Longest accepted stdout line in bytes (a larger one is cut and reported); default 64 MiB. */
  maxLineBytes?: number;
  /** stderr lines kept for error messages; default 20. */
  stderrTailLines?: number;
};

/** Default grace after the shutdown line, ms. */
export const DEFAULT_HELPER_STOP_GRACE_MS = 1000;
/** Default grace after SIGTERM, ms. */
export const DEFAULT_HELPER_KILL_GRACE_MS = 1000;
/** Default longest stdout line, bytes (a big snapshot is a few MB). */
export const DEFAULT_HELPER_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** A helper child process exposed as a line channel. */
export class NativeHelperProcess implements HelperChannel {
  readonly name: string;
  private child: ChildProcess | null = null;
  private readonly lineListeners: ((line: string) => void)[] = [];
  private readonly exitListeners: ((exit: HelperExit) => void)[] = [];
  private readonly stderrTail: StderrTail;
  private readonly stdoutLines = new LineSplitter();
  private isClosing = false;
  private exited: Promise<void> | null = null;

  constructor(private readonly options: NativeHelperProcessOptions) {
    this.name = options.command;
    this.stderrTail = new StderrTail({ maxLines: options.stderrTailLines ?? 20 });
  }

  /** Process id while running, else null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  // Spawns the helper; resolves once the process exists (readiness is the hello line).
  async open(): Promise<void> {
    if (this.child) {
      throw new Error('NativeHelperProcess.open() called twice; create a new one');
    }
    // through setpriv a missing binary would only show as exit code 127: check it first
    if (!this.options.fork && path.isAbsolute(this.options.command)) {
      try {
        await access(this.options.command, fsConstants.X_OK);
      } catch (error) {
        throw this.notStartable(error);
      }
    }
    // parent-death signal and kill-on-exit registration come with spawnChild
    const child =
      this.options.fork?.() ??
      spawnChild(this.options.command, this.options.args ?? [], {
        env: this.options.env ?? process.env,
      });
    this.child = child;
    const maxLineBytes = this.options.maxLineBytes ?? DEFAULT_HELPER_MAX_LINE_BYTES;
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => this.pushStdout(chunk, maxLineBytes));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => this.stderrTail.push(chunk));
    // writes after the helper died raise EPIPE: the exit handler reports the real cause
    child.stdin?.on('error', () => undefined);

    this.exited = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        const exit: HelperExit = {
          code,
          signal,
          stderrTail: this.stderrTail.text(),
          isExpected: this.isClosing,
        };
        for (const listener of this.exitListeners) {
          listener(exit);
        }
        resolve();
      });
    });

    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error: NodeJS.ErrnoException) => {
        if (child.pid === undefined) {
          reject(this.notStartable(error));
        }
      });
    });
  }

  // Writes one line to the helper's stdin (ignored once it is closing).
  write(line: string): void {
    if (!this.isClosing) {
      this.child?.stdin?.write(line);
    }
  }

  // Registers a stdout line listener.
  onLine(listener: (line: string) => void): void {
    this.lineListeners.push(listener);
  }

  // Registers the exit listener.
  onExit(listener: (exit: HelperExit) => void): void {
    this.exitListeners.push(listener);
  }

  // Shutdown line + stdin close, then SIGTERM, then SIGKILL; resolves when the process is gone.
  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) {
      return;
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      await this.exited;
      return;
    }
    await stopChild(child, {
      exited: this.exited,
      request: () => {
        if (!this.isClosing) {
          this.isClosing = true;
          child.stdin?.write(encodeHelperShutdown());
          child.stdin?.end();
        }
      },
      requestGraceMs: this.options.stopGraceMs ?? DEFAULT_HELPER_STOP_GRACE_MS,
      killGraceMs: this.options.killGraceMs ?? DEFAULT_HELPER_KILL_GRACE_MS,
    });
  }

  private notStartable(error: unknown): AppError {
    const errno = (error as NodeJS.ErrnoException).code;
    return new AppError(
      'ACCESSIBILITY_UNAVAILABLE',
      `could not start accessibility helper ${this.options.command}` +
        `${errno ? ` (${errno})` : ''}: install or rebuild the helper for this platform`,
      { helper: this.options.command, errno },
    );
  }

  private pushStdout(chunk: string, maxLineBytes: number): void {
    for (const line of this.stdoutLines.push(chunk)) {
      this.emitLine(line);
    }
    if (Buffer.byteLength(this.stdoutLines.partial) > maxLineBytes) {
      // hand the protocol layer something it will reject as malformed, then drop the rest
      this.emitLine(`<line longer than ${maxLineBytes} bytes>`);
      this.stdoutLines.flush();
    }
  }

  private emitLine(line: string): void {
    for (const listener of this.lineListeners) {
      listener(line);
    }
  }
}

/** Options of {@link createNativeHelperAdapter}. */
export type NativeHelperAdapterProcessOptions = NativeHelperProcessOptions & {
  /** Session clock in ms (CLOCK_MONOTONIC). */
  now: () => number;
  /** Limit for the hello line, ms; default 5 000. */
  startTimeoutMs?: number;
  /** Limit per request, ms; default 2 000. */
  requestTimeoutMs?: number;
  /** Timeouts in a row after which the helper is replaced by a fresh process; default 3. */
  timeoutsBeforeRestart?: number;
  /** Replacements before accessibility is given up for the session; default 5. */
  maxRestarts?: number;
};

// An AccessibilityAdapter backed by a spawned helper executable (macOS/Windows helpers); a helper
// that stops answering is replaced by a new process (docs/helper-protocol.md §4).
export function createNativeHelperAdapter(
  options: NativeHelperAdapterProcessOptions,
): NativeHelperAdapter {
  const { now, startTimeoutMs, requestTimeoutMs, timeoutsBeforeRestart, maxRestarts, ...rest } =
    options;
  return new NativeHelperAdapter(() => new NativeHelperProcess(rest), {
    now,
    startTimeoutMs,
    requestTimeoutMs,
    timeoutsBeforeRestart,
    maxRestarts,
  });
}
