// The parent's input-event pipeline (pure: no process, no timers, no clock of its own):
// normalise each uiohook event (normalize-input-event.ts) → remove the recorder's hotkeys
// (hotkeys.ts) → mask secure-field typing (key-masking.ts) → batch (event-batcher.ts). Every call
// returns what is ready to hand on, in order: batches of events and hotkey presses, a hotkey
// always after the events that preceded its chord (docs/architecture.md §5).
import type { HookInputEvent } from './hook-protocol';
import { HotkeyFilter, resolveHotkeys } from './hotkeys';
import type { HotkeyAction, HotkeyBindings } from './hotkeys';
import { EventBatcher } from './event-batcher';
import { KeyMasker } from './key-masking';
import { US_KEYBOARD_LAYOUT } from './keyboard-layout';
import type { KeyboardLayout } from './keyboard-layout';
import { createNormalizerState, normalizeInputEvent } from './normalize-input-event';
import type { InputEvent, NormalizerState } from './normalize-input-event';

/** Options of {@link InputPipeline}. */
export type InputPipelineOptions = {
  /** Hotkey chords over the defaults (`DEFAULT_HOTKEYS`); null disables one. */
  hotkeys?: HotkeyBindings;
  /** Hotkey filter hold limit, ms; see `HotkeyFilterOptions.holdLimitMs`. */
  hotkeyHoldLimitMs?: number;
  /** Platform for key names; default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Layout for characters; default US until {@link InputPipeline.setLayout}. */
  layout?: KeyboardLayout;
  /** Server-time tolerance, ms; see `NormalizeOptions.serverTimeMaxLagMs`. */
  serverTimeMaxLagMs?: number;
  /** A batch this large is handed on at once; default 500 events. */
  maxBatchSize?: number;
};

/** Something ready to hand on. */
export type InputPipelineOutput =
  { kind: 'events'; events: InputEvent[] } | { kind: 'hotkey'; action: HotkeyAction; tMs: number };

/** normalise → hotkey filter → mask → batch. */
export class InputPipeline {
  private readonly filter: HotkeyFilter;
  private readonly masker = new KeyMasker();
  private readonly batcher: EventBatcher;
  private readonly platform: NodeJS.Platform;
  private readonly serverTimeMaxLagMs: number | undefined;
  private layout: KeyboardLayout;
  private normalizerState: NormalizerState = createNormalizerState();

  /** Parses the hotkey chords now: a bad configuration throws before anything runs. */
  constructor(options: InputPipelineOptions = {}) {
    this.filter = new HotkeyFilter(resolveHotkeys(options.hotkeys), {
      holdLimitMs: options.hotkeyHoldLimitMs,
    });
    this.batcher = new EventBatcher(options.maxBatchSize);
    this.platform = options.platform ?? process.platform;
    this.serverTimeMaxLagMs = options.serverTimeMaxLagMs;
    this.layout = options.layout ?? US_KEYBOARD_LAYOUT;
  }

  /** Sets the layout that turns keys into characters from now on. */
  setLayout(layout: KeyboardLayout): void {
    this.layout = layout;
  }

  /** Masks text keys from `nowMs` on (a secure text field has focus), or stops masking. */
  setMask(isOn: boolean, nowMs: number): void {
    this.masker.setMask(isOn, nowMs);
  }

  /** Feeds one hook event stamped `callbackTMs` by the child. */
  push(callbackTMs: number, raw: HookInputEvent): InputPipelineOutput[] {
    const event = normalizeInputEvent(callbackTMs, raw, this.normalizerState, {
      layout: this.layout,
      platform: this.platform,
      serverTimeMaxLagMs: this.serverTimeMaxLagMs,
    });
    const filtered = this.filter.push(event);
    const out: InputPipelineOutput[] = [];
    for (const released of filtered.events) {
      this.add(released, out);
    }
    if (filtered.hotkey) {
      // everything before the chord is handed on before the hotkey is
      this.flushInto(out);
      out.push({ kind: 'hotkey', action: filtered.hotkey.action, tMs: filtered.hotkey.tMs });
    }
    return out;
  }

  /** The flush cadence: events held for a chord past their hold limit at `nowMs`, then the
   * batch. */
  flushDue(nowMs: number): InputPipelineOutput[] {
    const out: InputPipelineOutput[] = [];
    for (const event of this.filter.flushDue(nowMs)) {
      this.add(event, out);
    }
    this.flushInto(out);
    return out;
  }

  /** The batch so far (held events stay held). */
  flush(): InputPipelineOutput[] {
    const out: InputPipelineOutput[] = [];
    this.flushInto(out);
    return out;
  }

  /** Everything: held events, then the batch (stop). */
  flushAll(): InputPipelineOutput[] {
    const out: InputPipelineOutput[] = [];
    for (const event of this.filter.flushAll()) {
      this.add(event, out);
    }
    this.flushInto(out);
    return out;
  }

  /** After a gap in the stream: hands on everything, then forgets held keys and buttons (their
   * releases may be lost), keeping only the time floor. */
  resetAfterGap(): InputPipelineOutput[] {
    const out = this.flushAll();
    this.normalizerState = { ...createNormalizerState(), lastTMs: this.normalizerState.lastTMs };
    this.filter.reset();
    this.masker.reset();
    return out;
  }

  private add(event: InputEvent, out: InputPipelineOutput[]): void {
    const full = this.batcher.push(this.masker.apply(event));
    if (full !== null) {
      out.push({ kind: 'events', events: full });
    }
  }

  private flushInto(out: InputPipelineOutput[]): void {
    const batch = this.batcher.flush();
    if (batch !== null) {
      out.push({ kind: 'events', events: batch });
    }
  }
}
