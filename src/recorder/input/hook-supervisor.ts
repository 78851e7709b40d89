// Keeps one input-hook child running (docs/architecture.md §5): spawns it through the child
// launcher, waits for its hello (readiness), watches for silence, turns a dead or stalled child
// into a gap and a restart with backoff, gives up after repeated failures, and stops it with a
// shutdown request, then SIGTERM, then SIGKILL. It hands the child's event lines on untouched;
// the InputHook (hook-process.ts) runs them through the input pipeline.
import { detectChildLauncher } from '../../infra/child-launcher';
import type { ChildLauncher } from '../../infra/child-launcher';
import { spawnChild, type ChildProcess } from '../../infra/spawn-child';
import { stopChild } from '../../infra/stop-child';
import { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import { HookChildChannel } from './hook-channel';
import type { HookHelloLine, HookInputEvent } from './hook-protocol';
import type {
  HookChildCommand,
  InputGap,
  InputGapReason,
  InputHookDiagnostic,
  InputHookState,
} from './hook-types';

/** Options of {@link HookSupervisor} (defaults as in `InputHookOptions`). */
export type HookSupervisorOptions = {
  /** Environment of the child (DISPLAY, XAUTHORITY); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Starts the 'hook-child' entry; default {@link detectChildLauncher}. */
  launcher?: ChildLauncher;
  /** Child command instead of the launcher's (its arguments are used as given). */
  childCommand?: HookChildCommand;
  /** Time from spawn to the hello line before HELPER_START_TIMEOUT, ms; default 10000. */
  startTimeoutMs?: number;
  /** Heartbeat period requested from the child, ms; default 250. */
  heartbeatIntervalMs?: number;
  /** Silence (no line at all) after which the child counts as stalled, ms; default 3000. */
  stallTimeoutMs?: number;
  /** Restarts allowed within `restartWindowMs` before giving up; default 5. */
  maxRestarts?: number;
  /** Window for counting restarts, ms; default 60000. */
  restartWindowMs?: number;
  /** First restart delay, doubled per recent restart, ms; default 100 (capped at 5000). */
  restartBackoffMs?: number;
  /** Wait after the shutdown request before SIGTERM, and after SIGTERM before SIGKILL, ms;
   * default 2000. */
  stopGraceMs?: number;
  /** Ask the child for a rest line once the pointer has not moved for this long, ms; 0 or
   * absent: none (hook-protocol.ts `HookRestLine`). */
  restMs?: number;
};

/** What the supervisor reports to its owner. */
export type HookSupervisorEvents = {
  /** An input event of the current child. */
  onEvent: (callbackTMs: number, event: HookInputEvent) => void;
  /** A chunk of the child's output has been handled. */
  onLinesRead: () => void;
  /** The pointer came to rest (only with `restMs`; after the events before it). */
  onRest?: (tMs: number) => void;
  /** The running child died or stalled: hand on what it sent and forget held keys, before the
   * gap opens. */
  onChildLost: () => void;
  /** A gap ended (endMs set) or was given up (endMs null). */
  onGap: (gap: InputGap) => void;
  /** A non-fatal problem (must not throw). */
  onDiagnostic: (diagnostic: InputHookDiagnostic) => void;
  /** The supervisor gave up (INPUT_HOOK_FAILED); no more events will come. */
  onFatal: (error: AppError) => void;
};

/** Counters over the supervisor's life. */
export type HookSupervisorStats = {
  gapCount: number;
  restartCount: number;
  protocolErrorCount: number;
};

const DEFAULTS = {
  startTimeoutMs: 10_000,
  heartbeatIntervalMs: 250,
  stallTimeoutMs: 3000,
  maxRestarts: 5,
  restartWindowMs: 60_000,
  restartBackoffMs: 100,
  stopGraceMs: 2000,
} as const;
const MAX_RESTART_BACKOFF_MS = 5000;
/** Malformed lines reported one by one per child; later ones are only counted. */
const MAX_REPORTED_PROTOCOL_ERRORS = 20;
const STOPPED_WHILE_STARTING = 'InputHook.stop() was called while the hook was starting';

type HelloWaiter = {
  resolve: (hello: HookHelloLine) => void;
  reject: (error: Error) => void;
};

/** One spawned child and what the supervisor knows about it. */
type Supervised = {
  channel: HookChildChannel;
  helloWaiter: HelloWaiter | null;
  /** A uiohook start failure seen on stderr before the hello (the child is then killed). */
  fatalStartLine: string | null;
  /** Set when the supervisor killed it for a stall. */
  stallDetail: string | null;
};

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal === null ? `exit code ${code}` : `signal ${signal}`;
}

