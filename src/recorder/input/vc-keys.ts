// libuiohook virtual key codes (VC_*, `UiohookKey`) and what they mean to the recorder: the
// pyautogui-style key name, the XKB key position that produces text, and the US-layout characters.
// Codes from libuiohook `include/uiohook.h` (uiohook-napi 1.5.5). They are layout independent:
// on X11 libuiohook maps the X keycode (evdev) to the scan-code-like VC value of the key position.

/** VC codes used by name in the recorder. */
export const VC = {
  ESCAPE: 0x0001,
  BACKSPACE: 0x000e,
  TAB: 0x000f,
  ENTER: 0x001c,
  SPACE: 0x0039,
  CAPS_LOCK: 0x003a,
  NUM_LOCK: 0x0045,
  SHIFT_L: 0x002a,
  SHIFT_R: 0x0036,
  CONTROL_L: 0x001d,
  CONTROL_R: 0x0e1d,
  ALT_L: 0x0038,
  ALT_R: 0x0e38,
  META_L: 0x0e5b,
  META_R: 0x0e5c,
  A: 0x001e,
  H: 0x0023,
  Y: 0x0015,
  Z: 0x002c,
  SEMICOLON: 0x0027,
  KP_0: 0x0052,
  KP_7: 0x0047,
  KP_SEPARATOR: 0x0053,
  KP_ENTER: 0x0e1c,
  /** Bit set on numpad digit codes when Num Lock is off (the key acts as Home, End, …). */
  KP_NAVIGATION_BIT: 0xee00,
} as const;

/** Which modifier a modifier key is. */
export type ModifierName = 'shift' | 'ctrl' | 'alt' | 'meta';

/** Modifier keys by VC code (both sides). */
export const MODIFIER_KEYS: ReadonlyMap<number, ModifierName> = new Map<number, ModifierName>([
  [VC.SHIFT_L, 'shift'],
  [VC.SHIFT_R, 'shift'],
  [VC.CONTROL_L, 'ctrl'],
  [VC.CONTROL_R, 'ctrl'],
  [VC.ALT_L, 'alt'],
  [VC.ALT_R, 'alt'],
  [VC.META_L, 'meta'],
  [VC.META_R, 'meta'],
]);

/**
 * Keys that produce text, by VC code: [XKB key name, US character, US shifted character].
 * The XKB name (`xkeyboard-config` keycodes, identical for evdev and xfree86 keycode sets) lets the
 * running X keymap say what the key types on the user's layout; the US pair is the fallback.
 */
export const TEXT_KEYS: ReadonlyMap<number, readonly [string, string, string]> = new Map<
  number,
  readonly [string, string, string]
