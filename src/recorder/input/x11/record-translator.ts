// X core input events as the RECORD extension reports them (32-byte xEvents) → the hook
// protocol's uiohook-shaped events (hook-protocol.ts), with the meaning uiohook-napi 1.5.5 gives
// them on X11, so the parent cannot tell the two hooks apart (docs/platform-linux.md §3a):
// - keys: the key position's VC code (evdev-keycodes.ts); numpad digits and the decimal key carry
//   0xEE00 while Num Lock is off; modifier flags follow the left/right modifier keys seen going
//   down and up (set before a press is reported, cleared before a release is);
// - buttons: through the server's pointer mapping, X's middle (2) and right (3) swapped to
//   uiohook's 3 and 2, 8/9 → 4/5, others 0; click counts within the multi-click time;
// - wheel: buttons 4–7 pressed (releases dropped), 3 units a notch, −1 for up/left;
// - moves (also while a button is held: uiohook-napi reports drags as moves);
// - coordinates: root-window pixels. (libuiohook subtracts the first RandR CRTC's origin when
//   there are several CRTCs; the recorder's coordinate contract is the root window's, so this
//   hook does not.)
// Pure: the state is the instance's; time comes from the events.
import type { HookInputEvent } from '../hook-protocol';
import { UIOHOOK_EVENT_TYPES, UIOHOOK_WHEEL_DIRECTIONS } from '../hook-protocol';
import { VC } from '../vc-keys';
import { EVDEV_KEYCODE_TO_VC } from './evdev-keycodes';

/** X core event types. */
export const X_EVENT = {
  keyPress: 2,
  keyRelease: 3,
  buttonPress: 4,
  buttonRelease: 5,
  motionNotify: 6,
} as const;

/** Fixed facts the translator needs from the server. */
export type RecordTranslatorOptions = {
  /** GetPointerMapping: physical button i+1 → logical button map[i]. */
  pointerMap: readonly number[];
  /** Modifier mask bit that is Num Lock (GetModifierMapping; Mod2 = 0x10 on every stock keymap). */
  numLockMask: number;
  /** Multi-click time in ms (Xt's default is 200). */
  multiClickMs: number;
};

const VC_TO_MODIFIER_BIT: ReadonlyMap<number, number> = new Map([
  [VC.SHIFT_L, 1 << 0],
  [VC.SHIFT_R, 1 << 1],
  [VC.CONTROL_L, 1 << 2],
  [VC.CONTROL_R, 1 << 3],
  [VC.ALT_L, 1 << 4],
  [VC.ALT_R, 1 << 5],
  [VC.META_L, 1 << 6],
  [VC.META_R, 1 << 7],
]);
const SHIFT = 0b11;
const CTRL = 0b1100;
const ALT = 0b110000;
const META = 0b11000000;

/** Numpad codes that mean Home/End/… while Num Lock is off (they then carry 0xEE00). */
const KEYPAD_NAVIGATION: ReadonlySet<number> = new Set([
  0x0053, 0x004f, 0x0050, 0x0051, 0x004b, 0x004c, 0x004d, 0x0047, 0x0048, 0x0052, 0x0049,
]);

const WHEEL_UP = 4;
const WHEEL_DOWN = 5;
const WHEEL_LEFT = 6;
const WHEEL_RIGHT = 7;
const MAX_CLICKS = 0xffff;

/** X keycode → VC code (0 for keys libuiohook does not know). */
export function vcOfKeycode(keycode: number): number {
  return EVDEV_KEYCODE_TO_VC.get(keycode) ?? 0;
}

/** Signed difference of two 32-bit X times (ms). */
const timeDiff = (a: number, b: number): number => (a - b) | 0;

/** Translates one recorded xEvent at a time. */
export class RecordTranslator {
  private modifiers = 0;
  private clickButton = 0;
  private clickCount = 0;
  private clickTime = 0;
  private options: RecordTranslatorOptions;

  constructor(options: RecordTranslatorOptions) {
    this.options = options;
  }

