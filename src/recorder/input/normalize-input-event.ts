// uiohook event (as forwarded by hook-child.ts) → RawEvent fields (docs/action-reduction.md
// §C.1, §C.6). Pure and deterministic: the only state is the explicit NormalizerState (keys held,
// Caps Lock, last time), which the caller owns and resets after a gap.
import { EVENT_FLAGS, MODIFIER_BITS } from '../../shared/domain/raw-event';
import type { MouseButton, RawEvent } from '../../shared/domain/raw-event';
import { UIOHOOK_EVENT_TYPES, UIOHOOK_WHEEL_DIRECTIONS } from './hook-protocol';
import type { HookInputEvent } from './hook-protocol';
import { layoutChar, layoutKeyName } from './keyboard-layout';
import type { KeyboardLayout } from './keyboard-layout';
import { KEYPAD_TEXT_KEYS, TEXT_KEYS, UNKNOWN_KEY_NAME, VC, namedKeyName } from './vc-keys';

/** A normalised input event: a RawEvent before the session gives it its `idx`. */
export type InputEvent = Omit<RawEvent, 'idx'>;

/** Fixed inputs of the normaliser. */
export type NormalizeOptions = {
  /** What text keys type; see keyboard-layout.ts. */
  layout: KeyboardLayout;
  /** Platform whose key names apply (meta is `cmd` on darwin, `win` elsewhere). */
  platform: NodeJS.Platform;
  /**
   * Use the X server's event time when it is this session's clock: accepted when it lies at most
   * this many ms before the callback stamp (default {@link DEFAULT_SERVER_TIME_MAX_LAG_MS}); 0
   * disables it and uses the callback stamp.
   */
  serverTimeMaxLagMs?: number;
};

/** Mutable state carried from one event to the next. */
export type NormalizerState = {
  /** VC codes currently held (for auto-repeat detection). */
  downKeys: Set<number>;
  /** Caps Lock state as toggled by observed Caps Lock presses (assumed off at start). */
  isCapsLock: boolean;
  /** Last delivered tMs; times never go backwards. */
  lastTMs: number;
};

/**
 * Default tolerance for taking the X server's event time. The server stamps input with
 * CLOCK_MONOTONIC ms (Xorg/Xvfb `GetTimeInMillis`), but delivers XRecord data late when nothing
 * else flushes its output (measured on Xvfb: button events 100–500 ms, auto-repeats up to the
 * key release), so the callback stamp alone can be far off.
 */
export const DEFAULT_SERVER_TIME_MAX_LAG_MS = 10_000;

const UINT32 = 2 ** 32;

const BUTTONS: Readonly<Record<number, MouseButton>> = {
  // libuiohook already swaps X11's middle (2) and right (3) buttons
  1: 'left',
  2: 'right',
  3: 'middle',
  4: 'x1',
  5: 'x2',
};

// Fresh state (nothing held, Caps Lock off).
export function createNormalizerState(): NormalizerState {
  return { downKeys: new Set(), isCapsLock: false, lastTMs: Number.NEGATIVE_INFINITY };
}

// Event time: the X server's stamp when it is on the session clock, else the callback stamp.
export function resolveEventTimeMs(
  callbackTMs: number,
  serverTimeMs: number,
  maxLagMs: number,
): number {
  if (maxLagMs <= 0) {
    return callbackTMs;
  }
  const callbackFloor = Math.floor(callbackTMs);
  // the server time is CLOCK_MONOTONIC ms truncated to 32 bits: compare modulo 2^32
  const lagMs = (((callbackFloor - serverTimeMs) % UINT32) + UINT32) % UINT32;
  return lagMs <= maxLagMs ? callbackFloor - lagMs : callbackTMs;
}

function modifierBits(e: HookInputEvent): number {
  return (
    (e.shiftKey ? MODIFIER_BITS.shift : 0) |
    (e.ctrlKey ? MODIFIER_BITS.ctrl : 0) |
    (e.altKey ? MODIFIER_BITS.alt : 0) |
    (e.metaKey ? MODIFIER_BITS.meta : 0)
  );
}

// pyautogui-style key name of a VC code on the given layout ('a', 'enter', 'ctrl', 'f5', 'num7').
export function keyNameOf(
  keycode: number,
  layout: KeyboardLayout,
  platform: NodeJS.Platform,
): string {
  const textKey = TEXT_KEYS.get(keycode);
  if (textKey) {
    if (keycode === VC.SPACE) {
      return 'space';
    }
    return layoutKeyName(layout, keycode) ?? textKey[1];
  }
  return namedKeyName(keycode, platform) ?? UNKNOWN_KEY_NAME;
}

