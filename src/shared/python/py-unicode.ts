// Python 3.11 character classes (str.isprintable, isalpha, isdigit) on top of JS Unicode regexes.
//
// The reference ran on Python 3.11, whose Unicode database is version 14.0. The JS runtime knows a
// newer Unicode version, so characters assigned after 14.0 (new emoji, scripts, CJK) would be
// letters or printable for JS but unassigned (category Cn) for Python 3.11. The table below lists
// exactly those code points (computed once from Python 3.11's `unicodedata` against Node 20's
// Unicode 17 regex data) so the predicates answer like Python 3.11.

/** Inclusive code point ranges unassigned in Unicode 14.0 but assigned in Unicode 17.0. */
// prettier-ignore
const UNASSIGNED_IN_UNICODE_14: readonly (readonly [number, number])[] = [
  [0x88f, 0x88f], [0x897, 0x897], [0xc5c, 0xc5c], [0xcdc, 0xcdc], [0xcf3, 0xcf3], [0xece, 0xece],
  [0x1acf, 0x1add], [0x1ae0, 0x1aeb], [0x1b4e, 0x1b4f], [0x1b7f, 0x1b7f], [0x1c89, 0x1c8a],
  [0x20c1, 0x20c1], [0x2427, 0x2429], [0x2b96, 0x2b96], [0x2ffc, 0x2fff], [0x31e4, 0x31e5],
  [0x31ef, 0x31ef], [0xa7cb, 0xa7cf], [0xa7d2, 0xa7d2], [0xa7d4, 0xa7d4], [0xa7da, 0xa7dc],
  [0xa7f1, 0xa7f1], [0xfbc3, 0xfbd2], [0xfd90, 0xfd91], [0xfdc8, 0xfdce], [0x105c0, 0x105f3],
  [0x10940, 0x10959], [0x10d40, 0x10d65], [0x10d69, 0x10d85], [0x10d8e, 0x10d8f],
  [0x10ec2, 0x10ec7], [0x10ed0, 0x10ed8], [0x10efa, 0x10eff], [0x1123f, 0x11241],
  [0x11380, 0x11389], [0x1138b, 0x1138b], [0x1138e, 0x1138e], [0x11390, 0x113b5],
  [0x113b7, 0x113c0], [0x113c2, 0x113c2], [0x113c5, 0x113c5], [0x113c7, 0x113ca],
  [0x113cc, 0x113d5], [0x113d7, 0x113d8], [0x113e1, 0x113e2], [0x116d0, 0x116e3],
  [0x11b00, 0x11b09], [0x11b60, 0x11b67], [0x11bc0, 0x11be1], [0x11bf0, 0x11bf9],
  [0x11db0, 0x11ddb], [0x11de0, 0x11de9], [0x11f00, 0x11f10], [0x11f12, 0x11f3a],
  [0x11f3e, 0x11f5a], [0x1342f, 0x1342f], [0x13439, 0x13455], [0x13460, 0x143fa],
  [0x16100, 0x16139], [0x16d40, 0x16d79], [0x16ea0, 0x16eb8], [0x16ebb, 0x16ed3],
  [0x16ff2, 0x16ff6], [0x187f8, 0x187ff], [0x18cff, 0x18cff], [0x18d09, 0x18d1e],
  [0x18d80, 0x18df2], [0x1b132, 0x1b132], [0x1b155, 0x1b155], [0x1cc00, 0x1ccfc],
  [0x1cd00, 0x1ceb3], [0x1ceba, 0x1ced0], [0x1cee0, 0x1cef0], [0x1d2c0, 0x1d2d3],
  [0x1df25, 0x1df2a], [0x1e030, 0x1e06d], [0x1e08f, 0x1e08f], [0x1e4d0, 0x1e4f9],
  [0x1e5d0, 0x1e5fa], [0x1e5ff, 0x1e5ff], [0x1e6c0, 0x1e6de], [0x1e6e0, 0x1e6f5],
  [0x1e6fe, 0x1e6ff], [0x1f6d8, 0x1f6d8], [0x1f6dc, 0x1f6dc], [0x1f774, 0x1f77f],
  [0x1f7d9, 0x1f7d9], [0x1f8b2, 0x1f8bb], [0x1f8c0, 0x1f8c1], [0x1f8d0, 0x1f8d8],
  [0x1fa54, 0x1fa57], [0x1fa75, 0x1fa77], [0x1fa87, 0x1fa8a], [0x1fa8e, 0x1fa8f],
  [0x1faad, 0x1faaf], [0x1fabb, 0x1fabf], [0x1fac6, 0x1fac6], [0x1fac8, 0x1fac8],
  [0x1facd, 0x1facf], [0x1fada, 0x1fadc], [0x1fadf, 0x1fadf], [0x1fae8, 0x1faea],
  [0x1faef, 0x1faef], [0x1faf7, 0x1faf8], [0x1fbcb, 0x1fbef], [0x1fbfa, 0x1fbfa],
  [0x2b739, 0x2b73f], [0x2cea2, 0x2cead], [0x2ebf0, 0x2ee5d], [0x31350, 0x33479],
];

