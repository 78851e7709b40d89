// pyautogui key names → replay driver keys (src/replay/keys.ts): named keys, letters, digits,
// punctuation, characters typed as text, names the driver cannot press, and chords.
import { Key } from '@nut-tree-fork/shared';
import { describe, expect, it } from 'vitest';
import { normalizeKeyName } from '../../src/pipeline/reduce/key-names';
import { chordKeys, driverKey } from '../../src/replay/keys';

// Raw key names as recorders report them; their normalised names are the reduction's vocabulary.
const RAW_NAMES = [
  'ctrl_l',
  'ctrl_r',
  'alt_l',
  'alt_gr',
  'shift_r',
  'cmd',
  'super_l',
  'enter',
  'esc',
  'page_up',
  'page_down',
  'caps_lock',
  'num_lock',
  'scroll_lock',
  'print_screen',
  'delete',
  'media_volume_up',
  'media_volume_down',
  'media_volume_mute',
  'media_play_pause',
  'media_next',
  'media_previous',
  'menu',
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
  ..."abcdefghijklmnopqrstuvwxyz0123456789-=[]\\;',./`",
];

describe('driverKey', () => {
  it('maps named keys (any case) and their pyautogui aliases', () => {
    expect(driverKey('enter')).toEqual({ key: 'Return' });
    expect(driverKey('Return')).toEqual({ key: 'Return' });
    expect(driverKey('\n')).toEqual({ key: 'Return' });
    expect(driverKey('ESC')).toEqual({ key: 'Escape' });
    expect(driverKey('ctrl')).toEqual({ key: 'LeftControl' });
    expect(driverKey('ctrlright')).toEqual({ key: 'RightControl' });
    expect(driverKey('shift')).toEqual({ key: 'LeftShift' });
    expect(driverKey('win')).toEqual({ key: 'LeftSuper' });
    expect(driverKey('pgdn')).toEqual({ key: 'PageDown' });
    expect(driverKey('space')).toEqual({ key: 'Space' });
    expect(driverKey(' ')).toEqual({ key: 'Space' });
    expect(driverKey('\t')).toEqual({ key: 'Tab' });
    expect(driverKey('f1')).toEqual({ key: 'F1' });
    expect(driverKey('F12')).toEqual({ key: 'F12' });
    expect(driverKey('f24')).toEqual({ key: 'F24' });
    expect(driverKey('num0')).toEqual({ key: 'NumPad0' });
    expect(driverKey('num9')).toEqual({ key: 'NumPad9' });
    expect(driverKey('printscreen')).toEqual({ key: 'Print' });
  });

  it('letters are their upper-case key, digits Num<d>, unshifted punctuation its key', () => {
    expect(driverKey('a')).toEqual({ key: 'A' });
    expect(driverKey('z')).toEqual({ key: 'Z' });
    expect(driverKey('0')).toEqual({ key: 'Num0' });
    expect(driverKey('7')).toEqual({ key: 'Num7' });
    expect(driverKey('-')).toEqual({ key: 'Minus' });
    expect(driverKey('/')).toEqual({ key: 'Slash' });
    expect(driverKey('\\')).toEqual({ key: 'Backslash' });
    expect(driverKey("'")).toEqual({ key: 'Quote' });
    expect(driverKey('`')).toEqual({ key: 'Grave' });
  });

  it('shifted and non-ASCII characters are typed as text (the layout decides the shift)', () => {
    expect(driverKey('A')).toEqual({ text: 'A' });
    expect(driverKey('!')).toEqual({ text: '!' });
    expect(driverKey('?')).toEqual({ text: '?' });
    expect(driverKey('é')).toEqual({ text: 'é' });
    expect(driverKey('€')).toEqual({ text: '€' });
    // one code point outside the BMP is still one character
    expect(driverKey('😀')).toEqual({ text: '😀' });
  });

  it('names the driver cannot press are null', () => {
    expect(driverKey('')).toBeNull();
    expect(driverKey('hyper')).toBeNull();
    expect(driverKey('f25')).toBeNull();
    expect(driverKey('num10')).toBeNull();
    expect(driverKey('ab')).toBeNull();
    // a control character that is no named key
    expect(driverKey('\u0007')).toBeNull();
  });
});

describe('driver keys are nut-js keys', () => {
  it('every name of the reduction vocabulary maps to a member of nut-js Key', () => {
    const members = new Set(Object.keys(Key).filter((k) => Number.isNaN(Number(k))));
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      for (const raw of RAW_NAMES) {
        const name = normalizeKeyName(raw, platform).name;
        const k = driverKey(name);
        expect(k, `${raw} → ${name}`).not.toBeNull();
        expect(
          k && 'key' in k && members.has(k.key),
          `${raw} → ${name} → ${JSON.stringify(k)}`,
        ).toBe(true);
      }
    }
  });
});

describe('chordKeys', () => {
  it('maps every member; a letter of a chord is its key, whatever its case', () => {
    expect(chordKeys(['ctrl', 'c'])).toEqual(['LeftControl', 'C']);
    expect(chordKeys(['ctrl', 'C'])).toEqual(['LeftControl', 'C']);
    expect(chordKeys(['ctrl', 'shift', 'Tab'])).toEqual(['LeftControl', 'LeftShift', 'Tab']);
    expect(chordKeys(['alt', 'f4'])).toEqual(['LeftAlt', 'F4']);
    expect(chordKeys(['ctrl', '-'])).toEqual(['LeftControl', 'Minus']);
    expect(chordKeys(['ctrl', '1'])).toEqual(['LeftControl', 'Num1']);
  });

  it('refuses a member that is text or unknown (null)', () => {
    expect(chordKeys(['ctrl', '!'])).toBeNull();
    expect(chordKeys(['ctrl', 'é'])).toBeNull();
    expect(chordKeys(['ctrl', 'nosuchkey'])).toBeNull();
  });
});