>([
  [0x0029, ['TLDE', '`', '~']],
  [0x0002, ['AE01', '1', '!']],
  [0x0003, ['AE02', '2', '@']],
  [0x0004, ['AE03', '3', '#']],
  [0x0005, ['AE04', '4', '$']],
  [0x0006, ['AE05', '5', '%']],
  [0x0007, ['AE06', '6', '^']],
  [0x0008, ['AE07', '7', '&']],
  [0x0009, ['AE08', '8', '*']],
  [0x000a, ['AE09', '9', '(']],
  [0x000b, ['AE10', '0', ')']],
  [0x000c, ['AE11', '-', '_']],
  [0x000d, ['AE12', '=', '+']],
  [0x0010, ['AD01', 'q', 'Q']],
  [0x0011, ['AD02', 'w', 'W']],
  [0x0012, ['AD03', 'e', 'E']],
  [0x0013, ['AD04', 'r', 'R']],
  [0x0014, ['AD05', 't', 'T']],
  [0x0015, ['AD06', 'y', 'Y']],
  [0x0016, ['AD07', 'u', 'U']],
  [0x0017, ['AD08', 'i', 'I']],
  [0x0018, ['AD09', 'o', 'O']],
  [0x0019, ['AD10', 'p', 'P']],
  [0x001a, ['AD11', '[', '{']],
  [0x001b, ['AD12', ']', '}']],
  [0x002b, ['BKSL', '\\', '|']],
  [0x001e, ['AC01', 'a', 'A']],
  [0x001f, ['AC02', 's', 'S']],
  [0x0020, ['AC03', 'd', 'D']],
  [0x0021, ['AC04', 'f', 'F']],
  [0x0022, ['AC05', 'g', 'G']],
  [0x0023, ['AC06', 'h', 'H']],
  [0x0024, ['AC07', 'j', 'J']],
  [0x0025, ['AC08', 'k', 'K']],
  [0x0026, ['AC09', 'l', 'L']],
  [0x0027, ['AC10', ';', ':']],
  [0x0028, ['AC11', "'", '"']],
  [0x002c, ['AB01', 'z', 'Z']],
  [0x002d, ['AB02', 'x', 'X']],
  [0x002e, ['AB03', 'c', 'C']],
  [0x002f, ['AB04', 'v', 'V']],
  [0x0030, ['AB05', 'b', 'B']],
  [0x0031, ['AB06', 'n', 'N']],
  [0x0032, ['AB07', 'm', 'M']],
  [0x0033, ['AB08', ',', '<']],
  [0x0034, ['AB09', '.', '>']],
  [0x0035, ['AB10', '/', '?']],
  [0x0039, ['SPCE', ' ', ' ']],
  [0x0073, ['AB11', '\\', '_']],
  [0x007d, ['AE13', '\\', '|']],
  [0x0e46, ['LSGT', '<', '>']],
]);

/**
 * Numpad keys that produce text with Num Lock on: [XKB key name, character]. libuiohook reports
 * the digit codes only while Num Lock is on (otherwise `code | 0xEE00`, a navigation key).
 */
export const KEYPAD_TEXT_KEYS: ReadonlyMap<number, readonly [string, string]> = new Map<
  number,
  readonly [string, string]
>([
  [0x0052, ['KP0', '0']],
  [0x004f, ['KP1', '1']],
  [0x0050, ['KP2', '2']],
  [0x0051, ['KP3', '3']],
  [0x004b, ['KP4', '4']],
  [0x004c, ['KP5', '5']],
  [0x004d, ['KP6', '6']],
  [0x0047, ['KP7', '7']],
  [0x0048, ['KP8', '8']],
  [0x0049, ['KP9', '9']],
  [0x0053, ['KPDL', '.']],
  [0x0e35, ['KPDV', '/']],
  [0x0037, ['KPMU', '*']],
  [0x004a, ['KPSU', '-']],
  [0x004e, ['KPAD', '+']],
  [0x0e0d, ['KPEQ', '=']],
]);

