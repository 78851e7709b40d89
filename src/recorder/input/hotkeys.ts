// The recorder's own hotkeys (start/stop/pause) and the filter that keeps them out of the
// recording: every event of a hotkey chord (the chord key's down, repeats and up, and the modifier
// downs/ups that belong only to it) is removed before events are stored, and the chord is
// reported as a hotkey hit instead (docs/action-reduction.md §C.3.2 — control input). Pure.
import { MODIFIER_BITS } from '../../shared/domain/raw-event';
import { AppError } from '../../shared/errors';
import type { InputEvent } from './normalize-input-event';
import { keyNameOf } from './normalize-input-event';
import { US_KEYBOARD_LAYOUT } from './keyboard-layout';
import { MODIFIER_KEYS, NAMED_KEY_MAP, TEXT_KEYS, modifierOfKeycode } from './vc-keys';
import type { ModifierName } from './vc-keys';

/** What a hotkey does. `pause` toggles pause/resume. */
export const HOTKEY_ACTIONS = ['start', 'stop', 'pause'] as const;
/** One of {@link HOTKEY_ACTIONS}. */
export type HotkeyAction = (typeof HOTKEY_ACTIONS)[number];

/**
 * Default chords. Three modifiers make collisions with application shortcuts unlikely; AgentNet's
 * Ctrl+Alt+T is avoided on purpose (it opens a terminal on Ubuntu).
 */
export const DEFAULT_HOTKEYS: Readonly<Record<HotkeyAction, string>> = {
  start: 'ctrl+alt+shift+s',
  stop: 'ctrl+alt+shift+r',
  pause: 'ctrl+alt+shift+p',
};

/** Chord strings per action (`ctrl+alt+shift+r`); null disables an action's hotkey. */
export type HotkeyBindings = Partial<Record<HotkeyAction, string | null>>;

/** A parsed chord. */
export type HotkeyChord = {
  /** {@link MODIFIER_BITS} that must be held, exactly. */
  modifiers: number;
  /** Normalised key name of the chord key (`r`, `f9`, `pageup`). */
  key: string;
  /** Canonical text, e.g. `ctrl+alt+shift+r`. */
  text: string;
};

/** A chord bound to an action. */
export type Hotkey = { action: HotkeyAction; chord: HotkeyChord };

/** A hotkey press recognised in the stream. */
export type HotkeyHit = {
  action: HotkeyAction;
  /** Time of the chord key's down, session clock ms. */
  tMs: number;
};

/** Options of {@link HotkeyFilter}. */
export type HotkeyFilterOptions = {
  /**
   * Longest time events are held back while modifiers are down and a chord may still follow, in
   * ms (default {@link DEFAULT_HOTKEY_HOLD_LIMIT_MS}); then they are released and a late chord
   * loses only its key events.
   */
  holdLimitMs?: number;
};

/** Default of {@link HotkeyFilterOptions.holdLimitMs}. */
export const DEFAULT_HOTKEY_HOLD_LIMIT_MS = 1500;

const MODIFIER_ALIASES: Readonly<Record<string, ModifierName>> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  ctl: 'ctrl',
  alt: 'alt',
  option: 'alt',
  opt: 'alt',
  shift: 'shift',
  meta: 'meta',
  win: 'meta',
  super: 'meta',
  cmd: 'meta',
  command: 'meta',
};

const KEY_ALIASES: Readonly<Record<string, string>> = {
  escape: 'esc',
  return: 'enter',
  pgup: 'pageup',
  page_up: 'pageup',
  pgdn: 'pagedown',
  page_down: 'pagedown',
  del: 'delete',
  ins: 'insert',
  spacebar: 'space',
};

const MODIFIER_ORDER: readonly ModifierName[] = ['ctrl', 'alt', 'meta', 'shift'];

let knownKeyNames: Set<string> | null = null;

function isKnownKeyName(name: string): boolean {
  if (knownKeyNames === null) {
    const textNames = [...TEXT_KEYS.keys()].map((code) =>
      keyNameOf(code, US_KEYBOARD_LAYOUT, 'linux'),
    );
    const namedNames = [...NAMED_KEY_MAP].filter(([code]) => !MODIFIER_KEYS.has(code));
    knownKeyNames = new Set([...textNames, ...namedNames.map(([, keyName]) => keyName)]);
  }
  return knownKeyNames.has(name);
}

