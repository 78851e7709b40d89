// Fast exact ms → s conversion: equal to `msToSeconds` (decimal-exact) for every input.
import { msToSeconds } from '../../shared/clock';

/** Decimals of ms tried on the fast path (perf_counter stamps in s have 7 decimals → 4 in ms). */
const MS_SCALE = 1e4;
const TO_SECONDS_SCALE = 1e7;
/** Integers below 10^15 have at most 15 significant digits (DBL_DIG): round trips are unique. */
const MAX_FAST_DIGITS_VALUE = 1e15;

// `msToSeconds(ms)` without string work when ms is a ≤15-digit decimal with ≤4 decimals.
export function msToSecondsFast(ms: number): number {
  // If m·10⁻⁴ (≤ 15 significant digits) parses back to ms, it is ms's shortest decimal (up to
  // trailing zeros), so the decimal shift gives m·10⁻⁷, and m / 1e7 is its correctly rounded
  // double (m and 1e7 are exact). Anything else takes the string path.
  const scaled = Math.round(ms * MS_SCALE);
  if (scaled !== 0 && Math.abs(scaled) < MAX_FAST_DIGITS_VALUE && scaled / MS_SCALE === ms) {
    return scaled / TO_SECONDS_SCALE;
  }
  return msToSeconds(ms);
}