  /** New pointer mapping (a MappingNotify) or Num Lock bit. */
  update(options: Partial<RecordTranslatorOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /** Modifier keys already held when capture starts (QueryKeymap's 32-byte bit vector). */
  seedHeldKeys(keymap: Uint8Array): void {
    this.modifiers = 0;
    for (const [keycode, vc] of EVDEV_KEYCODE_TO_VC) {
      const bit = VC_TO_MODIFIER_BIT.get(vc);
      if (bit !== undefined && (keymap[keycode >> 3]! & (1 << (keycode & 7))) !== 0) {
        this.modifiers |= bit;
      }
    }
  }

  /** The event in `bytes` at `at` (32 bytes), or null for what uiohook does not report. */
  translate(bytes: Buffer, at = 0): HookInputEvent | null {
    const type = bytes[at]! & 0x7f;
    const detail = bytes[at + 1]!;
    const time = bytes.readUInt32LE(at + 4);
    const x = bytes.readInt16LE(at + 20);
    const y = bytes.readInt16LE(at + 22);
    const state = bytes.readUInt16LE(at + 28);
    switch (type) {
      case X_EVENT.keyPress:
      case X_EVENT.keyRelease: {
        const isPress = type === X_EVENT.keyPress;
        let keycode = vcOfKeycode(detail);
        const bit = VC_TO_MODIFIER_BIT.get(keycode);
        if (bit !== undefined) {
          this.modifiers = isPress ? this.modifiers | bit : this.modifiers & ~bit;
        }
        if ((state & this.options.numLockMask) === 0 && KEYPAD_NAVIGATION.has(keycode)) {
          keycode |= VC.KP_NAVIGATION_BIT;
        }
        return {
          type: isPress ? UIOHOOK_EVENT_TYPES.keyPressed : UIOHOOK_EVENT_TYPES.keyReleased,
          time,
          ...this.flags(),
          keycode,
        };
      }
      case X_EVENT.buttonPress:
      case X_EVENT.buttonRelease: {
        const mapped = this.mapButton(detail);
        const isWheel = mapped >= WHEEL_UP && mapped <= WHEEL_RIGHT;
        const isPress = type === X_EVENT.buttonPress;
        if (isWheel) {
          if (!isPress) {
            return null;
          }
          this.clickCount = 1;
          this.clickButton = 0;
          return {
            type: UIOHOOK_EVENT_TYPES.mouseWheel,
            time,
            ...this.flags(),
            x,
            y,
            clicks: 1,
            amount: 3,
            direction:
              detail === WHEEL_UP || detail === WHEEL_DOWN
                ? UIOHOOK_WHEEL_DIRECTIONS.vertical
                : UIOHOOK_WHEEL_DIRECTIONS.horizontal,
            rotation: detail === WHEEL_UP || detail === WHEEL_LEFT ? -1 : 1,
          };
        }
        const button = uiohookButton(mapped);
        if (isPress) {
          if (
            button === this.clickButton &&
            timeDiff(time, this.clickTime) <= this.options.multiClickMs
          ) {
            this.clickCount = Math.min(this.clickCount + 1, MAX_CLICKS);
          } else {
            this.clickCount = 1;
            this.clickButton = button;
          }
          this.clickTime = time;
          return {
            type: UIOHOOK_EVENT_TYPES.mousePressed,
            time,
            ...this.flags(),
            x,
            y,
            button,
            clicks: this.clickCount,
          };
        }
        const released: HookInputEvent = {
          type: UIOHOOK_EVENT_TYPES.mouseReleased,
          time,
          ...this.flags(),
          x,
          y,
          button,
          clicks: this.clickCount,
        };
        if (
          button === this.clickButton &&
          timeDiff(time, this.clickTime) > this.options.multiClickMs
        ) {
          this.clickCount = 0;
        }
        return released;
      }
      case X_EVENT.motionNotify:
        if (this.clickCount !== 0 && timeDiff(time, this.clickTime) > this.options.multiClickMs) {
          this.clickCount = 0;
        }
        return {
          type: UIOHOOK_EVENT_TYPES.mouseMoved,
          time,
          ...this.flags(),
          x,
          y,
          button: 0,
          clicks: this.clickCount,
        };
      default:
        return null;
    }
  }

  private mapButton(detail: number): number {
    const map = this.options.pointerMap;
    const logical = detail >= 1 && detail <= map.length ? map[detail - 1]! : detail;
    return logical === 2 ? 3 : logical === 3 ? 2 : logical;
  }

  private flags(): { altKey: boolean; ctrlKey: boolean; metaKey: boolean; shiftKey: boolean } {
    return {
      altKey: (this.modifiers & ALT) !== 0,
      ctrlKey: (this.modifiers & CTRL) !== 0,
      metaKey: (this.modifiers & META) !== 0,
      shiftKey: (this.modifiers & SHIFT) !== 0,
    };
  }
}

// logical button after the 2/3 swap → uiohook's button number
function uiohookButton(mapped: number): number {
  switch (mapped) {
    case 1:
    case 2:
    case 3:
      return mapped;
    case 8:
      return 4;
    case 9:
      return 5;
    default:
      return 0;
  }
}