function invalid(text: string, reason: string): AppError {
  return new AppError('HOTKEY_INVALID', `Hotkey '${text}' is invalid: ${reason}.`, {
    hotkey: text,
  });
}

// Parses `ctrl+alt+shift+r` (modifiers in any order, one key); throws HOTKEY_INVALID.
export function parseHotkey(text: string): HotkeyChord {
  const parts = text
    .trim()
    .toLowerCase()
    .split('+')
    .map((part) => part.trim());
  if (parts.some((part) => part === '')) {
    throw invalid(text, 'empty part (chords look like ctrl+alt+shift+r)');
  }
  let modifiers = 0;
  const keys: string[] = [];
  for (const part of parts) {
    const modifier = MODIFIER_ALIASES[part];
    if (modifier) {
      const bit = MODIFIER_BITS[modifier];
      if (modifiers & bit) {
        throw invalid(text, `modifier '${modifier}' appears twice`);
      }
      modifiers |= bit;
    } else {
      keys.push(KEY_ALIASES[part] ?? part);
    }
  }
  if (keys.length !== 1) {
    throw invalid(
      text,
      keys.length === 0
        ? 'it has no key besides modifiers (e.g. ctrl+alt+shift+r)'
        : `it has ${keys.length} keys (${keys.join(', ')}); a chord has exactly one`,
    );
  }
  const key = keys[0] ?? '';
  if (!isKnownKeyName(key)) {
    throw invalid(text, `unknown key '${key}' (use names like a, 5, f9, pageup, space)`);
  }
  const names = MODIFIER_ORDER.filter((name) => modifiers & MODIFIER_BITS[name]);
  return { modifiers, key, text: [...names, key].join('+') };
}

// Parses the configured chords over the defaults; throws HOTKEY_INVALID on a bad or shared chord.
export function resolveHotkeys(bindings: HotkeyBindings = {}): Hotkey[] {
  const hotkeys: Hotkey[] = [];
  for (const action of HOTKEY_ACTIONS) {
    const text = bindings[action] === undefined ? DEFAULT_HOTKEYS[action] : bindings[action];
    if (text === null) {
      continue;
    }
    const chord = parseHotkey(text);
    const clash = hotkeys.find((other) => other.chord.text === chord.text);
    if (clash) {
      throw invalid(text, `it is already the '${clash.action}' hotkey`);
    }
    hotkeys.push({ action, chord });
  }
  return hotkeys;
}

/** Events released by the filter, and the hotkey that followed them (if any). */
export type HotkeyFilterOutput = {
  /** Events to keep, in order; all precede `hotkey`. */
  events: InputEvent[];
  hotkey: HotkeyHit | null;
};

const MODIFIER_NAME_BITS: Readonly<Record<ModifierName, number>> = MODIFIER_BITS;

/** Removes hotkey chords from an ordered event stream. */
export class HotkeyFilter {
  private readonly hotkeys: readonly Hotkey[];
  private readonly holdLimitMs: number;
  /** Modifier keys held: VC code → whether the key's events are swallowed (part of a chord). */
  private readonly heldModifiers = new Map<number, { isSwallowed: boolean; isBuffered: boolean }>();
  /** Chord keys whose repeats and release are still to be swallowed. */
  private readonly swallowedKeys = new Set<number>();
  /** Events held back while a chord may still complete. */
  private buffer: InputEvent[] = [];

  constructor(hotkeys: readonly Hotkey[], options: HotkeyFilterOptions = {}) {
    this.hotkeys = hotkeys;
    this.holdLimitMs = options.holdLimitMs ?? DEFAULT_HOTKEY_HOLD_LIMIT_MS;
  }

  /** True while events are held back. */
  get isHolding(): boolean {
    return this.buffer.length > 0;
  }

