// The session's input track: the input hook child (src/recorder/input/hook-process.ts), its
// gaps and hotkeys, the exclusion rules that judge each batch before the sink sees it (one
// batch at a time, in order), the presses kept for excludeAppGesture, and the hand-over of kept
// input to the accessibility track (element lookups, hover rests, snapshots).
import { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import { inputToVirtualPixels, mapInputEvents } from '../coordinates';
import { InputHook, type InputGap } from '../input/hook-process';
import type { InputHookDiagnostic } from '../input/hook-types';
import type { HotkeyAction } from '../input/hotkeys';
import type { InputEvent } from '../input/normalize-input-event';
import type { AccessibilityTrack } from './accessibility-track';
import type { GesturePress, TrackContext } from './types';
import type { WindowTrack } from './window-track';

/** How old the keys and buttons of a batch must be before exclusion rules judge it, ms: the
 * active window's change (xprop's spy) reaches the tracker a moment after the X server made it.
 * A batch whose newest such event is older (the child held it back with moves) is judged at once. */
export const EXCLUSION_TIMELINE_LAG_MS = 20;

/**
 * How long a batch waits before exclusion rules judge it, ms: null for moves only (no wait, no
 * timeline to settle), else until its newest key or button is EXCLUSION_TIMELINE_LAG_MS old (0
 * when it already is: releases the child held back with moves are usually older).
 */
export function exclusionWaitMs(batch: readonly InputEvent[], nowMs: number): number | null {
  let newestMs: number | null = null;
  for (const e of batch) {
    if (e.kind !== 'move' && (newestMs === null || e.tMs > newestMs)) {
      newestMs = e.tMs;
    }
  }
  // never longer than the lag itself, whatever the stamps say
  return newestMs === null
    ? null
    : Math.min(
        EXCLUSION_TIMELINE_LAG_MS,
        Math.max(0, newestMs + EXCLUSION_TIMELINE_LAG_MS - nowMs),
      );
}

/** How long before a request from the app's own window its triggering press may lie, ms. */
export const APP_GESTURE_WINDOW_MS = 3000;

/** What the input track tells the session. */
export type InputTrackHooks = {
  /** Input arrived (an excluded window's too): `lastTMs` is the newest event's stamp. */
  onActivity: (nowMs: number, lastTMs: number | undefined) => void;
  /** Input was lost before it could be stored (INPUT_LOST, HOOK_EVENTS_LOST). */
  onInputLost: (diagnostic: InputHookDiagnostic) => void;
  /** The hook gave up for good: stop the session with this fault. */
  onFault: (error: AppError) => void;
};

/** The input track of one recording session. */
export class InputTrack {
  private hookProcess: InputHook | null = null;
  private readonly gapList: InputGap[] = [];
  /** A gap the hook gave up in (no end yet): stored when the session stops. */
  private openGap: InputGap | null = null;
  private eventCount = 0;
  /** The last button or key presses kept (newest last, a few). */
  private presses: Omit<GesturePress, 'focused'>[] = [];
  /** Input passes the exclusion rules through this chain, one batch after the other. */
  private inputChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: TrackContext,
    private readonly windows: WindowTrack,
    private readonly accessibility: AccessibilityTrack,
    private readonly hooks: InputTrackHooks,
  ) {}

  /** The running input hook (null before start() and once the session tears down). */
  get hook(): InputHook | null {
    return this.hookProcess;
  }

  /** Input events kept so far. */
  get events(): number {
    return this.eventCount;
  }

  /** The input gaps so far (a copy; one the hook gave up in ends when the session stops). */
  get gaps(): InputGap[] {
    return [...this.gapList];
  }

  /** Starts the input hook child; resolves once input is hooked. */
  async start(): Promise<void> {
    const o = this.ctx.options;
    this.hookProcess = new InputHook({
      env: o.env,
      hotkeys: o.hotkeys,
      onEvents: (batch) => this.onInput(batch),
      // hover lookups: the child reports a pointer that stopped (accessibility on only)
      ...(o.accessibility
        ? { restMs: this.accessibility.hoverDelayMs(), onRest: () => this.onRest() }
        : {}),
      onGap: (gap) => {
        this.gapList.push(gap);
        if (gap.endMs === null) {
          // the hook gave up: the gap lasts until the session stops (marked then)
          this.openGap = gap;
          return;
        }
        o.sink.mark({
          tMs: gap.startMs,
          endMs: gap.endMs,
          kind: 'input-gap',
          data: { reason: gap.reason, detail: gap.detail },
        });
      },
      onHotkey: (action, tMs) => this.onHotkey(action, tMs),
      onDiagnostic: (d) => {
        o.onWarning?.(`input: ${d.code}: ${d.message}`);
        if (d.code === 'INPUT_LOST' || d.code === 'HOOK_EVENTS_LOST') {
          this.hooks.onInputLost(d);
        }
      },
      onFatal: (e) => {
        // the fault below is the user's message (onFault): no separate "gave up" line
        const reason = /Input capture stopped: (.*?)\. /.exec(e.message)?.[1] ?? e.message;
        this.hooks.onFault(
          new AppError(
            'INPUT_HOOK_FAILED',
            `Keyboard and mouse capture failed for good, the input hook gave up (${reason}); the recording stopped there: input would no longer become steps and the stop and pause hotkeys no longer work.`,
            e.details,
            'Check that the X display and its RECORD extension are still up (cua-annotator doctor), then record the rest of the task again.',
          ),
        );
      },
      // a batch per read of the child's output (moves held there for up to
      // HOOK_DEFERRED_FLUSH_MS, so one SQLite transaction per 100 ms of motion) and a calmer
      // heartbeat keep the recorder's own CPU small next to ffmpeg's (bench/recorder.ts)
      heartbeatIntervalMs: 500,
      ...o.inputHookOptions,
    });
    await this.hookProcess.start();
  }

  /** Forgets the presses kept so far (a pause: no gesture before it is taken after it). */
  clearPresses(): void {
    this.presses = [];
  }

  /**
   * Leaves the gesture that asked for a stop or pause at `requestMs` out of the steps (see
   * RecordingSession.excludeAppGesture): waits until the hook handed on everything stamped
   * before the request and the exclusion rules judged it, then marks the last press within
   * `withinMs` as `app-input` when it was aimed at the app's own window.
   */
  async excludeAppGesture(requestMs: number, withinMs: number): Promise<void> {
    await this.hookProcess?.settle(requestMs);
    await this.inputChain; // the events exclusion rules were still judging
    const press = this.presses.filter((p) => p.tMs <= requestMs).at(-1);
    const isAppPress = this.ctx.options.isAppPress;
    if (press === undefined || requestMs - press.tMs > withinMs || !isAppPress) {
      return;
    }
    let isApp = false;
    try {
      isApp = await isAppPress({ ...press, focused: this.windows.focused });
    } catch (e) {
      this.ctx.options.onWarning?.(
        `could not tell whether the last press was the app's: ${String(e)}`,
      );
    }
    if (isApp) {
      this.ctx.options.sink.mark({ tMs: press.tMs, endMs: monotonicNowMs(), kind: 'app-input' });
      this.presses = this.presses.filter((p) => p.tMs > requestMs);
    }
  }

  /** Detaches the hook (key masking and gesture settling stop here) and returns it to stop. */
  detachHook(): InputHook | null {
    const hook = this.hookProcess;
    this.hookProcess = null;
    return hook;
  }

  /** Ends the gap the hook gave up in at `endMs` and stores it (the session is stopping). */
  closeOpenGap(endMs: number): void {
    if (!this.openGap) {
      return;
    }
    // input was lost until the fault stopped the session (or until now)
    const gap = { ...this.openGap, endMs };
    this.openGap = null;
    const i = this.gapList.findIndex((g) => g.endMs === null);
    if (i >= 0) {
      this.gapList[i] = gap;
    }
    this.ctx.options.sink.mark({
      tMs: gap.startMs,
      endMs: gap.endMs,
      kind: 'input-gap',
      data: { reason: gap.reason, detail: gap.detail, isGivenUp: true },
    });
  }

  private onInput(batch: InputEvent[]): void {
    const state = this.ctx.state();
    if (state !== 'recording' && state !== 'starting') {
      return; // nothing is captured while paused or stopping
    }
    // any input (an excluded window's too) ends an idle stretch
    this.hooks.onActivity(monotonicNowMs(), batch.at(-1)?.tMs);
    const exclusion = this.ctx.exclusion;
    if (!exclusion) {
      this.keepInput(batch);
      return;
    }
    // exclusion rules judge each batch before the sink sees it, one batch at a time (events keep
    // their order); keys need the timeline to have caught up with the focus change
    const judge = async (): Promise<void> => {
      const waitMs = exclusionWaitMs(batch, monotonicNowMs());
      if (waitMs !== null) {
        if (waitMs > 0) {
          await new Promise((resolve) => setTimeout(resolve, waitMs));
        }
        await this.windows.settled();
      }
      const kept = await exclusion.filter(batch);
      if (kept.length > 0) {
        this.keepInput(kept);
      }
    };
    const before = this.inputChain;
    const next = (async () => {
      await before;
      try {
        await judge();
      } catch (e) {
        this.ctx.options.onWarning?.(`input batch dropped by the exclusion rules: ${String(e)}`);
      }
    })();
    this.inputChain = next;
    this.ctx.track(next);
  }

  // Stores input events and starts the accessibility lookups they call for.
  private keepInput(batch: InputEvent[]): void {
    const space = this.ctx.space();
    this.eventCount += batch.length;
    this.ctx.options.sink.events(mapInputEvents(space, batch));
    for (const e of batch) {
      if (e.kind === 'down' || e.kind === 'keydown') {
        const at =
          e.kind === 'down' && e.x !== null && e.y !== null
            ? inputToVirtualPixels(space, e.x, e.y)
            : null;
        this.presses.push({
          kind: e.kind === 'down' ? 'button' : 'key',
          tMs: e.tMs,
          x: at?.x ?? null,
          y: at?.y ?? null,
          focusedAtPress: this.windows.focused,
        });
        if (this.presses.length > 16) {
          this.presses.shift();
        }
      }
    }
    this.accessibility.onInput(batch);
  }

  // The hook child saw the pointer stop (hook-protocol.ts `HookRestLine`): look up the element
  // under it, so a click that closes its window still gets the element it landed on (the lookup
  // after the click may find the window behind). After the input before it (exclusion rules may
  // still be judging that), and without holding that chain up for the lookup itself.
  private onRest(): void {
    const before = this.inputChain;
    const next = (async () => {
      await before;
      this.accessibility.lookUpRest();
    })();
    this.inputChain = next;
    this.ctx.track(next);
  }

  private onHotkey(action: HotkeyAction, tMs: number): void {
    this.ctx.options.sink.mark({ tMs, kind: `hotkey:${action}` });
    this.ctx.options.onHotkey?.(action);
  }
}