/** Python's non-printable categories (ASCII space excepted), see `docs/pyautogui-code.md` §4. */
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;
/** Unicode letters: Python `isalpha` is true for categories Lu, Ll, Lt, Lm, Lo. */
const LETTER = /^\p{L}$/u;
/** Decimal digits (Nd): Python `isdecimal`. */
const DECIMAL = /^\p{Nd}$/u;
/** Numeric_Type=Digit code points that are not decimal (superscripts, circled digits, …). */
// prettier-ignore
const DIGIT_NOT_DECIMAL: readonly (readonly [number, number])[] = [
  [0xb2, 0xb3], [0xb9, 0xb9], [0x1369, 0x1371], [0x19da, 0x19da], [0x2070, 0x2070],
  [0x2074, 0x2079], [0x2080, 0x2089], [0x2460, 0x2468], [0x2474, 0x247c], [0x2488, 0x2490],
  [0x24ea, 0x24ea], [0x24f5, 0x24fd], [0x24ff, 0x24ff], [0x2776, 0x277e], [0x2780, 0x2788],
  [0x278a, 0x2792], [0x10a40, 0x10a43], [0x10e60, 0x10e68], [0x11052, 0x1105a],
  [0x1f100, 0x1f10a],
];

function inRanges(codePoint: number, ranges: readonly (readonly [number, number])[]): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const range = ranges[mid];
    if (range === undefined) {
      return false;
    }
    if (codePoint < range[0]) {
      hi = mid - 1;
    } else if (codePoint > range[1]) {
      lo = mid + 1;
    } else {
      return true;
    }
  }
  return false;
}

function codePointOf(char: string): number {
  return char.codePointAt(0) ?? 0;
}

function isUnassignedInPython(char: string): boolean {
  return inRanges(codePointOf(char), UNASSIGNED_IN_UNICODE_14);
}

// Python 3.11 `str.isprintable` for one character (a code point or a lone surrogate).
export function pyIsPrintable(char: string): boolean {
  if (char === ' ') {
    return true;
  }
  return !NON_PRINTABLE.test(char) && !isUnassignedInPython(char);
}

// Python 3.11 `str.isalpha` for one character.
export function pyIsAlpha(char: string): boolean {
  return LETTER.test(char) && !isUnassignedInPython(char);
}

// Python 3.11 `str.isdigit` for one character (decimal digits plus Numeric_Type=Digit).
export function pyIsDigit(char: string): boolean {
  if (isUnassignedInPython(char)) {
    return false;
  }
  return DECIMAL.test(char) || inRanges(codePointOf(char), DIGIT_NOT_DECIMAL);
}
