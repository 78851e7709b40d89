// Python-exact value formatting: `round(v, 4)` and `repr` (docs/pyautogui-code.md §4).
import type { PyValue } from '../domain/action';
import { invalidCode } from './code-error';
import { pyIsPrintable } from './py-unicode';
import { isPyFloat, isPyInt } from './py-value';

// Python `round(v, 4)` for a float: half-even on exact binary ties, signed zero kept.
export function pyRound4(value: number): number {
  if (!Number.isFinite(value)) {
    return value;
  }
  let rounded: number;
  const times32 = value * 32;
  // v·10⁴ is an exact tie only when v·32 is an odd integer (multiplying by 32 is exact).
  if (Number.isInteger(times32) && Math.abs(times32) % 2 === 1) {
    // 2·v·10⁴ = (v·32)·625 is an odd integer; BigInt keeps it exact for large |v| too.
    const twice = BigInt(times32) * 625n;
    const floor = twice / 2n - (twice < 0n ? 1n : 0n);
    const even = floor % 2n === 0n ? floor : floor + 1n;
    rounded = Number(`${even}e-4`);
  } else {
    // toFixed rounds the exact binary value, like Python; only exact ties differ.
    rounded = Number(value.toFixed(4));
  }
  if (rounded === 0) {
    return value < 0 || Object.is(value, -0) ? -0 : 0;
  }
  return rounded;
}

// Python `repr(float)`: shortest round-trip digits, `.0` on integral values, exponent form
// when the decimal point position is ≤ -4 or > 16 (`1e-05`, `1e+16`).
export function pyReprFloat(value: number): string {
  if (Number.isNaN(value)) {
    return 'nan';
  }
  if (!Number.isFinite(value)) {
    return value > 0 ? 'inf' : '-inf';
  }
  if (value === 0) {
    return Object.is(value, -0) ? '-0.0' : '0.0';
  }
  // String(v) has the same shortest (closest) digits as Python; only the layout differs.
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (match === null) {
    throw invalidCode(`Cannot format float ${String(value)}`);
  }
  const sign = match[1] ?? '';
  const intPart = match[2] ?? '';
  const allDigits = intPart + (match[3] ?? '');
  const leadingZeros = /^0*/.exec(allDigits)?.[0].length ?? 0;
  const digits = allDigits.slice(leadingZeros).replace(/0+$/, '');
  // Position of the decimal point relative to the first significant digit (0.ddd × 10^point).
  const point = intPart.length + Number(match[4] ?? '0') - leadingZeros;
  if (point > -4 && point <= 16) {
    if (point <= 0) {
      return `${sign}0.${'0'.repeat(-point)}${digits}`;
    }
    if (point >= digits.length) {
      return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
    }
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const exponent = point - 1;
  const expDigits = String(Math.abs(exponent)).padStart(2, '0');
  return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${expDigits}`;
}

function hexEscape(codePoint: number): string {
  if (codePoint <= 0xff) {
    return `\\x${codePoint.toString(16).padStart(2, '0')}`;
  }
  if (codePoint <= 0xffff) {
    return `\\u${codePoint.toString(16).padStart(4, '0')}`;
  }
  return `\\U${codePoint.toString(16).padStart(8, '0')}`;
}

// Python 3 `repr(str)`: quote choice, backslash escapes, `\xNN`/`\uNNNN`/`\UNNNNNNNN` for
// characters that are not printable per Python 3.11 `str.isprintable`.
export function pyReprStr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  // for…of walks code points; a lone surrogate comes out as itself (category Cs).
  for (const char of text) {
    if (char === quote || char === '\\') {
      out += `\\${char}`;
    } else if (char === '\t') {
      out += '\\t';
    } else if (char === '\n') {
      out += '\\n';
    } else if (char === '\r') {
      out += '\\r';
    } else if (pyIsPrintable(char)) {
      out += char;
    } else {
      out += hexEscape(char.codePointAt(0) ?? 0);
    }
  }
  return out + quote;
}

// Python `repr` of a typed value (int, float, str, bool, None, list).
export function pyRepr(value: PyValue): string {
  if (value === null) {
    return 'None';
  }
  if (typeof value === 'boolean') {
    return value ? 'True' : 'False';
  }
  if (typeof value === 'string') {
    return pyReprStr(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map(pyRepr).join(', ')}]`;
  }
  if (isPyInt(value)) {
    if (!Number.isSafeInteger(value.int)) {
      throw invalidCode(`Python int value ${String(value.int)} is not a safe integer`);
    }
    return String(value.int === 0 ? 0 : value.int);
  }
  if (isPyFloat(value)) {
    return pyReprFloat(value.float);
  }
  throw invalidCode(`Unsupported Python value ${JSON.stringify(value)}`);
}
