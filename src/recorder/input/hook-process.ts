// InputHook: the parent side of the global input hook (docs/architecture.md §5). It checks the
// preconditions, runs hook-child.ts as a child process, validates its JSON lines, normalises
// events, removes the recorder's own hotkeys, masks secure-field typing, and hands batches on.
// A watchdog turns a silent or dead child into a reported gap and a restarted child.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import { parseHookLine } from './hook-protocol';
import type { HookHelloLine, HookLine } from './hook-protocol';
import { HotkeyFilter, resolveHotkeys } from './hotkeys';
import type { HotkeyAction, HotkeyBindings } from './hotkeys';
import { checkInputHookPreconditions } from './input-preconditions';
import { KeyMasker } from './key-masking';
import { US_KEYBOARD_LAYOUT } from './keyboard-layout';
import type { KeyboardLayout } from './keyboard-layout';
import { createNormalizerState, normalizeInputEvent } from './normalize-input-event';
import type { InputEvent, NormalizerState } from './normalize-input-event';
import { readKeyboardLayout } from './read-keyboard-layout';

/** Why input was not captured for a while. */
export type InputGapReason = 'child-exit' | 'stall';

/** A stretch of time without input capture. */
export type InputGap = {
  /** Last sign of life of the hook before the gap (session clock, ms). */
  startMs: number;
  /** When a new hook was capturing again (ms); null when the hook gave up (lost until stop). */
  endMs: number | null;
  reason: InputGapReason;
  /** Exit code or signal, stall length, stderr tail. */
  detail: string;
};

/** Kinds of non-fatal problems reported through `onDiagnostic`. */
export type InputHookDiagnosticCode =
  | 'HELPER_PROTOCOL_ERROR'
  | 'HOOK_EVENTS_LOST'
  | 'HOOK_RESTARTED'
  | 'HOOK_RESTART_FAILED'
  | 'KEYMAP_FALLBACK'
  | 'RECORD_NOT_CHECKED'
  | 'CALLBACK_FAILED';

/** A non-fatal problem. */
export type InputHookDiagnostic = {
  code: InputHookDiagnosticCode;
  message: string;
  details?: Record<string, unknown>;
};

/** How to start the child (a test seam and the hook for packaged apps). */
export type HookChildCommand = {
  /** Executable, e.g. `process.execPath`. */
  command: string;
  args: string[];
};

/** Options of {@link InputHook}. */
export type InputHookOptions = {
  /** Receives normalised, filtered, masked events in order; at most every `flushIntervalMs`. */
  onEvents: (batch: InputEvent[]) => void;
  /** A gap in capture (child died or stalled); called when capture resumes or is given up. */
  onGap?: (gap: InputGap) => void;
  /** One of the recorder's hotkeys was pressed (its events are not in any batch). */
  onHotkey?: (action: HotkeyAction, tMs: number) => void;
  /** Non-fatal problems (malformed lines, restarts, keymap fallback). */
  onDiagnostic?: (diagnostic: InputHookDiagnostic) => void;
  /** The hook gave up after repeated failures (INPUT_HOOK_FAILED); no more events will come. */
  onFatal?: (error: AppError) => void;
  /** Hotkey chords over the defaults (`DEFAULT_HOTKEYS`); null disables one. */
  hotkeys?: HotkeyBindings;
  /** Environment of the checks and the child (DISPLAY, XAUTHORITY); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Platform for key names and checks; default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Layout for characters; default: read from the X server with xkbcomp (US on failure). */
  keyboardLayout?: KeyboardLayout;
  /** Child command; default {@link defaultHookChildCommand}. */
  childCommand?: HookChildCommand;
  /** Check DISPLAY and RECORD before starting; default true. */
  shouldCheckPreconditions?: boolean;
  /** Time from spawn to the hello line before HELPER_START_TIMEOUT, ms; default 10000. */
  startTimeoutMs?: number;
  /** Heartbeat period requested from the child, ms; default 250. */
  heartbeatIntervalMs?: number;
  /** Silence (no line at all) after which the child counts as stalled, ms; default 3000. */
  stallTimeoutMs?: number;
  /** Longest delay between an event's arrival and its delivery, ms; default 50 (≤ 100). */
  flushIntervalMs?: number;
  /** A batch this large is delivered at once; default 500 events. */
  maxBatchSize?: number;
  /** Restarts allowed within `restartWindowMs` before giving up; default 5. */
  maxRestarts?: number;
  /** Window for counting restarts, ms; default 60000. */
  restartWindowMs?: number;
  /** First restart delay, doubled per recent restart, ms; default 100 (capped at 5000). */
  restartBackoffMs?: number;
  /** Wait after the shutdown request before SIGTERM, and after SIGTERM before SIGKILL, ms; default 2000. */
  stopGraceMs?: number;
  /** Hotkey filter hold limit, ms; see `HotkeyFilterOptions.holdLimitMs`. */
  hotkeyHoldLimitMs?: number;
  /** Server-time tolerance, ms; see `NormalizeOptions.serverTimeMaxLagMs`. */
  serverTimeMaxLagMs?: number;
};