/** Spawn, readiness, watchdog, restarts and stop of the input-hook child. */
export class HookSupervisor {
  private stateValue: InputHookState = 'idle';
  private child: Supervised | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private openGap: Omit<InputGap, 'endMs'> | null = null;
  private restartAttemptTimes: number[] = [];
  private launcher: ChildLauncher | undefined;
  private readonly statsValue: HookSupervisorStats = {
    gapCount: 0,
    restartCount: 0,
    protocolErrorCount: 0,
  };

  constructor(
    private readonly options: HookSupervisorOptions,
    private readonly events: HookSupervisorEvents,
  ) {
    this.launcher = options.launcher;
  }

  /** Current lifecycle state. */
  get state(): InputHookState {
    return this.stateValue;
  }

  /** Pid of the current child, or null. */
  get childPid(): number | null {
    return this.child?.channel.pid ?? null;
  }

  /** Clock time of the last line (event or heartbeat) read from the current child, or null. */
  get lastChildTMs(): number | null {
    return this.child?.channel.lastChildTMs ?? null;
  }

  /** Counters so far. */
  get stats(): HookSupervisorStats {
    return { ...this.statsValue };
  }

  /**
   * Starts the child: runs `prepare` first (checks, keymap; stop() may win meanwhile), then
   * resolves with the hello and what `prepare` returned once the child's hook runs.
   */
  async start<T>(
    prepare: () => Promise<T>,
  ): Promise<{ hello: HookHelloLine; spawnedAtMs: number; prepared: T }> {
    if (this.stateValue !== 'idle') {
      throw new Error(
        `InputHook.start() called in state '${this.stateValue}'; an InputHook starts once — ` +
          'call stop() and create a new InputHook to capture again',
      );
    }
    this.stateValue = 'starting';
    try {
      const prepared = await prepare();
      this.assertStillStarting();
      const child = this.spawn();
      const hello = await this.waitForHello(child);
      this.assertStillStarting();
      this.stateValue = 'running';
      return { hello, spawnedAtMs: child.channel.spawnedAtMs, prepared };
    } catch (error) {
      if (this.stateValue === 'starting') {
        this.stateValue = 'failed';
      }
      const child = this.child;
      if (child && !child.channel.isClosed) {
        child.channel.kill('SIGKILL');
        await child.channel.closed;
      }
      throw error;
    }
  }

  /** The watchdog (call it on the flush cadence, not after this process was blocked): kills a
   * running child that has been silent for longer than the stall timeout. */
  checkStall(nowMs: number): void {
    const child = this.child;
    const stallMs = this.options.stallTimeoutMs ?? DEFAULTS.stallTimeoutMs;
    if (
      this.stateValue === 'running' &&
      child !== null &&
      !child.channel.isClosed &&
      child.stallDetail === null &&
      nowMs - child.channel.lastLineAtMs > stallMs
    ) {
      child.stallDetail =
        `no line (not even a heartbeat) for ` +
        `${Math.round(nowMs - child.channel.lastLineAtMs)} ms`;
      child.channel.kill('SIGKILL');
    }
  }

