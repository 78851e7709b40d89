// What each text key types on the user's keyboard layout, keyed by libuiohook VC code. uiohook
// reports key positions only (no characters on X11: its KEY_TYPED event is not forwarded), so the
// recorder reads the X keymap once per start (`xkbcomp -xkb $DISPLAY -`, see read-keyboard-layout)
// and resolves characters itself from the shift level. Pure: parsing and lookups only.
import { KEYSYM_UNICODE_TABLE } from './keysym-chars';
import { KEYPAD_TEXT_KEYS, TEXT_KEYS, VC } from './vc-keys';

/** What one key types, per shift level. */
export type LayoutKey = {
  /**
   * Characters by XKB shift level: [plain, Shift, AltGr, AltGr+Shift, …]; null where the level
   * types nothing (dead keys, function keysyms, NoSymbol).
   */
  levels: readonly (string | null)[];
  /** Caps Lock inverts Shift for this key (XKB `ALPHABETIC` key types). */
  isCapsAffected: boolean;
};

/** A keyboard layout as the recorder needs it. */
export type KeyboardLayout = {
  /** Where it came from: the running X server's keymap, or the built-in US fallback. */
  source: 'xkb' | 'builtin-us';
  /** Layout description, e.g. the XKB symbols name `pc+de+inet(evdev)`, or `us`. */
  name: string;
  /** Text keys and numpad keys by VC code. */
  keys: ReadonlyMap<number, LayoutKey>;
  /** True when right Alt is AltGr (ISO_Level3_Shift) and selects levels 3/4. */
  hasAltGr: boolean;
};

const KEYPAD_KEYSYM_CHARS: Readonly<Record<string, string>> = {
  KP_Space: ' ',
  KP_Equal: '=',
  KP_Multiply: '*',
  KP_Add: '+',
  KP_Separator: ',',
  KP_Subtract: '-',
  KP_Decimal: '.',
  KP_Divide: '/',
};

let keysymTable: Map<string, number> | null = null;

function keysymCodePoints(): Map<string, number> {
  if (keysymTable === null) {
    keysymTable = new Map();
    for (const line of KEYSYM_UNICODE_TABLE) {
      for (const pair of line.split(' ')) {
        const colon = pair.lastIndexOf(':');
        keysymTable.set(pair.slice(0, colon), Number.parseInt(pair.slice(colon + 1), 16));
      }
    }
  }
  return keysymTable;
}

function printable(codePoint: number): string | null {
  // control characters (C0, DEL, C1) are not text
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f) || codePoint > 0x10ffff) {
    return null;
  }
  return String.fromCodePoint(codePoint);
}

// Character an X keysym name types (`a`, `odiaeresis`, `U20AC`, `0x1000401`, `KP_7`), or null.
export function keysymToChar(keysym: string): string | null {
  const known = keysymCodePoints().get(keysym);
  if (known !== undefined) {
    return printable(known);
  }
  const unicode = /^U([0-9A-Fa-f]{4,6})$/.exec(keysym);
  if (unicode) {
    return printable(Number.parseInt(unicode[1] ?? '', 16));
  }
  const numeric = /^0x([0-9A-Fa-f]{1,8})$/.exec(keysym);
  if (numeric) {
    const value = Number.parseInt(numeric[1] ?? '', 16);
    // keysyms 0x01000000 + code point are Unicode; 0x20–0xFF are Latin-1 (keysymdef.h)
    if (value >= 0x01000000) {
      return printable(value - 0x01000000);
    }
    return value >= 0x20 && value <= 0xff ? printable(value) : null;
  }
  const keypadDigit = /^KP_([0-9])$/.exec(keysym);
  if (keypadDigit) {
    return keypadDigit[1] ?? null;
  }
  return KEYPAD_KEYSYM_CHARS[keysym] ?? null;
}

const CAPS_KEY_TYPES = new Set([
  'ALPHABETIC',
  'FOUR_LEVEL_ALPHABETIC',
  'FOUR_LEVEL_SEMIALPHABETIC',
  'EIGHT_LEVEL_ALPHABETIC',
  'EIGHT_LEVEL_SEMIALPHABETIC',
]);

/** The built-in US layout, used when the X keymap cannot be read. */
export const US_KEYBOARD_LAYOUT: KeyboardLayout = {
  source: 'builtin-us',
  name: 'us',
  keys: new Map<number, LayoutKey>([
    ...[...TEXT_KEYS].map(
      ([code, [, plain, shifted]]) =>
        [code, { levels: [plain, shifted], isCapsAffected: /^[a-z]$/.test(plain) }] as const,
    ),
    ...[...KEYPAD_TEXT_KEYS].map(
      ([code, [, char]]) => [code, { levels: [char], isCapsAffected: false }] as const,
    ),
  ]),
  hasAltGr: false,
};

type SymbolsEntry = { type: string | null; symbols: string[] };

function sectionBody(text: string, section: string): { name: string; body: string } | null {
  const start = new RegExp(`\\b${section}\\s+"([^"]*)"\\s*\\{`).exec(text);
  if (!start) {
    return null;
  }
  const from = start.index + start[0].length;
  // sections end with a `};` at the start of a line (xkbcomp's dump format)
  const end = text.indexOf('\n};', from);
  return { name: start[1] ?? '', body: text.slice(from, end < 0 ? text.length : end) };
}

function parseKeycodes(body: string): { codes: Map<string, number>; aliases: Map<string, string> } {
  const codes = new Map<string, number>();
  const aliases = new Map<string, string>();
  for (const match of body.matchAll(/^\s*<([^>]+)>\s*=\s*(\d+)\s*;/gm)) {
    codes.set(match[1] ?? '', Number(match[2]));
  }
  for (const match of body.matchAll(/alias\s+<([^>]+)>\s*=\s*<([^>]+)>\s*;/g)) {
    aliases.set(match[1] ?? '', match[2] ?? '');
  }
  return { codes, aliases };
}