/** What `start()` resolves with. */
export type InputHookStartInfo = {
  /** Child process id. */
  pid: number;
  /** Capabilities from the hello line. */
  capabilities: string[];
  /** Session clock when the hook was running (hello `t`), ms. */
  startedAtMs: number;
  /** Spawn to hello, ms. */
  startupMs: number;
  /** Where characters come from (`xkb` or `builtin-us`) and the layout name. */
  keymap: { source: KeyboardLayout['source']; name: string };
};

/** What `stop()` resolves with. */
export type InputHookStopResult = {
  /** Events handed to `onEvents` over the hook's life. */
  deliveredEvents: number;
  /** Hotkey presses recognised. */
  hotkeyCount: number;
  /** Gaps reported. */
  gapCount: number;
  /** Successful restarts. */
  restartCount: number;
  /** Malformed lines seen. */
  protocolErrorCount: number;
};

/** Lifecycle states of {@link InputHook}. */
export type InputHookState =
  'idle' | 'starting' | 'running' | 'restarting' | 'stopping' | 'stopped' | 'failed';

const DEFAULTS = {
  startTimeoutMs: 10_000,
  heartbeatIntervalMs: 250,
  stallTimeoutMs: 3000,
  flushIntervalMs: 50,
  maxBatchSize: 500,
  maxRestarts: 5,
  restartWindowMs: 60_000,
  restartBackoffMs: 100,
  stopGraceMs: 2000,
} as const;
const MAX_RESTART_BACKOFF_MS = 5000;
/** Longest stdout line accepted from the child, in characters. */
const MAX_LINE_CHARS = 1024 * 1024;
/** stderr lines kept per child for error messages. */
const STDERR_TAIL_LINES = 20;
/**
 * libuiohook's X11 start failures (stderr of the child), e.g. `xrecord_start [1024]: XOpenDisplay
 * failure!` and `xrecord_query [953]: XRecord is not currently available!`.
 */
const UIOHOOK_FATAL_START =
  /XOpenDisplay failure|XRecord is not currently available|Unable to locate XRecord|Failed to enable XRecord/;
/** Malformed lines reported one by one per child; later ones are only counted. */
const MAX_REPORTED_PROTOCOL_ERRORS = 20;

const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..', '..');

// The child command for Node hosts (CLI, tests): hook-child.ts through tsx's loader.
export function defaultHookChildCommand(heartbeatIntervalMs: number): HookChildCommand {
  return {
    command: process.execPath,
    args: [
      path.join(REPO_ROOT, 'bin', 'run-ts.mjs'),
      path.join(import.meta.dirname, 'hook-child.ts'),
      '--heartbeat-ms',
      String(heartbeatIntervalMs),
    ],
  };
}

