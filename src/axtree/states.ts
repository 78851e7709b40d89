// AT-SPI state sets: two uint32 words form a 64-bit set; bit n = AtspiStateType n
// (at-spi2-core atspi/atspi-constants.h; docs/platform-linux.md §4). Names are the lowercase,
// hyphenated nicks AT-SPI also uses in `object:state-changed:<nick>` events.

/** State names indexed by AtspiStateType value. */
export const ATSPI_STATE_NAMES: readonly string[] = [
  'invalid', // 0
  'active',
  'armed',
  'busy',
  'checked',
  'collapsed', // 5
  'defunct',
  'editable',
  'enabled',
  'expandable',
  'expanded', // 10
  'focusable',
  'focused',
  'has-tooltip',
  'horizontal',
  'iconified', // 15
  'modal',
  'multi-line',
  'multiselectable',
  'opaque',
  'pressed', // 20
  'resizable',
  'selectable',
  'selected',
  'sensitive',
  'showing', // 25
  'single-line',
  'stale',
  'transient',
  'vertical',
  'visible', // 30
  'manages-descendants',
  'indeterminate',
  'required',
  'truncated',
  'animated', // 35
  'invalid-entry',
  'supports-autocompletion',
  'selectable-text',
  'is-default',
  'visited', // 40
  'checkable',
  'has-popup',
  'read-only', // 43
];

/** Decodes AT-SPI state words (`au`, word 0 = bits 0–31) into state names, in bit order. */
export function decodeStates(words: readonly number[]): string[] {
  const names: string[] = [];
  words.forEach((word, wordIndex) => {
    // D-Bus `u` can arrive as a negative int32 from some marshallers: look at the raw bits
    const bits = word >>> 0;
    for (let bit = 0; bit < 32; bit += 1) {
      if ((bits & (2 ** bit)) !== 0) {
        const index = wordIndex * 32 + bit;
        // newer at-spi2-core versions may add states: keep them visible instead of dropping them
        names.push(ATSPI_STATE_NAMES[index] ?? `state-${index}`);
      }
    }
  });
  return names;
}

/** Encodes state names into AT-SPI state words (two words); unknown names throw. */
export function encodeStates(names: readonly string[]): [number, number] {
  const words: [number, number] = [0, 0];
  for (const name of names) {
    const index = ATSPI_STATE_NAMES.indexOf(name);
    if (index < 0) {
      throw new Error(`unknown AT-SPI state '${name}'`);
    }
    const wordIndex = index < 32 ? 0 : 1;
    words[wordIndex] = (words[wordIndex] | (2 ** (index % 32))) >>> 0;
  }
  return words;
}

/** True when state `name` is set in the AT-SPI state words. */
export function hasState(words: readonly number[], name: string): boolean {
  const index = ATSPI_STATE_NAMES.indexOf(name);
  if (index < 0) {
    return false;
  }
  const word = words[Math.floor(index / 32)] ?? 0;
  return ((word >>> 0) & (2 ** (index % 32))) !== 0;
}
