// Key-name normalisation to the pyautogui vocabulary (docs/action-reduction.md §C.6 table).
import type { ReducePlatform } from './types';

/** Modifier keys after normalisation (`fn` is tracked but never part of a chord). */
export type ModifierName = 'ctrl' | 'alt' | 'shift' | 'cmd' | 'win' | 'fn';

/** Canonical order of chord modifiers in hotkeys and `modifiers` lists. */
export const CANONICAL_MODIFIER_ORDER: readonly ModifierName[] = [
  'ctrl',
  'alt',
  'cmd',
  'win',
  'shift',
];

/** Keys that are owned by keyboard runs but produce no call (the OS text already has the case). */
export const LOCK_KEYS: ReadonlySet<string> = new Set(['capslock', 'numlock', 'scrolllock']);

/** The normalised form of one raw key name. */
export type NormalizedKey = {
  /** pyautogui name (`ctrl`, `enter`, `pageup`), the character itself, or the raw name. */
  name: string;
  /** False when the raw name is not in the table (report `KEY_UNKNOWN`). */
  isKnown: boolean;
  /** Set for ctrl, alt, shift, cmd, win and fn. */
  modifier: ModifierName | null;
  /** The raw name was AltGr (characters typed under it are text, not chords). */
  isAltGr: boolean;
};

// Raw names (compared lower-case) → normalised names, platform-independent part.
const NAME_TABLE: ReadonlyMap<string, string> = new Map([
  ...['ctrl', 'ctrl_l', 'ctrl_r', 'ctrlleft', 'ctrlright', 'control'].map(
    (raw) => [raw, 'ctrl'] as const,
  ),
  ...['alt', 'alt_l', 'alt_r', 'altleft', 'altright', 'alt_gr', 'altgr', 'option'].map(
    (raw) => [raw, 'alt'] as const,
  ),
  ...['shift', 'shift_l', 'shift_r', 'shiftleft', 'shiftright'].map(
    (raw) => [raw, 'shift'] as const,
  ),
  ['fn', 'fn'],
  ['enter', 'enter'],
  ['return', 'enter'],
  ['esc', 'esc'],
  ['escape', 'esc'],
  ...['page_up', 'pageup', 'pgup', 'page up'].map((raw) => [raw, 'pageup'] as const),
  ...['page_down', 'pagedown', 'pgdn', 'page down'].map((raw) => [raw, 'pagedown'] as const),
  ...['caps_lock', 'capslock', 'caps'].map((raw) => [raw, 'capslock'] as const),
  ['num_lock', 'numlock'],
  ['numlock', 'numlock'],
  ['scroll_lock', 'scrolllock'],
  ['scrolllock', 'scrolllock'],
  ...['print_screen', 'printscreen', 'prtsc', 'prtscr', 'prntscrn', 'print screen'].map(
    (raw) => [raw, 'printscreen'] as const,
  ),
  ['delete', 'delete'],
  ['del', 'delete'],
  ['media_volume_up', 'volumeup'],
  ['volumeup', 'volumeup'],
  ['media_volume_down', 'volumedown'],
  ['volumedown', 'volumedown'],
  ['media_volume_mute', 'volumemute'],
  ['volumemute', 'volumemute'],
  ['media_play_pause', 'playpause'],
  ['playpause', 'playpause'],
  ['media_next', 'nexttrack'],
  ['nexttrack', 'nexttrack'],
  ['media_previous', 'prevtrack'],
  ['prevtrack', 'prevtrack'],
  ['menu', 'apps'],
  ['context_menu', 'apps'],
  ['apps', 'apps'],
  ...[
    'up',
    'down',
    'left',
    'right',
    'home',
    'end',
    'insert',
    'tab',
    'backspace',
    'space',
    'pause',
    ...Array.from({ length: 24 }, (_, i) => `f${i + 1}`),
  ].map((raw) => [raw, raw] as const),
]);

// The Cmd key on macOS; the Windows/Super key elsewhere.
const META_NAMES: ReadonlySet<string> = new Set([
  'cmd',
  'cmd_l',
  'cmd_r',
  'command',
  'windows',
  'win',
  'winleft',
  'winright',
  'super',
  'super_l',
  'super_r',
  'meta',
]);

const MODIFIERS: ReadonlySet<string> = new Set(['ctrl', 'alt', 'shift', 'cmd', 'win', 'fn']);

/** AgentNet's name for a key without char and without a Windows VK table entry. */
const UNKNOWN_VK = /^\$Unknown \(.*\)\$$/;
/** One printable character (no control/format/surrogate/unassigned code point). */
const PRINTABLE_CHAR = /^\P{C}$/u;
/** Printable text of any length. */
const PRINTABLE_TEXT = /^\P{C}+$/u;

// True for text of one or more printable code points (spaces included).
export function isPrintableText(text: string): boolean {
  return PRINTABLE_TEXT.test(text);
}

// Normalises one raw key name (pynput, AgentNet or OS spelling) for the given platform.
export function normalizeKeyName(raw: string, platform: ReducePlatform): NormalizedKey {
  const plain = (name: string, isKnown = true): NormalizedKey => ({
    name,
    isKnown,
    modifier: MODIFIERS.has(name) ? (name as ModifierName) : null,
    isAltGr: false,
  });
  // Control characters (e.g. Ctrl+C delivered as "\x03") are their letters.
  if (raw.length === 1) {
    const code = raw.charCodeAt(0);
    if (code >= 1 && code <= 26) {
      return plain(String.fromCharCode(code + 96));
    }
  }
  if (raw === ' ') {
    return plain('space');
  }
  if (PRINTABLE_CHAR.test(raw)) {
    // A character as the OS produced it (case kept; chords lower-case it).
    return plain(raw);
  }
  if (UNKNOWN_VK.test(raw)) {
    // A key without char and without a Windows VK table entry: still unknown (keycode kept).
    return plain('Unknown', false);
  }
  const lower = raw.toLowerCase();
  if (META_NAMES.has(lower)) {
    return plain(platform === 'darwin' ? 'cmd' : 'win');
  }
  const name = NAME_TABLE.get(lower);
  if (name === undefined) {
    return plain(raw, false);
  }
  const key = plain(name);
  return lower === 'alt_gr' || lower === 'altgr' ? { ...key, isAltGr: true } : key;
}

// Sorts modifier names into the canonical chord order (ctrl, alt, cmd, win, shift); fn dropped.
export function canonicalModifiers(names: Iterable<ModifierName>): ModifierName[] {
  const held = new Set(names);
  return CANONICAL_MODIFIER_ORDER.filter((name) => held.has(name));
}