  /** Feeds one event; returns the events released by it (and a hotkey hit). */
  push(event: InputEvent): HotkeyFilterOutput {
    const modifier = event.keycode === null ? null : modifierOfKeycode(event.keycode);
    if (event.kind === 'keydown' && modifier !== null) {
      return this.onModifierDown(event, modifier);
    }
    if (event.kind === 'keyup' && modifier !== null) {
      return this.onModifierUp(event);
    }
    if (event.kind === 'keydown' && event.keycode !== null) {
      return this.onKeyDown(event, event.keycode);
    }
    if (event.kind === 'keyup' && event.keycode !== null && this.swallowedKeys.has(event.keycode)) {
      this.swallowedKeys.delete(event.keycode);
      return { events: [], hotkey: null };
    }
    if (this.buffer.length > 0 && (event.kind === 'move' || event.kind === 'other')) {
      // moves keep the chord pending; they are released in order later
      this.buffer.push(event);
      return { events: [], hotkey: null };
    }
    // buttons, wheel and key releases end any pending chord: everything held is user input
    return { events: [...this.release(), event], hotkey: null };
  }

  /** Releases held events whose hold limit has passed at `nowMs` (session clock). */
  flushDue(nowMs: number): InputEvent[] {
    const first = this.buffer[0];
    return first !== undefined && nowMs - first.tMs >= this.holdLimitMs ? this.release() : [];
  }

  /** Releases everything held (stop, gap). */
  flushAll(): InputEvent[] {
    return this.release();
  }

  /** Forgets held keys (after a gap in the stream, when releases may have been missed). */
  reset(): void {
    this.heldModifiers.clear();
    this.swallowedKeys.clear();
  }

  private release(): InputEvent[] {
    const released = this.buffer;
    this.buffer = [];
    for (const state of this.heldModifiers.values()) {
      state.isBuffered = false;
    }
    return released;
  }

  private heldModifierBits(): number {
    let bits = 0;
    for (const keycode of this.heldModifiers.keys()) {
      const name = modifierOfKeycode(keycode);
      bits |= name === null ? 0 : MODIFIER_NAME_BITS[name];
    }
    return bits;
  }

  private onModifierDown(event: InputEvent, modifier: ModifierName): HotkeyFilterOutput {
    const keycode = event.keycode ?? 0;
    const held = this.heldModifiers.get(keycode);
    if (held) {
      // auto-repeat of a held modifier follows its first down
      if (held.isSwallowed) {
        return { events: [], hotkey: null };
      }
      if (held.isBuffered) {
        this.buffer.push(event);
        return { events: [], hotkey: null };
      }
      return { events: [...this.release(), event], hotkey: null };
    }
    const bits = this.heldModifierBits() | MODIFIER_NAME_BITS[modifier];
    const isPossibleChord = this.hotkeys.some(
      ({ chord }) => chord.modifiers !== 0 && (chord.modifiers & bits) === bits,
    );
    if (isPossibleChord) {
      this.heldModifiers.set(keycode, { isSwallowed: false, isBuffered: true });
      this.buffer.push(event);
      return { events: [], hotkey: null };
    }
    this.heldModifiers.set(keycode, { isSwallowed: false, isBuffered: false });
    return { events: [...this.release(), event], hotkey: null };
  }

  private onModifierUp(event: InputEvent): HotkeyFilterOutput {
    const keycode = event.keycode ?? 0;
    const held = this.heldModifiers.get(keycode);
    this.heldModifiers.delete(keycode);
    if (held?.isSwallowed) {
      return { events: [], hotkey: null };
    }
    // a modifier let go before any chord key: a modifier tap or a chord given up; user input
    return { events: [...this.release(), event], hotkey: null };
  }

  private onKeyDown(event: InputEvent, keycode: number): HotkeyFilterOutput {
    if (this.swallowedKeys.has(keycode)) {
      // auto-repeat of a chord key
      return { events: [], hotkey: null };
    }
    const hotkey = this.hotkeys.find(
      ({ chord }) => chord.key === event.key && chord.modifiers === event.modifiers,
    );
    if (!hotkey) {
      return { events: [...this.release(), event], hotkey: null };
    }
    this.swallowedKeys.add(keycode);
    // the chord's modifier downs still held back belong only to the chord: drop them (and their
    // repeats) and swallow their releases; modifiers already delivered keep their releases
    const swallowed = new Set<number>();
    for (const [modifierKeycode, state] of this.heldModifiers) {
      if (state.isBuffered || state.isSwallowed) {
        state.isSwallowed = true;
        swallowed.add(modifierKeycode);
      }
    }
    const kept = this.release().filter(
      (held) => !(held.kind === 'keydown' && held.keycode !== null && swallowed.has(held.keycode)),
    );
    return { events: kept, hotkey: { action: hotkey.action, tMs: event.tMs } };
  }
}