/** Children alive in this process, killed when it exits (an orphaned hook would keep recording). */
const liveChildren = new Set<ChildProcess>();
let isExitHandlerInstalled = false;

function trackChild(child: ChildProcess): void {
  liveChildren.add(child);
  if (!isExitHandlerInstalled) {
    isExitHandlerInstalled = true;
    process.on('exit', () => {
      for (const live of liveChildren) {
        live.kill('SIGKILL');
      }
    });
  }
}

type HelloWaiter = {
  resolve: (hello: HookHelloLine) => void;
  reject: (error: Error) => void;
};

/** One spawned child and what the parent knows about it. */
type ChildHandle = {
  proc: ChildProcess;
  spawnedAtMs: number;
  hello: HookHelloLine | null;
  helloWaiter: HelloWaiter | null;
  /** Parent clock of the last line received (watchdog). */
  lastLineAtMs: number;
  /** Child clock of the last line received (gap start). */
  lastChildTMs: number | null;
  receivedEvents: number;
  protocolErrors: number;
  stderrTail: string[];
  /** A uiohook start failure seen on stderr before the hello (the child is then killed). */
  fatalStartLine: string | null;
  /** Set when the parent killed it for a stall. */
  stallDetail: string | null;
  isClosed: boolean;
  closed: Promise<void>;
};

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal === null ? `exit code ${code}` : `signal ${signal}`;
}

function stderrText(handle: ChildHandle): string {
  return handle.stderrTail.join('\n');
}

/** Global input capture in a child process, with watchdog, hotkey filter and masking. */
export class InputHook {
  private readonly options: InputHookOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly platform: NodeJS.Platform;
  private readonly filter: HotkeyFilter;
  private readonly masker = new KeyMasker();
  private normalizerState: NormalizerState = createNormalizerState();
  private layout: KeyboardLayout | null = null;
  private stateValue: InputHookState = 'idle';
  private child: ChildHandle | null = null;
  private batch: InputEvent[] = [];
  private tickTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private openGap: Omit<InputGap, 'endMs'> | null = null;
  private restartAttemptTimes: number[] = [];
  private readonly stats: InputHookStopResult = {
    deliveredEvents: 0,
    hotkeyCount: 0,
    gapCount: 0,
    restartCount: 0,
    protocolErrorCount: 0,
  };
  private stopping: Promise<InputHookStopResult> | null = null;
  private lastTickAtMs = 0;

  constructor(options: InputHookOptions) {
    this.options = options;
    this.env = options.env ?? process.env;
    this.platform = options.platform ?? process.platform;
    // parse the chords now: a bad configuration fails before anything is spawned
    this.filter = new HotkeyFilter(resolveHotkeys(options.hotkeys), {
      holdLimitMs: options.hotkeyHoldLimitMs,
    });
  }

  /** Current lifecycle state. */
  get state(): InputHookState {
    return this.stateValue;
  }

  /** Pid of the current child, or null. */
  get childPid(): number | null {
    return this.child?.proc.pid ?? null;
  }

  /** Starts capture; resolves once the child's hook runs. */
  async start(): Promise<InputHookStartInfo> {
    if (this.stateValue !== 'idle') {
      throw new Error(
        `InputHook.start() called in state '${this.stateValue}'; an InputHook starts once — ` +
          'call stop() and create a new InputHook to capture again',
      );
    }
    this.stateValue = 'starting';
    try {
      if (this.options.shouldCheckPreconditions ?? true) {
        const checked = await checkInputHookPreconditions({
          env: this.env,
          platform: this.platform,
        });
        if (checked.note !== null) {
          this.diagnose({ code: 'RECORD_NOT_CHECKED', message: checked.note });
        }
      }
      this.layout = this.options.keyboardLayout ?? (await this.readLayout());
      this.assertStillStarting();
      const handle = this.spawnChild();
      const hello = await this.waitForHello(handle);
      this.assertStillStarting();
      this.stateValue = 'running';
      this.lastTickAtMs = monotonicNowMs();
      this.tickTimer = setInterval(() => this.tick(), this.flushIntervalMs());
      this.tickTimer.unref();
      return {
        pid: hello.pid,
        capabilities: hello.capabilities,
        startedAtMs: hello.t,
        startupMs: monotonicNowMs() - handle.spawnedAtMs,
        keymap: { source: this.layout.source, name: this.layout.name },
      };
    } catch (error) {
      if (this.stateValue === 'starting') {
        this.stateValue = 'failed';
      }
      const handle = this.child;
      if (handle && !handle.isClosed) {
        handle.proc.kill('SIGKILL');
        await handle.closed;
      }
      throw error;
    }
  }

