// uiohook event → RawEvent fields: buttons, wheel directions (X11 reference), key names,
// characters, modifiers, auto-repeat, Caps Lock and the event clock.
import { describe, expect, it } from 'vitest';
import { EVENT_FLAGS, MODIFIER_BITS } from '../../../src/shared/domain/raw-event';
import type { HookInputEvent } from '../../../src/recorder/input/hook-protocol';
import { US_KEYBOARD_LAYOUT } from '../../../src/recorder/input/keyboard-layout';
import type { KeyboardLayout } from '../../../src/recorder/input/keyboard-layout';
import {
  createNormalizerState,
  keyNameOf,
  normalizeInputEvent,
  resolveEventTimeMs,
} from '../../../src/recorder/input/normalize-input-event';
import type { NormalizeOptions } from '../../../src/recorder/input/normalize-input-event';

const flags = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };
const options: NormalizeOptions = { layout: US_KEYBOARD_LAYOUT, platform: 'linux' };
const T = 5_000_000.25;

function mouse(type: 7 | 8 | 9, button: number, x = 10, y = 20): HookInputEvent {
  return { type, time: Math.floor(T), ...flags, x, y, button, clicks: 1 };
}
function wheel(direction: number, rotation: number): HookInputEvent {
  return {
    type: 11,
    time: Math.floor(T),
    ...flags,
    x: 5,
    y: 6,
    clicks: 1,
    amount: 3,
    direction,
    rotation,
  };
}
function key(type: 4 | 5, keycode: number, mods: Partial<typeof flags> = {}): HookInputEvent {
  return { type, time: Math.floor(T), ...flags, ...mods, keycode };
}

describe('normalizeInputEvent: pointer', () => {
  it.each([
    [1, 'left'],
    [2, 'right'],
    [3, 'middle'],
    [4, 'x1'],
    [5, 'x2'],
  ])('uiohook button %d → %s', (button, expected) => {
    const state = createNormalizerState();
    expect(normalizeInputEvent(T, mouse(7, button), state, options)).toMatchObject({
      kind: 'down',
      button: expected,
      x: 10,
      y: 20,
    });
    expect(normalizeInputEvent(T, mouse(8, button), state, options)).toMatchObject({
      kind: 'up',
      button: expected,
    });
  });

  it('keeps an unknown button as kind other', () => {
    const event = normalizeInputEvent(T, mouse(7, 0), createNormalizerState(), options);
    expect(event).toMatchObject({ kind: 'other', button: null, x: 10, y: 20 });
  });

  it('maps a move', () => {
    const event = normalizeInputEvent(T, mouse(9, 0, 1279, 799), createNormalizerState(), options);
    expect(event).toEqual({
      tMs: Math.floor(T),
      kind: 'move',
      x: 1279,
      y: 799,
      button: null,
      keycode: null,
      key: null,
      char: null,
      keyRaw: null,
      modifiers: 0,
      dx: null,
      dy: null,
      flags: 0,
    });
  });

  // X11 reference: xdotool click 4 = up, 5 = down, 6 = left, 7 = right; libuiohook reports
  // rotation −1 for 4 and 6, +1 for 5 and 7, direction 3 vertical / 4 horizontal
  it.each([
    ['button 4 (up)', 3, -1, 0, 1],
    ['button 5 (down)', 3, 1, 0, -1],
    ['button 6 (left)', 4, -1, -1, 0],
    ['button 7 (right)', 4, 1, 1, 0],
  ])('wheel %s', (_name, direction, rotation, dx, dy) => {
    const event = normalizeInputEvent(
      T,
      wheel(direction, rotation),
      createNormalizerState(),
      options,
    );
    expect(event).toMatchObject({ kind: 'wheel', dx, dy, x: 5, y: 6 });
  });
});

