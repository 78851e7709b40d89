import { describe, expect, it } from 'vitest';
import { ATSPI_STATE_NAMES, decodeStates, encodeStates, hasState } from '../../src/axtree/states';

// docs/platform-linux.md §4, AtspiStateType bits (word 0 = bits 0–31, word 1 = bits 32–63)
const TABLE: [number, string][] = [
  [0, 'invalid'],
  [1, 'active'],
  [7, 'editable'],
  [8, 'enabled'],
  [11, 'focusable'],
  [12, 'focused'],
  [17, 'multi-line'],
  [24, 'sensitive'],
  [25, 'showing'],
  [26, 'single-line'],
  [30, 'visible'],
  [31, 'manages-descendants'],
  [32, 'indeterminate'],
  [38, 'selectable-text'],
  [41, 'checkable'],
  [43, 'read-only'],
];

function wordsFor(bit: number): number[] {
  return bit < 32 ? [2 ** bit, 0] : [0, 2 ** (bit - 32)];
}

describe('AT-SPI states', () => {
  it('has 44 named states', () => {
    expect(ATSPI_STATE_NAMES).toHaveLength(44);
  });

  it.each(TABLE)('bit %i decodes to %s and back', (bit, name) => {
    expect(decodeStates(wordsFor(bit))).toEqual([name]);
    expect(encodeStates([name])).toEqual(wordsFor(bit));
    expect(hasState(wordsFor(bit), name)).toBe(true);
  });

  it('decodes a real GTK entry state set in bit order', () => {
    // GetState of the form's password entry, as dbus-next returned it
    expect(decodeStates([1191184768, 0])).toEqual([
      'editable',
      'enabled',
      'focusable',
      'sensitive',
      'showing',
      'single-line',
      'visible',
    ]);
  });

  it('reads bit 31 from a word that arrives as a negative int32', () => {
    expect(decodeStates([-2147483648, 0])).toEqual(['manages-descendants']);
  });

  it('keeps unknown future states visible', () => {
    expect(decodeStates([0, 2 ** 20])).toEqual(['state-52']);
  });

  it('rejects unknown names when encoding', () => {
    expect(() => encodeStates(['hovered'])).toThrow(/unknown AT-SPI state 'hovered'/);
  });

  it('hasState is false for absent and unknown states', () => {
    expect(hasState([2 ** 12, 0], 'active')).toBe(false);
    expect(hasState([2 ** 12], 'read-only')).toBe(false);
    expect(hasState([2 ** 12, 0], 'nope')).toBe(false);
  });
});
