// Masks typed characters while a secure text field (password) has focus: text keys lose their
// key name, character and keycode (which would name the key position) and get the `masked` flag;
// named keys (enter, tab, backspace, arrows) and modifiers are kept, as are kinds and times.
// Applied in the parent before events are handed on, so secrets never reach the store. Pure.
import { EVENT_FLAGS, MODIFIER_BITS } from '../../shared/domain/raw-event';
import type { InputEvent } from './normalize-input-event';
import { isTextKeycode } from './normalize-input-event';

/** Key name that replaces a masked text key. */
export const MASKED_KEY = '•';

/** How long ended mask intervals are kept for events that arrive late, in ms. */
const MASK_HISTORY_MS = 30_000;

type MaskInterval = { startMs: number; endMs: number | null };

/** Decides which key events to mask, by event time and by the current mask state. */
export class KeyMasker {
  private intervals: MaskInterval[] = [];
  /** Keys whose down was masked: their repeats and release are masked too. */
  private readonly maskedKeys = new Set<number>();

  /** True while masking is on. */
  get isOn(): boolean {
    return this.intervals.at(-1)?.endMs === null;
  }

  /** Turns masking on or off at `nowMs` (session clock). */
  setMask(isOn: boolean, nowMs: number): void {
    if (isOn === this.isOn) {
      return;
    }
    const last = this.intervals.at(-1);
    if (isOn) {
      this.intervals.push({ startMs: nowMs, endMs: null });
    } else if (last) {
      last.endMs = nowMs;
    }
    this.intervals = this.intervals.filter(
      (interval) => interval.endMs === null || interval.endMs >= nowMs - MASK_HISTORY_MS,
    );
  }

  /** Forgets masked keys still held (after a gap). */
  reset(): void {
    this.maskedKeys.clear();
  }

  /** The event as it may be stored. */
  apply(event: InputEvent): InputEvent {
    if ((event.kind !== 'keydown' && event.kind !== 'keyup') || event.keycode === null) {
      return event;
    }
    const keycode = event.keycode;
    const wasMaskedDown = this.maskedKeys.has(keycode);
    if (event.kind === 'keyup') {
      this.maskedKeys.delete(keycode);
    }
    const isShortcut = (event.modifiers & (MODIFIER_BITS.ctrl | MODIFIER_BITS.meta)) !== 0;
    // conservative: masked when masking is on now or was on when the key was pressed, so events
    // still in flight when the field gains or loses focus are covered either way
    const shouldMask =
      wasMaskedDown ||
      (isTextKeycode(keycode) && !isShortcut && (this.isOn || this.wasOnAt(event.tMs)));
    if (!shouldMask) {
      return event;
    }
    if (event.kind === 'keydown') {
      this.maskedKeys.add(keycode);
    }
    return {
      ...event,
      keycode: null,
      key: MASKED_KEY,
      char: null,
      keyRaw: null,
      flags: event.flags | EVENT_FLAGS.masked,
    };
  }

  private wasOnAt(tMs: number): boolean {
    return this.intervals.some(
      (interval) => tMs >= interval.startMs && (interval.endMs === null || tMs <= interval.endMs),
    );
  }
}
