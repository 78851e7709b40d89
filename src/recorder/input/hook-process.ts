// InputHook: the parent side of the global input hook (docs/architecture.md §5). It checks the
// preconditions and reads the keymap, lets the HookSupervisor (hook-supervisor.ts) run
// hook-child.ts as a child process through the child launcher, runs the child's events through
// the InputPipeline (input-pipeline.ts: normalise, remove the recorder's own hotkeys, mask
// secure-field typing, batch) and hands on what each read of the child's output brought as one
// batch: the child already holds moves, wheel steps and releases for up to HOOK_DEFERRED_FLUSH_MS
// and writes presses at once, so a batch is never older than that, and the parent needs no timer of
// its own to deliver (one wake-up fewer per batch: bench/recorder.ts). A slower tick releases
// events the hotkey filter held past its limit and runs the watchdog, which turns a silent or dead
// child into a reported gap and a restarted child.
import type { ChildLauncher } from '../../infra/child-launcher';
import { everyPeriod } from '../../infra/shared-tick';
import type { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import type { HotkeyAction, HotkeyBindings } from './hotkeys';
import { HookSupervisor } from './hook-supervisor';
import type { HookChildCommand, InputGap, InputHookDiagnostic, InputHookState } from './hook-types';
import { checkInputHookPreconditions } from './input-preconditions';
import { InputPipeline } from './input-pipeline';
import type { InputPipelineOutput } from './input-pipeline';
import type { KeyboardLayout } from './keyboard-layout';
import type { InputEvent } from './normalize-input-event';
import { readKeyboardLayout } from './read-keyboard-layout';

export type {
  HookChildCommand,
  InputGap,
  InputGapReason,
  InputHookDiagnostic,
  InputHookDiagnosticCode,
  InputHookState,
} from './hook-types';

/** Options of {@link InputHook}. */
export type InputHookOptions = {
  /** Receives normalised, filtered, masked events in order, a batch per read of the child's
   * output (and held events the tick releases). */
  onEvents: (batch: InputEvent[]) => void;
  /** A gap in capture (child died or stalled); called when capture resumes or is given up. */
  onGap?: (gap: InputGap) => void;
  /** One of the recorder's hotkeys was pressed (its events are not in any batch). */
  onHotkey?: (action: HotkeyAction, tMs: number) => void;
  /** The pointer has not moved for `restMs` (after the batch with its last move); `tMs` is when
   * the child saw the rest. Only with `restMs`. */
  onRest?: (tMs: number) => void;
  /** Ask for `onRest` once the pointer has not moved for this long, ms; absent: never. */
  restMs?: number;
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
  /** Starts the hook child; default: bundled when running from out/node/, else the sources
   * through tsx (`detectChildLauncher`). The composition root passes its own. */
  launcher?: ChildLauncher;
  /** Explicit child command (tests: a scripted fake hook); overrides `launcher`. */
  childCommand?: HookChildCommand;
  /** Check DISPLAY and RECORD before starting; default true. */
  shouldCheckPreconditions?: boolean;
  /** Time from spawn to the hello line before HELPER_START_TIMEOUT, ms; default 10000. */
  startTimeoutMs?: number;
  /** Heartbeat period requested from the child, ms; default 250. */
  heartbeatIntervalMs?: number;
  /** Silence (no line at all) after which the child counts as stalled, ms; default 3000. */
  stallTimeoutMs?: number;
  /** How often events the hotkey filter held past its limit are released and the watchdog
   * looks for a silent child, ms; default 500 (the hold limit is 1.5 s, the stall limit 3 s). */
  tickIntervalMs?: number;
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

const DEFAULT_TICK_INTERVAL_MS = 500;

/** Global input capture in a child process, with watchdog, hotkey filter and masking. */
export class InputHook {
  private readonly options: InputHookOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly platform: NodeJS.Platform;
  private readonly pipeline: InputPipeline;
  private readonly supervisor: HookSupervisor;
  private stopTicks: (() => void) | null = null;
  private deliveredEvents = 0;
  private hotkeyCount = 0;
  private stopping: Promise<InputHookStopResult> | null = null;
  private lastTickAtMs = 0;

  constructor(options: InputHookOptions) {
    this.options = options;
    this.env = options.env ?? process.env;
    this.platform = options.platform ?? process.platform;
    // parses the chords now: a bad configuration fails before anything is spawned
    this.pipeline = new InputPipeline({
      hotkeys: options.hotkeys,
      hotkeyHoldLimitMs: options.hotkeyHoldLimitMs,
      platform: this.platform,
      serverTimeMaxLagMs: options.serverTimeMaxLagMs,
      maxBatchSize: options.maxBatchSize,
    });
    this.supervisor = new HookSupervisor(
      { ...options, env: this.env },
      {
        onEvent: (tMs, event) => this.emit(this.pipeline.push(tMs, event)),
        onRest: (tMs) => {
          // the moves before the rest first
          this.emit(this.pipeline.flushDue(monotonicNowMs()));
          try {
            this.options.onRest?.(tMs);
          } catch (error) {
            this.diagnose({ code: 'CALLBACK_FAILED', message: `onRest threw: ${String(error)}` });
          }
        },
        onLinesRead: () => {
          // what this read brought, at once (a stopping hook keeps held events for flushAll)
          this.emit(
            this.supervisor.state === 'stopping'
              ? this.pipeline.flush()
              : this.pipeline.flushDue(monotonicNowMs()),
          );
        },
        onChildLost: () => this.emit(this.pipeline.resetAfterGap()),
        onGap: (gap) => this.options.onGap?.(gap),
        onDiagnostic: (diagnostic) => this.diagnose(diagnostic),
        onFatal: (error) => this.options.onFatal?.(error),
      },
    );
  }

  /** Current lifecycle state. */
  get state(): InputHookState {
    return this.supervisor.state;
  }

  /** Pid of the current child, or null. */
  get childPid(): number | null {
    return this.supervisor.childPid;
  }

  /** Starts capture; resolves once the child's hook runs. */
  async start(): Promise<InputHookStartInfo> {
    const { hello, spawnedAtMs, prepared } = await this.supervisor.start(async () => {
      if (this.options.shouldCheckPreconditions ?? true) {
        const checked = await checkInputHookPreconditions({
          env: this.env,
          platform: this.platform,
        });
        if (checked.note !== null) {
          this.diagnose({ code: 'RECORD_NOT_CHECKED', message: checked.note });
        }
      }
      const layout = this.options.keyboardLayout ?? (await this.readLayout());
      this.pipeline.setLayout(layout);
      return layout;
    });
    this.lastTickAtMs = monotonicNowMs();
    // on the process's shared tick: one wake-up with the disk watch and the live warnings
    this.stopTicks = everyPeriod(this.tickIntervalMs(), () => this.tick());
    return {
      pid: hello.pid,
      capabilities: hello.capabilities,
      startedAtMs: hello.t,
      startupMs: monotonicNowMs() - spawnedAtMs,
      keymap: { source: prepared.source, name: prepared.name },
    };
  }

  /**
   * Resolves once every event the child stamped before `untilMs` was handed on: the child's lines
   * are in order and it sends a heartbeat every few hundred ms (heartbeatIntervalMs), so a line stamped at or after
   * `untilMs` means the earlier ones arrived; the pipeline is then flushed. Gives up after
   * `maxWaitMs` (a stalled child: its watchdog reports that).
   */
  async settle(untilMs: number, maxWaitMs = 1500): Promise<void> {
    const giveUpAt = monotonicNowMs() + maxWaitMs;
    while (
      this.supervisor.state === 'running' &&
      (this.supervisor.lastChildTMs ?? -Infinity) < untilMs &&
      monotonicNowMs() < giveUpAt
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.emit(this.pipeline.flush());
  }

  /** Masks text keys from now on (a secure text field has focus) or stops masking. */
  setMaskKeys(isOn: boolean): void {
    this.pipeline.setMask(isOn, monotonicNowMs());
  }

  /** Stops capture: shutdown request and stdin close, then SIGTERM, then SIGKILL. */
  async stop(): Promise<InputHookStopResult> {
    this.stopping ??= this.stopNow();
    return await this.stopping;
  }

  private async stopNow(): Promise<InputHookStopResult> {
    await this.supervisor.stop(() => {
      if (this.stopTicks) {
        this.stopTicks();
        this.stopTicks = null;
      }
      this.emit(this.pipeline.flushAll());
    });
    return {
      deliveredEvents: this.deliveredEvents,
      hotkeyCount: this.hotkeyCount,
      ...this.supervisor.stats,
    };
  }

  private tick(): void {
    const nowMs = monotonicNowMs();
    // a late tick means this process was blocked: the child's lines may be waiting unread in
    // the pipe, so its silence proves nothing until the pipe has been read again
    const wasBlocked = nowMs - this.lastTickAtMs > 4 * this.tickIntervalMs();
    this.lastTickAtMs = nowMs;
    this.emit(this.pipeline.flushDue(nowMs));
    if (!wasBlocked) {
      this.supervisor.checkStall(nowMs);
    }
  }

  /** Hands the pipeline's output on, in order; a throwing callback is a diagnostic. */
  private emit(outputs: InputPipelineOutput[]): void {
    for (const output of outputs) {
      if (output.kind === 'events') {
        this.deliveredEvents += output.events.length;
        try {
          this.options.onEvents(output.events);
        } catch (error) {
          this.diagnose({ code: 'CALLBACK_FAILED', message: `onEvents threw: ${String(error)}` });
        }
      } else {
        this.hotkeyCount += 1;
        try {
          this.options.onHotkey?.(output.action, output.tMs);
        } catch (error) {
          this.diagnose({ code: 'CALLBACK_FAILED', message: `onHotkey threw: ${String(error)}` });
        }
      }
    }
  }

  private tickIntervalMs(): number {
    return Math.max(this.options.tickIntervalMs ?? DEFAULT_TICK_INTERVAL_MS, 1);
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
}