  /**
   * Stops the child (shutdown request and stdin close, then SIGTERM, then SIGKILL); then `drain`
   * runs (the owner hands on what is left) before a gap still open is reported.
   */
  async stop(drain: () => void): Promise<void> {
    const previous = this.stateValue;
    this.stateValue = 'stopping';
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
    }
    const child = this.child;
    if (child && !child.channel.isClosed) {
      await this.terminate(child.channel);
    }
    drain();
    if (this.openGap !== null && previous !== 'failed') {
      this.reportGap({ ...this.openGap, endMs: monotonicNowMs() });
    }
    this.stateValue = 'stopped';
  }

  private assertStillStarting(): void {
    // stop() may run while start() awaits; it wins
    if (this.stateValue !== 'starting') {
      throw new Error(STOPPED_WHILE_STARTING);
    }
  }

  private childCommand(): { command: string; args: string[] } {
    if (this.options.childCommand) {
      return this.options.childCommand;
    }
    this.launcher ??= detectChildLauncher();
    const { file, args } = this.launcher.command('hook-child');
    return { command: file, args: [...args, ...this.childArgs()] };
  }

  // The child's own options: its heartbeat and, when asked for, rest lines.
  private childArgs(): string[] {
    const heartbeatMs = this.options.heartbeatIntervalMs ?? DEFAULTS.heartbeatIntervalMs;
    const restMs = this.options.restMs ?? 0;
    return [
      '--heartbeat-ms',
      String(heartbeatMs),
      ...(restMs > 0 ? ['--rest-ms', String(restMs)] : []),
    ];
  }

  private spawn(): Supervised {
    const env = this.options.env ?? process.env;
    this.launcher ??= this.options.childCommand ? undefined : detectChildLauncher();
    let proc: ChildProcess;
    if (!this.options.childCommand && this.launcher?.fork) {
      // the desktop app: a utility process from the bundled entry (Electron ends it with the app)
      proc = this.launcher.fork('hook-child', this.childArgs(), env) as unknown as ChildProcess;
    } else {
      const { command, args } = this.childCommand();
      // parent-death signal and kill-on-exit: an orphaned hook would keep recording
      proc = spawnChild(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    }
    let supervised: Supervised | null = null;
    const channel = new HookChildChannel(proc, {
      isAccepting: () => supervised === this.child && this.stateValue !== 'stopped',
      onEvent: (tMs, event) => this.events.onEvent(tMs, event),
      onRest: (tMs) => this.events.onRest?.(tMs),
      onHello: (hello) => {
        const waiter = supervised?.helloWaiter ?? null;
        if (supervised) {
          supervised.helloWaiter = null;
        }
        waiter?.resolve(hello);
      },
      onInputLost: (tMs, keyPresses) =>
        this.events.onDiagnostic({
          code: 'INPUT_LOST',
          message: `the X server dropped ${keyPresses} key press${keyPresses === 1 ? '' : 'es'} (and the input around them) before the input hook saw them: the machine was too busy for the hook to keep up`,
          details: { tMs, keyPresses },
        }),
      onEventsLost: (sent, received) =>
        this.events.onDiagnostic({
          code: 'HOOK_EVENTS_LOST',
          message:
            `the input-hook child wrote ${sent} events but ${received} arrived ` +
            '(malformed or lost lines)',
          details: { sent, received },
        }),
      onProtocolError: (problem, line, count) => {
        this.statsValue.protocolErrorCount += 1;
        if (count <= MAX_REPORTED_PROTOCOL_ERRORS) {
          this.events.onDiagnostic({
            code: 'HELPER_PROTOCOL_ERROR',
            message: `input-hook child sent a malformed line (${problem}); it was ignored`,
            details: { line: line.slice(0, 300), problem, pid: proc.pid },
          });
        }
      },
      onLinesRead: () => this.events.onLinesRead(),
      onFatalStartLine: (line) => {
        if (supervised?.helloWaiter && supervised.fatalStartLine === null) {
          // uiohook usually SIGABRTs after this line, but without a display it sometimes
          // deadlocks instead (measured: 1 start in 6): do not wait for the start timeout
          supervised.fatalStartLine = line;
          proc.kill('SIGKILL');
        }
      },
      onClose: (code, signal) => {
        if (supervised) {
          this.onChildClosed(supervised, code, signal);
        }
      },
    });
    supervised = { channel, helloWaiter: null, fatalStartLine: null, stallDetail: null };
    this.child = supervised;
    return supervised;
  }

  private async waitForHello(child: Supervised): Promise<HookHelloLine> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULTS.startTimeoutMs;
    const { channel } = child;
    return await new Promise<HookHelloLine>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.helloWaiter = null;
        channel.kill('SIGKILL');
        const stderr = channel.stderrText();
        reject(
          new AppError(
            'HELPER_START_TIMEOUT',
            `The input-hook child (pid ${channel.pid}) sent no hello within ${timeoutMs} ms.` +
              (stderr !== '' ? ` Its stderr: ${stderr}` : ''),
            { timeoutMs, stderr },
          ),
        );
      }, timeoutMs);
      child.helloWaiter = {
        resolve: (hello) => {
          clearTimeout(timer);
          resolve(hello);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  private async terminate(channel: HookChildChannel): Promise<void> {
    const graceMs = this.options.stopGraceMs ?? DEFAULTS.stopGraceMs;
    await stopChild(channel.proc, {
      exited: channel.closed,
      request: () => channel.requestShutdown(),
      requestGraceMs: graceMs,
      signal: 'SIGTERM',
      killGraceMs: graceMs,
    });
  }

  private onChildClosed(
    child: Supervised,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    const exit = describeExit(code, signal);
    const stderr = child.channel.stderrText();
    if (child.helloWaiter !== null) {
      const waiter = child.helloWaiter;
      child.helloWaiter = null;
      if (this.stateValue === 'stopping') {
        waiter.reject(new Error(STOPPED_WHILE_STARTING));
        return;
      }
      waiter.reject(
        new AppError(
          'INPUT_HOOK_UNAVAILABLE',
          `The input-hook child exited before its hook ran (${exit}).` +
            (stderr ? ` Its stderr: ${stderr}` : '') +
            (signal === 'SIGABRT' || child.fatalStartLine !== null
              ? ' uiohook fails like this when the X display or its RECORD extension is missing.'
              : ''),
          { exitCode: code, signal, stderr },
        ),
      );
      return;
    }
    if (child !== this.child || this.stateValue !== 'running') {
      return;
    }
    const reason: InputGapReason = child.stallDetail === null ? 'child-exit' : 'stall';
    const detail =
      (child.stallDetail ?? `the input-hook child ended unexpectedly (${exit})`) +
      (stderr ? `; stderr: ${stderr}` : '');
    // events of the dead child are complete and valid: the owner hands them on before the gap
    this.events.onChildLost();
    const { channel } = child;
    this.openGap = {
      startMs: channel.lastChildTMs ?? channel.hello?.t ?? channel.spawnedAtMs,
      reason,
      detail,
    };
    this.stateValue = 'restarting';
    this.scheduleRestart();
  }

  private scheduleRestart(): void {
    const nowMs = monotonicNowMs();
    const windowMs = this.options.restartWindowMs ?? DEFAULTS.restartWindowMs;
    this.restartAttemptTimes = this.restartAttemptTimes.filter((t) => nowMs - t < windowMs);
    const maxRestarts = this.options.maxRestarts ?? DEFAULTS.maxRestarts;
    if (this.restartAttemptTimes.length >= maxRestarts) {
      this.giveUp(
        `${this.restartAttemptTimes.length} restarts within ${windowMs} ms did not keep the ` +
          'hook alive',
      );
      return;
    }
    const backoffMs = Math.min(
      (this.options.restartBackoffMs ?? DEFAULTS.restartBackoffMs) *
        2 ** this.restartAttemptTimes.length,
      MAX_RESTART_BACKOFF_MS,
    );
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.restart();
    }, backoffMs);
  }

  private async restart(): Promise<void> {
    if (this.stateValue !== 'restarting') {
      return;
    }
    this.restartAttemptTimes.push(monotonicNowMs());
    let child: Supervised | null = null;
    try {
      child = this.spawn();
      const hello = await this.waitForHello(child);
      if (this.stateValue !== 'restarting') {
        return;
      }
      this.stateValue = 'running';
      this.statsValue.restartCount += 1;
      const gap = this.openGap;
      this.openGap = null;
      if (gap !== null) {
        this.reportGap({ ...gap, endMs: hello.t });
      }
      this.events.onDiagnostic({
        code: 'HOOK_RESTARTED',
        message: `input hook restarted (pid ${hello.pid}) after: ${gap?.detail ?? 'a failure'}`,
      });
    } catch (error) {
      if (this.stateValue !== 'restarting') {
        return;
      }
      if (child && !child.channel.isClosed) {
        child.channel.kill('SIGKILL');
        await child.channel.closed;
      }
      this.events.onDiagnostic({
        code: 'HOOK_RESTART_FAILED',
        message:
          `input hook restart failed: ` + (error instanceof Error ? error.message : String(error)),
      });
      this.scheduleRestart();
    }
  }

  private giveUp(reason: string): void {
    this.stateValue = 'failed';
    if (this.openGap !== null) {
      this.reportGap({ ...this.openGap, endMs: null });
      this.openGap = null;
    }
    const error = new AppError(
      'INPUT_HOOK_FAILED',
      `Input capture stopped: ${reason}. Input after the reported gap is not recorded.`,
      { restarts: this.statsValue.restartCount },
    );
    try {
      this.events.onFatal(error);
    } catch {
      // nothing more to do
    }
  }

  private reportGap(gap: InputGap): void {
    this.statsValue.gapCount += 1;
    try {
      this.events.onGap(gap);
    } catch (error) {
      this.events.onDiagnostic({
        code: 'CALLBACK_FAILED',
        message: `onGap threw: ${String(error)}`,
      });
    }
  }
}