describe('normalizeInputEvent: keyboard', () => {
  it.each([
    [0x1e, 'a'],
    [0x0b, '0'],
    [0x0c, '-'],
    [0x28, "'"],
    [0x2b, '\\'],
    [0x39, 'space'],
    [0x1c, 'enter'],
    [0x0e1c, 'enter'],
    [0x01, 'esc'],
    [0x0e, 'backspace'],
    [0x0f, 'tab'],
    [0x3a, 'capslock'],
    [0x3f, 'f5'],
    [0x58, 'f12'],
    [0x6b, 'f24'],
    [0x0e49, 'pageup'],
    [0x0e51, 'pagedown'],
    [0x0e47, 'home'],
    [0x0e4f, 'end'],
    [0x0e52, 'insert'],
    [0x0e53, 'delete'],
    [0xe048, 'up'],
    [0xe050, 'down'],
    [0xe04b, 'left'],
    [0xe04d, 'right'],
    [0x1d, 'ctrl'],
    [0x0e1d, 'ctrl'],
    [0x2a, 'shift'],
    [0x36, 'shift'],
    [0x38, 'alt'],
    [0x0e38, 'alt'],
    [0x0e5b, 'win'],
    [0x0e5c, 'win'],
    [0x0e5d, 'apps'],
    [0x0e37, 'printscreen'],
    [0x46, 'scrolllock'],
    [0x45, 'numlock'],
    [0x0e45, 'pause'],
    [0x47, 'num7'],
    [0xee47, 'home'],
    [0x53, 'decimal'],
    [0x0e35, 'divide'],
    [0xe020, 'volumemute'],
    [0xe022, 'playpause'],
    [0x7fff, 'Unknown'],
  ])('keycode %i → %s', (keycode, expected) => {
    expect(keyNameOf(keycode, US_KEYBOARD_LAYOUT, 'linux')).toBe(expected);
  });

  it('names meta cmd on macOS', () => {
    expect(keyNameOf(0x0e5b, US_KEYBOARD_LAYOUT, 'darwin')).toBe('cmd');
  });

  it('resolves characters from the shift state and leaves chords without text', () => {
    const state = createNormalizerState();
    const char = (e: HookInputEvent): string | null =>
      normalizeInputEvent(T, e, state, options).char;
    expect(char(key(4, 0x23))).toBe('h');
    expect(char(key(5, 0x23))).toBeNull(); // key-ups carry no text
    expect(char(key(4, 0x23, { shiftKey: true }))).toBe('H');
    expect(char(key(4, 0x03, { shiftKey: true }))).toBe('@');
    expect(char(key(4, 0x39))).toBe(' ');
    expect(char(key(4, 0x1e, { ctrlKey: true }))).toBeNull();
    expect(char(key(4, 0x1e, { altKey: true }))).toBeNull();
    expect(char(key(4, 0x1e, { metaKey: true }))).toBeNull();
    expect(char(key(4, 0x1c))).toBeNull(); // enter is a named key
    expect(char(key(4, 0x47))).toBe('7'); // numpad with Num Lock on
    expect(char(key(4, 0xee47))).toBeNull(); // numpad Home
  });

  it('sets modifier bits from the event flags', () => {
    const event = normalizeInputEvent(
      T,
      key(4, 0x1e, { ctrlKey: true, shiftKey: true, altKey: true, metaKey: true }),
      createNormalizerState(),
      options,
    );
    const { shift, ctrl, alt, meta } = MODIFIER_BITS;
    expect(event.modifiers).toBe(shift | ctrl | alt | meta);
  });

  it('flags a key-down of a held key as auto-repeat', () => {
    const state = createNormalizerState();
    const sequence = [key(4, 0x1e), key(4, 0x1e), key(4, 0x1e), key(5, 0x1e), key(4, 0x1e)];
    const out = sequence.map((e) => normalizeInputEvent(T, e, state, options).flags);
    expect(out).toEqual([0, EVENT_FLAGS.repeat, EVENT_FLAGS.repeat, 0, 0]);
  });

  it('tracks Caps Lock presses for letter case', () => {
    const state = createNormalizerState();
    const run = (e: HookInputEvent): string | null =>
      normalizeInputEvent(T, e, state, options).char;
    run(key(4, 0x3a));
    run(key(5, 0x3a));
    expect(run(key(4, 0x1e))).toBe('A');
    expect(run(key(4, 0x02))).toBe('1');
    run(key(4, 0x3a));
    run(key(5, 0x3a));
    expect(run(key(4, 0x30))).toBe('b');
  });

  it('types AltGr characters on layouts with AltGr and names keys after the layout', () => {
    const deLike: KeyboardLayout = {
      source: 'xkb',
      name: 'test',
      hasAltGr: true,
      keys: new Map([
        [0x10, { levels: ['q', 'Q', '@', 'Ω'], isCapsAffected: true }],
        [0x15, { levels: ['z', 'Z'], isCapsAffected: true }],
      ]),
    };
    const state = createNormalizerState();
    const opts = { ...options, layout: deLike };
    normalizeInputEvent(T, key(4, 0x0e38, { altKey: true }), state, opts);
    const at = normalizeInputEvent(T, key(4, 0x10, { altKey: true }), state, opts);
    expect(at).toMatchObject({ key: 'q', char: '@' });
    normalizeInputEvent(T, key(5, 0x0e38), state, opts);
    // left Alt is a chord, not AltGr
    normalizeInputEvent(T, key(4, 0x38, { altKey: true }), state, opts);
    expect(normalizeInputEvent(T, key(4, 0x10, { altKey: true }), state, opts).char).toBeNull();
    expect(normalizeInputEvent(T, key(4, 0x15), createNormalizerState(), opts)).toMatchObject({
      key: 'z',
      char: 'z',
    });
  });
});

describe('event time', () => {
  it('takes the X server time when it is this clock, at most maxLag before the callback', () => {
    expect(resolveEventTimeMs(1000.7, 900, 10_000)).toBe(900);
    expect(resolveEventTimeMs(1000.7, 1000, 10_000)).toBe(1000);
    // 32-bit wrap of the server time
    expect(resolveEventTimeMs(2 ** 32 + 5.5, 2 ** 32 - 10, 10_000)).toBe(2 ** 32 - 10);
    // another clock (remote X server), a server time ahead of us, or disabled: callback time
    expect(resolveEventTimeMs(1000.7, 123_456_789, 10_000)).toBe(1000.7);
    expect(resolveEventTimeMs(1000.7, 1005, 10_000)).toBe(1000.7);
    expect(resolveEventTimeMs(1000.7, 900, 0)).toBe(1000.7);
  });

  it('never lets time go backwards', () => {
    const state = createNormalizerState();
    const first = normalizeInputEvent(2000.5, { ...mouse(9, 0), time: 2000 }, state, options);
    // a later event whose server stamp is unusable falls back to its (earlier) callback time
    const second = normalizeInputEvent(
      1999.9,
      { ...mouse(9, 0), time: 99_999_999 },
      state,
      options,
    );
    expect(first.tMs).toBe(2000);
    expect(second.tMs).toBe(2000);
  });
});