function parseSymbols(body: string): Map<string, SymbolsEntry> {
  const keys = new Map<string, SymbolsEntry>();
  for (const match of body.matchAll(/\bkey\s+<([^>]+)>\s*\{([^}]*)\}/g)) {
    const block = match[2] ?? '';
    const type = /\btype(?:\[Group1\])?\s*=\s*"([^"]*)"/.exec(block)?.[1] ?? null;
    const list =
      /\bsymbols\[Group1\]\s*=\s*\[([^\]]*)\]/.exec(block)?.[1] ??
      /^\s*(?:type\s*=\s*"[^"]*"\s*,\s*)?\[([^\]]*)\]/.exec(block)?.[1];
    if (list === undefined) {
      continue;
    }
    const symbols = list
      .split(',')
      .map((symbol) => symbol.trim())
      .filter((symbol) => symbol !== '');
    keys.set(match[1] ?? '', { type, symbols });
  }
  return keys;
}

// Parses an `xkbcomp -xkb` keymap dump into a layout (group 1); throws when it has no usable keys.
export function parseXkbKeymap(text: string): KeyboardLayout {
  const keycodesSection = sectionBody(text, 'xkb_keycodes');
  const symbolsSection = sectionBody(text, 'xkb_symbols');
  if (keycodesSection === null || symbolsSection === null) {
    throw new Error('not an xkbcomp keymap dump: missing xkb_keycodes or xkb_symbols section');
  }
  const { codes, aliases } = parseKeycodes(keycodesSection.body);
  const keycodeOf = (name: string): number | undefined => codes.get(aliases.get(name) ?? name);
  const symbolsByKeycode = new Map<number, SymbolsEntry>();
  for (const [name, entry] of parseSymbols(symbolsSection.body)) {
    const keycode = keycodeOf(name);
    if (keycode !== undefined) {
      symbolsByKeycode.set(keycode, entry);
    }
  }
  const lookup = (xkbName: string): SymbolsEntry | undefined => {
    const keycode = keycodeOf(xkbName);
    return keycode === undefined ? undefined : symbolsByKeycode.get(keycode);
  };

  const keys = new Map<number, LayoutKey>();
  const positions = [
    ...[...TEXT_KEYS].map(([code, [xkbName]]) => [code, xkbName] as const),
    ...[...KEYPAD_TEXT_KEYS].map(([code, [xkbName]]) => [code, xkbName] as const),
  ];
  for (const [code, xkbName] of positions) {
    const entry = lookup(xkbName);
    if (!entry) {
      continue;
    }
    const levels = entry.symbols.map(keysymToChar);
    const isCapsAffected =
      entry.type === null
        ? levels[0] != null &&
          levels[0] !== levels[0].toUpperCase() &&
          levels[1] === levels[0].toUpperCase()
        : CAPS_KEY_TYPES.has(entry.type);
    keys.set(code, { levels, isCapsAffected });
  }
  if (![...keys.values()].some((key) => key.levels.some((char) => char !== null))) {
    throw new Error('the keymap maps no text keys');
  }
  const rightAlt = lookup('RALT');
  return {
    source: 'xkb',
    name: symbolsSection.name,
    keys,
    hasAltGr: rightAlt?.symbols[0] === 'ISO_Level3_Shift',
  };
}

/** Shift state that selects a key's level. */
export type LevelState = {
  /** Shift held. */
  isShift: boolean;
  /** Caps Lock on. */
  isCapsLock: boolean;
  /** AltGr (ISO_Level3_Shift) held. */
  isAltGr: boolean;
};

// Character a text key types in the given shift state, or null (dead key, no symbol, not a text key).
export function layoutChar(
  layout: KeyboardLayout,
  keycode: number,
  state: LevelState,
): string | null {
  const key = layout.keys.get(keycode);
  if (!key) {
    return null;
  }
  if (KEYPAD_TEXT_KEYS.has(keycode)) {
    // numpad: uiohook reports these codes only with Num Lock on, where XKB's KEYPAD type selects
    // the digit level; operator keys have their character on level 1
    return key.levels[1] ?? key.levels[0] ?? null;
  }
  // a key without level 3 (e.g. TWO_LEVEL) ignores AltGr, as XKB does
  const useAltGr = state.isAltGr && key.levels.length > 2;
  const base = useAltGr ? 2 : 0;
  // Caps Lock acts on the letter levels only (FOUR_LEVEL_SEMIALPHABETIC)
  const isShifted = state.isShift !== (state.isCapsLock && key.isCapsAffected && !useAltGr);
  const index = base + (isShifted ? 1 : 0);
  if (index < key.levels.length) {
    return key.levels[index] ?? null;
  }
  // ONE_LEVEL keys (space) type the same with Shift
  return key.levels[base] ?? null;
}

// The key name a text key gets from the layout: its plain character when it is a Latin-script
// character (so `z` on a German keyboard's Y position); otherwise null (use the US name).
export function layoutKeyName(layout: KeyboardLayout, keycode: number): string | null {
  if (keycode === VC.SPACE || KEYPAD_TEXT_KEYS.has(keycode)) {
    return null;
  }
  const plain = layout.keys.get(keycode)?.levels[0];
  if (plain == null || [...plain].length !== 1 || plain === ' ') {
    return null;
  }
  // Latin letters and ASCII punctuation keep hotkeys meaningful for pyautogui; other scripts
  // (Cyrillic, Greek, …) fall back to the key position's US name, as Ctrl shortcuts do.
  return (plain.codePointAt(0) ?? 0) < 0x250 ? plain.toLowerCase() : null;
}
