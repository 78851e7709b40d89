// Python `float(str)` and `int(str)` on description fragments (ASCII digits only).

const DIGITS = String.raw`\d(?:_?\d)*`;
/** Python float() literal grammar: digits with single underscores, optional fraction/exponent. */
const FLOAT_TEXT = new RegExp(
  String.raw`^[+-]?(?:(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?|inf|infinity|nan)$`,
  'i',
);
const INT_TEXT = new RegExp(String.raw`^[+-]?${DIGITS}$`);

// Python `float(text)`: surrounding whitespace ignored; null where Python raises ValueError.
export function pyFloatFromText(text: string): number | null {
  const trimmed = text.trim();
  if (!FLOAT_TEXT.test(trimmed)) {
    return null;
  }
  const lower = trimmed.toLowerCase().replace(/_/g, '');
  const unsigned = lower.replace(/^[+-]/, '');
  const isNegative = lower.startsWith('-');
  if (unsigned === 'nan') {
    return Number.NaN;
  }
  if (unsigned === 'inf' || unsigned === 'infinity') {
    return isNegative ? -Infinity : Infinity;
  }
  return Number(lower);
}

// Python `int(text)` in base 10: surrounding whitespace ignored; null where Python raises.
export function pyIntFromText(text: string): number | null {
  const trimmed = text.trim();
  if (!INT_TEXT.test(trimmed)) {
    return null;
  }
  const value = Number(trimmed.replace(/_/g, ''));
  return Number.isSafeInteger(value) ? (value === 0 ? 0 : value) : null;
}
