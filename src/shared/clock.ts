// Recording-clock conversions between seconds and milliseconds that are exact in decimal.
//
// Times imported from AgentNet are Python `repr` floats in seconds (e.g. 30673.6036902). A plain
// `s * 1000` / `ms / 1000` round trip changes the last bit for ~2.5 % of the fixture's stamps,
// so conversions shift the decimal point in the shortest round-trip string instead: the result
// has at most 15–17 significant digits and converts back to the identical double.

function shiftDecimal(value: number, places: number): number {
  if (!Number.isFinite(value)) {
    return value;
  }
  const text = String(value);
  if (/e/i.test(text)) {
    return value * 10 ** places;
  }
  const negative = text.startsWith('-');
  const digitsText = negative ? text.slice(1) : text;
  const [intPart = '0', fracPart = ''] = digitsText.split('.');
  let digits = intPart + fracPart;
  let point = intPart.length + places;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) {
    digits = digits + '0'.repeat(point - digits.length);
  }
  const shifted = `${digits.slice(0, point) || '0'}.${digits.slice(point) || '0'}`;
  const result = Number(shifted);
  return negative ? -result : result;
}

/** Seconds → milliseconds, exact in decimal (30673.6036902 → 30673603.6902). */
export function secondsToMs(seconds: number): number {
  return shiftDecimal(seconds, 3);
}

/** Milliseconds → seconds, exact in decimal; inverse of {@link secondsToMs}. */
export function msToSeconds(ms: number): number {
  return shiftDecimal(ms, -3);
}
