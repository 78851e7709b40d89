// Masking of secure-field typing: text keys lose key, char and keycode; named keys, modifiers,
// shortcuts and pointer events stay; releases follow their presses; late events are covered.
import { describe, expect, it } from 'vitest';
import { EVENT_FLAGS, MODIFIER_BITS } from '../../../src/shared/domain/raw-event';
import { KeyMasker, MASKED_KEY } from '../../../src/recorder/input/key-masking';
import type { InputEvent } from '../../../src/recorder/input/normalize-input-event';

function keyEvent(
  kind: 'keydown' | 'keyup',
  keycode: number,
  key: string,
  char: string | null,
  tMs: number,
  modifiers = 0,
): InputEvent {
  return {
    tMs,
    kind,
    x: null,
    y: null,
    button: null,
    keycode,
    key,
    char,
    keyRaw: null,
    modifiers,
    dx: null,
    dy: null,
    flags: 0,
  };
}

const S_DOWN = keyEvent('keydown', 0x1f, 's', 's', 100);
const S_UP = keyEvent('keyup', 0x1f, 's', null, 110);

describe('KeyMasker', () => {
  it('passes everything through while masking is off', () => {
    const masker = new KeyMasker();
    expect(masker.apply(S_DOWN)).toBe(S_DOWN);
    expect(masker.isOn).toBe(false);
  });

  it('masks text keys and keeps time, kind and flags', () => {
    const masker = new KeyMasker();
    masker.setMask(true, 50);
    const repeat = { ...S_DOWN, flags: EVENT_FLAGS.repeat };
    expect(masker.apply(repeat)).toEqual({
      ...repeat,
      keycode: null,
      key: MASKED_KEY,
      char: null,
      flags: EVENT_FLAGS.repeat | EVENT_FLAGS.masked,
    });
    const space = keyEvent('keydown', 0x39, 'space', ' ', 120);
    expect(masker.apply(space)).toMatchObject({ key: MASKED_KEY, char: null });
    const numpad = keyEvent('keydown', 0x47, 'num7', '7', 130);
    expect(masker.apply(numpad)).toMatchObject({ key: MASKED_KEY, char: null, keycode: null });
  });

  it('keeps named keys, modifiers, shortcuts and pointer events', () => {
    const masker = new KeyMasker();
    masker.setMask(true, 50);
    const enter = keyEvent('keydown', 0x1c, 'enter', null, 100);
    const shift = keyEvent('keydown', 0x2a, 'shift', null, 100, MODIFIER_BITS.shift);
    const paste = keyEvent('keydown', 0x2f, 'v', null, 100, MODIFIER_BITS.ctrl);
    const move: InputEvent = { ...enter, kind: 'move', keycode: null, key: null, x: 1, y: 2 };
    for (const event of [enter, shift, paste, move]) {
      expect(masker.apply(event)).toBe(event);
    }
  });

  it('masks the release of a masked press even after masking ended', () => {
    const masker = new KeyMasker();
    masker.setMask(true, 50);
    masker.apply(S_DOWN);
    masker.setMask(false, 105);
    expect(masker.apply(S_UP)).toMatchObject({ key: MASKED_KEY, keycode: null });
    // the next press of the same key is plain again
    expect(masker.apply({ ...S_DOWN, tMs: 200 })).toMatchObject({ key: 's', char: 's' });
  });

  it('masks events that happened while masking was on but arrive after it ended', () => {
    const masker = new KeyMasker();
    masker.setMask(true, 50);
    masker.setMask(false, 150);
    expect(masker.apply(S_DOWN)).toMatchObject({ key: MASKED_KEY });
    expect(masker.apply(keyEvent('keydown', 0x1e, 'a', 'a', 160))).toMatchObject({ key: 'a' });
    expect(masker.apply(keyEvent('keydown', 0x30, 'b', 'b', 40))).toMatchObject({ key: 'b' });
  });

  it('masks events still in flight when masking starts', () => {
    const masker = new KeyMasker();
    masker.setMask(true, 500);
    // stamped before the focus change, handled after it: masked (the safe side)
    expect(masker.apply(S_DOWN)).toMatchObject({ key: MASKED_KEY });
  });
});
