import { describe, expect, it } from 'vitest';
import type { PyValue } from '../../../src/shared/domain/action';
import { pyRepr, pyReprFloat, pyReprStr, pyRound4 } from '../../../src/shared/python/py-format';

// docs/pyautogui-code.md §4.1 (verified): Python value → repr(round(v, 4)).
const ROUND_VECTORS: readonly [label: string, value: number, expected: string][] = [
  ['0.03125 (tie → even)', 0.03125, '0.0312'],
  ['-0.03125', -0.03125, '-0.0312'],
  ['0.09375', 0.09375, '0.0938'],
  ['0.15625', 0.15625, '0.1562'],
  ['0.21875', 0.21875, '0.2188'],
  ['0.28125', 0.28125, '0.2812'],
  ['0.96875', 0.96875, '0.9688'],
  ['1.03125', 1.03125, '1.0312'],
  ['60/1920', 60 / 1920, '0.0312'],
  ['0.00015', 0.00015, '0.0001'],
  ['0.00025', 0.00025, '0.0003'],
  ['0.00035', 0.00035, '0.0003'],
  ['0.00045', 0.00045, '0.0004'],
  ['5e-05', 5e-5, '0.0001'],
  ['0.12345', 0.12345, '0.1235'],
  ['0.99995', 0.99995, '1.0'],
  ['0.999951', 0.999951, '1.0'],
  ['1/3', 1 / 3, '0.3333'],
  ['2/3', 2 / 3, '0.6667'],
  ['1328/1366', 1328 / 1366, '0.9722'],
  ['745/768', 745 / 768, '0.9701'],
  ['541/1366', 541 / 1366, '0.396'],
  ['602/768', 602 / 768, '0.7839'],
  ['0.1 + 0.2', 0.1 + 0.2, '0.3'],
  ['1e-05', 1e-5, '0.0'],
  ['-1e-05', -1e-5, '-0.0'],
  ['1/1366', 1 / 1366, '0.0007'],
  ['683/1366', 683 / 1366, '0.5'],
  ['1365/1366', 1365 / 1366, '0.9993'],
  // extra ties beyond 2^53 / 10^4, where v·10^4 is not exact in doubles (checked with Python 3.11)
  ['-261375289423203.96875', -261375289423203.96875, '-261375289423203.97'],
  ['1e+16', 1e16, '1e+16'],
];

// Python 3.11 repr(float) outside the fixed-notation range (checked with Python 3.11).
const FLOAT_REPR_VECTORS: readonly [value: number, expected: string][] = [
  [0, '0.0'],
  [-0, '-0.0'],
  [1, '1.0'],
  [0.0001, '0.0001'],
  [0.000123, '0.000123'],
  [1e-5, '1e-05'],
  [1.5e-7, '1.5e-07'],
  [6.51e-5, '6.51e-05'],
  [9999999999999998, '9999999999999998.0'],
  [1e16, '1e+16'],
  [1.5e16, '1.5e+16'],
  [1e21, '1e+21'],
  [1e100, '1e+100'],
  [-2.5e-300, '-2.5e-300'],
  [0.972181551976574, '0.972181551976574'],
  [Infinity, 'inf'],
  [-Infinity, '-inf'],
  [Number.NaN, 'nan'],
];

// docs/pyautogui-code.md §4.1 string table (verified).
const STRING_VECTORS: readonly [input: string, expected: string][] = [
  ['abc', "'abc'"],
  ["it's", `"it's"`],
  ['say "hi"', `'say "hi"'`],
  [`both ' and "`, `'both \\' and "'`],
  ['back\\slash', "'back\\\\slash'"],
  ['new\nline', "'new\\nline'"],
  ['tab\there', "'tab\\there'"],
  ['\r', "'\\r'"],
  ['中文', "'中文'"],
  ['emoji 😀', "'emoji 😀'"],
  ['ünï', "'ünï'"],
  ['\x07bell', "'\\x07bell'"],
  ['\x7f', "'\\x7f'"],
  ['\u200b', "'\\u200b'"],
  ["help me polish this: '", `"help me polish this: '"`],
  // Python 3.11 categories (checked with Python 3.11): NBSP (Zs), soft hyphen (Cf), line and
  // paragraph separators, private use, a lone surrogate, a non-BMP unassigned code point, and an
  // emoji assigned after Unicode 14 (unassigned for Python 3.11, so escaped).
  ['\u00a0', "'\\xa0'"],
  ['\u00ad', "'\\xad'"],
  ['\u2028\u2029', "'\\u2028\\u2029'"],
  ['\ue000', "'\\ue000'"],
  ['\ud800', "'\\ud800'"],
  ['\u{e0001}', "'\\U000e0001'"],
  ['\u{1fae8}', "'\\U0001fae8'"],
  [' ', "' '"],
  ['\u3000', "'\\u3000'"],
];

const VALUE_VECTORS: readonly [value: PyValue, expected: string][] = [
  [['ctrl', 'c'], "['ctrl', 'c']"],
  [[], '[]'],
  [{ int: -3 }, '-3'],
  [{ float: -3 }, '-3.0'],
  [{ int: 0 }, '0'],
  [true, 'True'],
  [false, 'False'],
  [null, 'None'],
  [[{ int: 1 }, { float: 0.5 }, 'a', [null]], "[1, 0.5, 'a', [None]]"],
];

describe('pyRound4', () => {
  it.each(ROUND_VECTORS)('round(%s, 4) prints %s', (_label, value, expected) => {
    expect(pyReprFloat(pyRound4(value))).toBe(expected);
  });

  it('keeps the sign of zero', () => {
    expect(Object.is(pyRound4(-1e-5), -0)).toBe(true);
    expect(Object.is(pyRound4(-0), -0)).toBe(true);
    expect(Object.is(pyRound4(1e-5), 0)).toBe(true);
  });

  it('returns the value for non-finite input', () => {
    expect(pyRound4(Infinity)).toBe(Infinity);
    expect(pyRound4(Number.NaN)).toBeNaN();
  });
});

describe('pyReprFloat', () => {
  it.each(FLOAT_REPR_VECTORS)('repr(%s) is %s', (value, expected) => {
    expect(pyReprFloat(value)).toBe(expected);
  });
});

describe('pyReprStr', () => {
  it.each(STRING_VECTORS)('repr(%j) is %s', (input, expected) => {
    expect(pyReprStr(input)).toBe(expected);
  });
});

describe('pyRepr', () => {
  it.each(VALUE_VECTORS)('repr(%j) is %s', (value, expected) => {
    expect(pyRepr(value)).toBe(expected);
  });

  it('rejects unsafe ints', () => {
    expect(() => pyRepr({ int: 2 ** 60 })).toThrow(/not a safe integer/);
  });
});