  private assertStillStarting(): void {
    // stop() may run while start() awaits; it wins
    if (this.stateValue !== 'starting') {
      throw new Error('InputHook.stop() was called while the hook was starting');
    }
  }

  /** Masks text keys from now on (a secure text field has focus) or stops masking. */
  setMaskKeys(isOn: boolean): void {
    this.masker.setMask(isOn, monotonicNowMs());
  }

  /** Stops capture: shutdown request and stdin close, then SIGTERM, then SIGKILL. */
  async stop(): Promise<InputHookStopResult> {
    this.stopping ??= this.stopNow();
    return await this.stopping;
  }

  private async stopNow(): Promise<InputHookStopResult> {
    const previous = this.stateValue;
    this.stateValue = 'stopping';
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
    }
    const handle = this.child;
    if (handle && !handle.isClosed) {
      await this.terminate(handle);
    }
    if (this.tickTimer) {
      clearInterval(this.tickTimer);
      this.tickTimer = null;
    }
    for (const event of this.filter.flushAll()) {
      this.deliver(event);
    }
    this.flushBatch();
    if (this.openGap !== null && previous !== 'failed') {
      this.reportGap({ ...this.openGap, endMs: monotonicNowMs() });
    }
    this.stateValue = 'stopped';
    return { ...this.stats };
  }

  private async terminate(handle: ChildHandle): Promise<void> {
    const graceMs = this.options.stopGraceMs ?? DEFAULTS.stopGraceMs;
    const stdin = handle.proc.stdin;
    if (stdin && !stdin.destroyed) {
      stdin.on('error', () => undefined);
      stdin.write(`${JSON.stringify({ id: 'stop', method: 'shutdown' })}\n`);
      stdin.end();
    }
    if (await this.closedWithin(handle, graceMs)) {
      return;
    }
    handle.proc.kill('SIGTERM');
    if (await this.closedWithin(handle, graceMs)) {
      return;
    }
    handle.proc.kill('SIGKILL');
    await handle.closed;
  }

  private async closedWithin(handle: ChildHandle, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const closed = await Promise.race([
      (async () => {
        await handle.closed;
        return true;
      })(),
      timeout,
    ]);
    clearTimeout(timer);
    return closed;
  }

  private flushIntervalMs(): number {
    return Math.min(this.options.flushIntervalMs ?? DEFAULTS.flushIntervalMs, 100);
  }

  private async readLayout(): Promise<KeyboardLayout> {
    const reading = await readKeyboardLayout(this.env);
    if (reading.problem !== null) {
      this.diagnose({
        code: 'KEYMAP_FALLBACK',
        message: `characters are resolved with the built-in US layout: ${reading.problem}`,
      });
    }
    return reading.layout;
  }

  private diagnose(diagnostic: InputHookDiagnostic): void {
    try {
      this.options.onDiagnostic?.(diagnostic);
    } catch {
      // a failing diagnostics sink must not take capture down
    }
  }

  private spawnChild(): ChildHandle {
    const heartbeatMs = this.options.heartbeatIntervalMs ?? DEFAULTS.heartbeatIntervalMs;
    const { command, args } = this.options.childCommand ?? defaultHookChildCommand(heartbeatMs);
    const proc = spawn(command, args, {
      env: this.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let markClosed: () => void = () => undefined;
    const handle: ChildHandle = {
      proc,
      spawnedAtMs: monotonicNowMs(),
      hello: null,
      helloWaiter: null,
      lastLineAtMs: monotonicNowMs(),
      lastChildTMs: null,
      receivedEvents: 0,
      protocolErrors: 0,
      stderrTail: [],
      fatalStartLine: null,
      stallDetail: null,
      isClosed: false,
      closed: new Promise<void>((resolve) => {
        markClosed = resolve;
      }),
    };
    this.child = handle;
    trackChild(proc);

    const stdoutDecoder = new StringDecoder('utf8');
    let stdoutRest = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      const text = stdoutRest + stdoutDecoder.write(chunk);
      const lines = text.split('\n');
      stdoutRest = lines.pop() ?? '';
      if (stdoutRest.length > MAX_LINE_CHARS) {
        this.protocolError(handle, `line longer than ${MAX_LINE_CHARS} characters`, stdoutRest);
        stdoutRest = '';
      }
      for (const line of lines) {
        this.onLine(handle, line);
      }
      this.afterLines();
    });
    const stderrDecoder = new StringDecoder('utf8');
    let stderrRest = '';
    proc.stderr?.on('data', (chunk: Buffer) => {
      const lines = (stderrRest + stderrDecoder.write(chunk)).split('\n');
      stderrRest = lines.pop() ?? '';
      const kept = lines.filter((line) => line.trim() !== '');
      handle.stderrTail.push(...kept);
      handle.stderrTail.splice(0, Math.max(0, handle.stderrTail.length - STDERR_TAIL_LINES));
      const fatal = kept.find((line) => UIOHOOK_FATAL_START.test(line));
      if (fatal !== undefined && handle.helloWaiter !== null && handle.fatalStartLine === null) {
        // uiohook usually SIGABRTs after this line, but without a display it sometimes deadlocks
        // instead (measured: 1 start in 6): do not wait for the start timeout
        handle.fatalStartLine = fatal;
        proc.kill('SIGKILL');
      }
    });
    proc.on('error', (error) => {
      // spawn failures (ENOENT) come here; 'close' follows
      handle.stderrTail.push(`spawn error: ${error.message}`);
    });
    proc.on('close', (code, signal) => {
      if (stdoutRest.trim() !== '') {
        this.onLine(handle, stdoutRest);
        stdoutRest = '';
        this.afterLines();
      }
      handle.isClosed = true;
      liveChildren.delete(proc);
      markClosed();
      this.onChildClosed(handle, code, signal);
    });
    return handle;
  }

  private async waitForHello(handle: ChildHandle): Promise<HookHelloLine> {
    const timeoutMs = this.options.startTimeoutMs ?? DEFAULTS.startTimeoutMs;
    return await new Promise<HookHelloLine>((resolve, reject) => {
      const timer = setTimeout(() => {
        handle.helloWaiter = null;
        handle.proc.kill('SIGKILL');
        reject(
          new AppError(
            'HELPER_START_TIMEOUT',
            `The input-hook child (pid ${handle.proc.pid}) sent no hello within ${timeoutMs} ms.` +
              (handle.stderrTail.length > 0 ? ` Its stderr: ${stderrText(handle)}` : ''),
            { timeoutMs, stderr: stderrText(handle) },
          ),
        );
      }, timeoutMs);
      handle.helloWaiter = {
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

  private protocolError(handle: ChildHandle, problem: string, line: string): void {
    handle.protocolErrors += 1;
    this.stats.protocolErrorCount += 1;
    if (handle.protocolErrors <= MAX_REPORTED_PROTOCOL_ERRORS) {
      this.diagnose({
        code: 'HELPER_PROTOCOL_ERROR',
        message: `input-hook child sent a malformed line (${problem}); it was ignored`,
        details: { line: line.slice(0, 300), problem, pid: handle.proc.pid },
      });
    }
  }

  private onLine(handle: ChildHandle, text: string): void {
    if (handle !== this.child || this.stateValue === 'stopped') {
      return;
    }
    handle.lastLineAtMs = monotonicNowMs();
    if (text.trim() === '') {
      return;
    }
    const parsed = parseHookLine(text);
    if (!parsed.ok) {
      this.protocolError(handle, parsed.problem, text);
      return;
    }
    this.onHookLine(handle, parsed.line, text);
  }

  private onHookLine(handle: ChildHandle, line: HookLine, text: string): void {
    switch (line.type) {
      case 'event': {
        handle.receivedEvents += 1;
        handle.lastChildTMs = line.t;
        const event = normalizeInputEvent(line.t, line.e, this.normalizerState, {
          layout: this.layout ?? US_KEYBOARD_LAYOUT,
          platform: this.platform,
          serverTimeMaxLagMs: this.options.serverTimeMaxLagMs,
        });
        this.route(event);
        return;
      }
      case 'heartbeat':
        handle.lastChildTMs = line.t;
        if (line.sent !== handle.receivedEvents) {
          this.diagnose({
            code: 'HOOK_EVENTS_LOST',
            message:
              `the input-hook child wrote ${line.sent} events but ${handle.receivedEvents} arrived ` +
              '(malformed or lost lines)',
            details: { sent: line.sent, received: handle.receivedEvents },
          });
          // report each shortfall once
          handle.receivedEvents = line.sent;
        }
        return;
      case 'hello': {
        if (handle.hello !== null) {
          this.protocolError(handle, 'second hello', text);
          return;
        }
        handle.hello = line;
        handle.lastChildTMs = line.t;
        const waiter = handle.helloWaiter;
        handle.helloWaiter = null;
        waiter?.resolve(line);
        return;
      }
      case 'response':
        // the only request is shutdown; its answer needs no handling
        return;
    }
  }

  private route(event: InputEvent): void {
    const output = this.filter.push(event);
    for (const released of output.events) {
      this.deliver(released);
    }
    if (output.hotkey) {
      // everything before the chord reaches the consumer before the hotkey does
      this.flushBatch();
      this.stats.hotkeyCount += 1;
      try {
        this.options.onHotkey?.(output.hotkey.action, output.hotkey.tMs);
      } catch (error) {
        this.diagnose({ code: 'CALLBACK_FAILED', message: `onHotkey threw: ${String(error)}` });
      }
    }
  }

  private deliver(event: InputEvent): void {
    this.batch.push(this.masker.apply(event));
    if (this.batch.length >= (this.options.maxBatchSize ?? DEFAULTS.maxBatchSize)) {
      this.flushBatch();
    }
  }

  private afterLines(): void {
    // tick() delivers on the cadence; a stopping hook delivers as lines come
    if (this.stateValue === 'stopping') {
      this.flushBatch();
    }
  }

  private flushBatch(): void {
    if (this.batch.length === 0) {
      return;
    }
    const batch = this.batch;
    this.batch = [];
    this.stats.deliveredEvents += batch.length;
    try {
      this.options.onEvents(batch);
    } catch (error) {
      this.diagnose({ code: 'CALLBACK_FAILED', message: `onEvents threw: ${String(error)}` });
    }
  }

  private tick(): void {
    const nowMs = monotonicNowMs();
    // a late tick means this process was blocked: the child's lines may be waiting unread in
    // the pipe, so its silence proves nothing until the pipe has been read again
    const wasBlocked = nowMs - this.lastTickAtMs > 4 * this.flushIntervalMs();
    this.lastTickAtMs = nowMs;
    for (const event of this.filter.flushDue(nowMs)) {
      this.deliver(event);
    }
    this.flushBatch();
    const handle = this.child;
    const stallMs = this.options.stallTimeoutMs ?? DEFAULTS.stallTimeoutMs;
    if (
      this.stateValue === 'running' &&
      !wasBlocked &&
      handle !== null &&
      !handle.isClosed &&
      handle.stallDetail === null &&
      nowMs - handle.lastLineAtMs > stallMs
    ) {
      handle.stallDetail = `no line (not even a heartbeat) for ${Math.round(nowMs - handle.lastLineAtMs)} ms`;
      handle.proc.kill('SIGKILL');
    }
  }

  private onChildClosed(
    handle: ChildHandle,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): void {
    const exit = describeExit(code, signal);
    const stderr = stderrText(handle);
    if (handle.helloWaiter !== null) {
      const waiter = handle.helloWaiter;
      handle.helloWaiter = null;
      if (this.stateValue === 'stopping') {
        waiter.reject(new Error('InputHook.stop() was called while the hook was starting'));
        return;
      }
      waiter.reject(
        new AppError(
          'INPUT_HOOK_UNAVAILABLE',
          `The input-hook child exited before its hook ran (${exit}).` +
            (stderr ? ` Its stderr: ${stderr}` : '') +
            (signal === 'SIGABRT' || handle.fatalStartLine !== null
              ? ' uiohook fails like this when the X display or its RECORD extension is missing.'
              : ''),
          { exitCode: code, signal, stderr },
        ),
      );
      return;
    }
    if (handle !== this.child || this.stateValue !== 'running') {
      return;
    }
    const reason: InputGapReason = handle.stallDetail === null ? 'child-exit' : 'stall';
    const detail =
      (handle.stallDetail ?? `the input-hook child ended unexpectedly (${exit})`) +
      (stderr ? `; stderr: ${stderr}` : '');
    this.beginGap(handle, reason, detail);
  }

  private beginGap(handle: ChildHandle, reason: InputGapReason, detail: string): void {
    // events of the dead child are complete and valid: deliver them before the gap
    for (const event of this.filter.flushAll()) {
      this.deliver(event);
    }
    this.flushBatch();
    // key and button releases may be lost in the gap: forget what was held
    this.normalizerState = { ...createNormalizerState(), lastTMs: this.normalizerState.lastTMs };
    this.filter.reset();
    this.masker.reset();
    this.openGap = {
      startMs: handle.lastChildTMs ?? handle.hello?.t ?? handle.spawnedAtMs,
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
        `${this.restartAttemptTimes.length} restarts within ${windowMs} ms did not keep the hook alive`,
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
    let handle: ChildHandle | null = null;
    try {
      handle = this.spawnChild();
      const hello = await this.waitForHello(handle);
      if (this.stateValue !== 'restarting') {
        return;
      }
      this.stateValue = 'running';
      this.stats.restartCount += 1;
      const gap = this.openGap;
      this.openGap = null;
      if (gap !== null) {
        this.reportGap({ ...gap, endMs: hello.t });
      }
      this.diagnose({
        code: 'HOOK_RESTARTED',
        message: `input hook restarted (pid ${hello.pid}) after: ${gap?.detail ?? 'a failure'}`,
      });
    } catch (error) {
      if (this.stateValue !== 'restarting') {
        return;
      }
      if (handle && !handle.isClosed) {
        handle.proc.kill('SIGKILL');
        await handle.closed;
      }
      this.diagnose({
        code: 'HOOK_RESTART_FAILED',
        message: `input hook restart failed: ${error instanceof Error ? error.message : String(error)}`,
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
      { restarts: this.stats.restartCount },
    );
    try {
      this.options.onFatal?.(error);
    } catch {
      // nothing more to do
    }
  }

  private reportGap(gap: InputGap): void {
    this.stats.gapCount += 1;
    try {
      this.options.onGap?.(gap);
    } catch (error) {
      this.diagnose({ code: 'CALLBACK_FAILED', message: `onGap threw: ${String(error)}` });
    }
  }
}