/** pyautogui-style names of the keys that are not text keys (modifiers, named keys, numpad). */
const NAMED_KEYS: ReadonlyArray<readonly [number, string]> = [
  [0x0001, 'esc'],
  [0x000e, 'backspace'],
  [0x000f, 'tab'],
  [0x001c, 'enter'],
  [0x003a, 'capslock'],
  [0x0e37, 'printscreen'],
  [0x0046, 'scrolllock'],
  [0x0e45, 'pause'],
  [0x0e52, 'insert'],
  [0x0e53, 'delete'],
  [0x0e47, 'home'],
  [0x0e4f, 'end'],
  [0x0e49, 'pageup'],
  [0x0e51, 'pagedown'],
  [0xe048, 'up'],
  [0xe04b, 'left'],
  [0xe04c, 'clear'],
  [0xe04d, 'right'],
  [0xe050, 'down'],
  [0x0045, 'numlock'],
  [0x0e35, 'divide'],
  [0x0037, 'multiply'],
  [0x004a, 'subtract'],
  [0x0e0d, '='],
  [0x004e, 'add'],
  [0x0e1c, 'enter'],
  [0x0053, 'decimal'],
  [0x0052, 'num0'],
  [0x004f, 'num1'],
  [0x0050, 'num2'],
  [0x0051, 'num3'],
  [0x004b, 'num4'],
  [0x004c, 'num5'],
  [0x004d, 'num6'],
  [0x0047, 'num7'],
  [0x0048, 'num8'],
  [0x0049, 'num9'],
  // numpad with Num Lock off: the navigation meaning (VC_KP_END = 0xEE00 | VC_KP_1, …)
  [0xee4f, 'end'],
  [0xee50, 'down'],
  [0xee51, 'pagedown'],
  [0xee4b, 'left'],
  [0xee4c, 'clear'],
  [0xee4d, 'right'],
  [0xee47, 'home'],
  [0xee48, 'up'],
  [0xee49, 'pageup'],
  [0xee52, 'insert'],
  [0xee53, 'delete'],
  [0x002a, 'shift'],
  [0x0036, 'shift'],
  [0x001d, 'ctrl'],
  [0x0e1d, 'ctrl'],
  [0x0038, 'alt'],
  [0x0e38, 'alt'],
  [0x0e5d, 'apps'],
  [0xe05e, 'power'],
  [0xe05f, 'sleep'],
  [0xe063, 'wake'],
  [0xe022, 'playpause'],
  [0xe024, 'stop'],
  [0xe010, 'prevtrack'],
  [0xe019, 'nexttrack'],
  [0xe06d, 'launchmediaselect'],
  [0xe02c, 'eject'],
  [0xe020, 'volumemute'],
  [0xe030, 'volumeup'],
  [0xe02e, 'volumedown'],
  [0xe06c, 'launchmail'],
  [0xe021, 'launchapp2'],
  [0xe03c, 'launchapp1'],
  [0xe064, 'launchapp1'],
  [0xe065, 'browsersearch'],
  [0xe032, 'browserhome'],
  [0xe06a, 'browserback'],
  [0xe069, 'browserforward'],
  [0xe068, 'browserstop'],
  [0xe067, 'browserrefresh'],
  [0xe066, 'browserfavorites'],
  [0x0070, 'kana'],
  [0x0077, 'furigana'],
  [0x0079, 'kanji'],
  [0x007b, 'hiragana'],
  [0x007e, 'separator'],
  [0xff75, 'help'],
  [0xff78, 'stop'],
  [0xff76, 'props'],
  [0xff77, 'front'],
  [0xff74, 'open'],
  [0xff7e, 'find'],
  [0xff79, 'again'],
  [0xff7a, 'undo'],
  [0xff7c, 'copy'],
  [0xff7d, 'paste'],
  [0xff7b, 'cut'],
];

const F_KEYS: ReadonlyArray<readonly [number, string]> = [
  0x3b, 0x3c, 0x3d, 0x3e, 0x3f, 0x40, 0x41, 0x42, 0x43, 0x44, 0x57, 0x58, 0x5b, 0x5c, 0x5d, 0x63,
  0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b,
].map((code, index) => [code, `f${index + 1}`] as const);

/** pyautogui-style names of the non-text keys by VC code (meta is handled by namedKeyName). */
export const NAMED_KEY_MAP: ReadonlyMap<number, string> = new Map([...NAMED_KEYS, ...F_KEYS]);

/** Name of the key when its VC code is not known (docs/action-reduction.md §C.6 `Unknown`). */
export const UNKNOWN_KEY_NAME = 'Unknown';

/** Modifier of a VC code, or null when the key is not a modifier. */
export function modifierOfKeycode(keycode: number): ModifierName | null {
  return MODIFIER_KEYS.get(keycode) ?? null;
}

// pyautogui-style name of a non-text key (meta is `cmd` on macOS, `win` elsewhere), or null.
export function namedKeyName(keycode: number, platform: NodeJS.Platform): string | null {
  if (keycode === VC.META_L || keycode === VC.META_R) {
    // docs/action-reduction.md §C.6, macOS cmd vs Windows/Linux win
    return platform === 'darwin' ? 'cmd' : 'win';
  }
  return NAMED_KEY_MAP.get(keycode) ?? null;
}
