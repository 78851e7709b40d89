// Keymap parsing and character resolution on real keymaps compiled by xkbcomp (us, de, fr, ru)
// and on the built-in US fallback.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  keysymToChar,
  layoutChar,
  layoutKeyName,
  parseXkbKeymap,
  US_KEYBOARD_LAYOUT,
} from '../../../src/recorder/input/keyboard-layout';
import type { KeyboardLayout, LevelState } from '../../../src/recorder/input/keyboard-layout';

// Compiles a keymap offline (no X server) exactly as `xkbcomp -xkb $DISPLAY -` would dump it.
function compileKeymap(symbols: string, keycodes = 'evdev+aliases(qwerty)'): string {
  const source = [
    'xkb_keymap {',
    `  xkb_keycodes { include "${keycodes}" };`,
    '  xkb_types { include "complete" };',
    '  xkb_compat { include "complete" };',
    `  xkb_symbols { include "${symbols}" };`,
    '};',
  ].join('\n');
  return execFileSync('xkbcomp', ['-w', '0', '-xkb', '-', '-'], {
    input: source,
    encoding: 'utf8',
  });
}

const VC_A = 0x1e;
const VC_Q = 0x10;
const VC_Y = 0x15;
const VC_1 = 0x02;
const VC_2 = 0x03;
const VC_SEMICOLON = 0x27;
const VC_MINUS = 0x0c;
const VC_EQUALS = 0x0d;
const VC_SPACE = 0x39;
const VC_KP_7 = 0x47;
const VC_KP_SEPARATOR = 0x53;
const VC_KP_DIVIDE = 0x0e35;

const plain: LevelState = { isShift: false, isCapsLock: false, isAltGr: false };
const shift: LevelState = { ...plain, isShift: true };
const caps: LevelState = { ...plain, isCapsLock: true };
const capsShift: LevelState = { ...plain, isCapsLock: true, isShift: true };
const altGr: LevelState = { ...plain, isAltGr: true };
const altGrShift: LevelState = { ...altGr, isShift: true };

describe('parseXkbKeymap', () => {
  const us = parseXkbKeymap(compileKeymap('pc+us+inet(evdev)'));
  const de = parseXkbKeymap(compileKeymap('pc+de+inet(evdev)', 'evdev+aliases(qwertz)'));
  const fr = parseXkbKeymap(compileKeymap('pc+fr+inet(evdev)', 'evdev+aliases(azerty)'));
  const ru = parseXkbKeymap(compileKeymap('pc+ru+inet(evdev)'));

  const table: [string, KeyboardLayout, number, LevelState, string | null][] = [
    ['us a', us, VC_A, plain, 'a'],
    ['us Shift+a', us, VC_A, shift, 'A'],
    ['us Caps a', us, VC_A, caps, 'A'],
    ['us Caps+Shift a', us, VC_A, capsShift, 'a'],
    ['us Shift+1', us, VC_1, shift, '!'],
    ['us Caps 1 (not alphabetic)', us, VC_1, caps, '1'],
    ['us Shift+=', us, VC_EQUALS, shift, '+'],
    ['us space', us, VC_SPACE, shift, ' '],
    ['us numpad 7', us, VC_KP_7, plain, '7'],
    ['us numpad decimal', us, VC_KP_SEPARATOR, plain, '.'],
    ['us numpad divide', us, VC_KP_DIVIDE, plain, '/'],
    ['us AltGr ignored', us, VC_A, altGr, 'a'],
    ['de Y position types z', de, VC_Y, plain, 'z'],
    ['de ö', de, VC_SEMICOLON, plain, 'ö'],
    ['de Shift ö', de, VC_SEMICOLON, shift, 'Ö'],
    ['de Caps ö', de, VC_SEMICOLON, caps, 'Ö'],
    ['de ß', de, VC_MINUS, plain, 'ß'],
    ['de AltGr+q = @', de, VC_Q, altGr, '@'],
    ['de AltGr+Shift+q', de, VC_Q, altGrShift, 'Ω'],
    ['de Shift+2 = "', de, VC_2, shift, '"'],
    ['de dead acute types nothing', de, VC_EQUALS, plain, null],
    ['de numpad decimal is a comma', de, VC_KP_SEPARATOR, plain, ','],
    ['fr Q position types a', fr, VC_Q, plain, 'a'],
    ['fr 1 position plain types &', fr, VC_1, plain, '&'],
    ['fr 1 position Shift types 1', fr, VC_1, shift, '1'],
    ['fr é', fr, VC_2, plain, 'é'],
    ['ru ф', ru, VC_A, plain, 'ф'],
    ['ru Shift ф', ru, VC_A, shift, 'Ф'],
  ];
  it.each(table)('%s', (_name, layout, keycode, state, expected) => {
    expect(layoutChar(layout, keycode, state)).toBe(expected);
  });

  it('describes where the layout came from', () => {
    expect(us).toMatchObject({ source: 'xkb', name: 'pc+us+inet(evdev)', hasAltGr: false });
    expect(de).toMatchObject({ source: 'xkb', name: 'pc+de+inet(evdev)', hasAltGr: true });
  });

  it('names text keys after the layout when it types Latin characters', () => {
    expect(layoutKeyName(de, VC_Y)).toBe('z');
    expect(layoutKeyName(de, VC_SEMICOLON)).toBe('ö');
    expect(layoutKeyName(fr, VC_Q)).toBe('a');
    // Cyrillic keys keep the position's US name (Ctrl+C stays ctrl+c), dead keys too
    expect(layoutKeyName(ru, VC_A)).toBeNull();
    expect(layoutKeyName(de, VC_EQUALS)).toBeNull();
    expect(layoutKeyName(us, VC_SPACE)).toBeNull();
  });

  it('rejects text that is not a keymap dump', () => {
    expect(() => parseXkbKeymap('hello')).toThrow(/not an xkbcomp keymap dump/);
    expect(() =>
      parseXkbKeymap('xkb_keycodes "x" {\n <AC01> = 38;\n};\nxkb_symbols "y" {\n};\n'),
    ).toThrow(/no text keys/);
  });
});

describe('US_KEYBOARD_LAYOUT', () => {
  it('resolves the US characters without an X server', () => {
    expect(layoutChar(US_KEYBOARD_LAYOUT, VC_A, shift)).toBe('A');
    expect(layoutChar(US_KEYBOARD_LAYOUT, VC_A, caps)).toBe('A');
    expect(layoutChar(US_KEYBOARD_LAYOUT, VC_1, capsShift)).toBe('!');
    expect(layoutChar(US_KEYBOARD_LAYOUT, VC_SEMICOLON, shift)).toBe(':');
    expect(layoutChar(US_KEYBOARD_LAYOUT, VC_KP_7, plain)).toBe('7');
    expect(layoutChar(US_KEYBOARD_LAYOUT, 0x1c, plain)).toBeNull(); // enter
  });
});

describe('keysymToChar', () => {
  it.each([
    ['a', 'a'],
    ['odiaeresis', 'ö'],
    ['EuroSign', '€'],
    ['Cyrillic_ef', 'ф'],
    ['U20AC', '€'],
    ['0x1000444', 'ф'],
    ['0x00e9', 'é'],
    ['KP_7', '7'],
    ['KP_Decimal', '.'],
    ['space', ' '],
    ['dead_acute', null],
    ['Return', null],
    ['NoSymbol', null],
    ['U0007', null],
  ])('%s → %s', (keysym, expected) => {
    expect(keysymToChar(keysym)).toBe(expected);
  });
});