/** True when the key types text (letters, digits, punctuation, space, numpad digits/operators). */
export function isTextKeycode(keycode: number): boolean {
  return TEXT_KEYS.has(keycode) || KEYPAD_TEXT_KEYS.has(keycode);
}

function resolveChar(
  e: HookInputEvent & { keycode: number },
  state: NormalizerState,
  layout: KeyboardLayout,
): string | null {
  if (!isTextKeycode(e.keycode)) {
    return null;
  }
  const isAltGr = layout.hasAltGr && state.downKeys.has(VC.ALT_R);
  // Ctrl/Meta chords and (left) Alt chords type no text; AltGr does (docs/action-reduction.md §C.6 "AltGr excepted")
  if (e.ctrlKey || e.metaKey || (e.altKey && !isAltGr)) {
    return null;
  }
  const char = layoutChar(layout, e.keycode, {
    isShift: e.shiftKey,
    isCapsLock: state.isCapsLock,
    isAltGr,
  });
  if (char !== null || layout.keys.has(e.keycode)) {
    return char;
  }
  // a position the layout does not define: the US character as the last resort
  const us = TEXT_KEYS.get(e.keycode);
  if (us) {
    return e.shiftKey !== (state.isCapsLock && /^[a-z]$/.test(us[1])) ? us[2] : us[1];
  }
  return KEYPAD_TEXT_KEYS.get(e.keycode)?.[1] ?? null;
}

function baseEvent(tMs: number, e: HookInputEvent): InputEvent {
  return {
    tMs,
    kind: 'other',
    x: null,
    y: null,
    button: null,
    keycode: null,
    key: null,
    char: null,
    keyRaw: null,
    modifiers: modifierBits(e),
    dx: null,
    dy: null,
    flags: 0,
  };
}

// One uiohook event → one InputEvent (updates `state`); `callbackTMs` is the child's stamp.
export function normalizeInputEvent(
  callbackTMs: number,
  e: HookInputEvent,
  state: NormalizerState,
  options: NormalizeOptions,
): InputEvent {
  const maxLagMs = options.serverTimeMaxLagMs ?? DEFAULT_SERVER_TIME_MAX_LAG_MS;
  const tMs = Math.max(resolveEventTimeMs(callbackTMs, e.time, maxLagMs), state.lastTMs);
  state.lastTMs = tMs;
  const event = baseEvent(tMs, e);
  switch (e.type) {
    case UIOHOOK_EVENT_TYPES.mouseMoved:
      return { ...event, kind: 'move', x: e.x, y: e.y };
    case UIOHOOK_EVENT_TYPES.mousePressed:
    case UIOHOOK_EVENT_TYPES.mouseReleased: {
      const button = BUTTONS[e.button] ?? null;
      // X buttons beyond 9 reach uiohook as button 0: keep the event, but not as a click
      const kind =
        button === null ? 'other' : e.type === UIOHOOK_EVENT_TYPES.mousePressed ? 'down' : 'up';
      return { ...event, kind, x: e.x, y: e.y, button };
    }
    case UIOHOOK_EVENT_TYPES.mouseWheel: {
      // libuiohook X11: rotation −1 = up (button 4) or left (6), +1 = down (5) or right (7);
      // RawEvent: dy > 0 = up/away, dx > 0 = right
      const isVertical = e.direction === UIOHOOK_WHEEL_DIRECTIONS.vertical;
      return {
        ...event,
        kind: 'wheel',
        x: e.x,
        y: e.y,
        dx: isVertical ? 0 : e.rotation,
        dy: isVertical ? -e.rotation : 0,
      };
    }
    case UIOHOOK_EVENT_TYPES.keyPressed: {
      const isRepeat = state.downKeys.has(e.keycode);
      state.downKeys.add(e.keycode);
      if (e.keycode === VC.CAPS_LOCK && !isRepeat) {
        state.isCapsLock = !state.isCapsLock;
      }
      return {
        ...event,
        kind: 'keydown',
        keycode: e.keycode,
        key: keyNameOf(e.keycode, options.layout, options.platform),
        char: resolveChar(e, state, options.layout),
        flags: isRepeat ? EVENT_FLAGS.repeat : 0,
      };
    }
    case UIOHOOK_EVENT_TYPES.keyReleased:
      state.downKeys.delete(e.keycode);
      return {
        ...event,
        kind: 'keyup',
        keycode: e.keycode,
        key: keyNameOf(e.keycode, options.layout, options.platform),
      };
  }
}
