// Payment card number detector: 12–19 digits, plain or in groups split by single spaces or
// dashes, a known issuer prefix (IIN) with a length that issuer uses, and a valid Luhn digit.
import type { PiiMatch } from '../../shared/domain/privacy';
import { luhnValid } from './checksums';
import { isDigitAt, isWordCharAt, matchAt } from './text';

// a maximal run of digit groups split by single spaces or dashes; cards are searched inside it
const DIGIT_RUN = /\d+(?:[ -]\d+)*/g;

type Issuer = {
  prefixes: readonly (string | readonly [number, number])[];
  lengths: readonly number[];
};

// prefixes as strings (exact leading digits) or [low, high] ranges of equal-width prefixes
const ISSUERS: readonly Issuer[] = [
  { prefixes: ['4'], lengths: [13, 16, 19] }, // Visa
  {
    prefixes: [
      [51, 55],
      [2221, 2720],
    ],
    lengths: [16],
  }, // Mastercard
  { prefixes: ['34', '37'], lengths: [15] }, // American Express
  { prefixes: ['6011', [644, 649], '65'], lengths: [16, 17, 18, 19] }, // Discover
  { prefixes: [[300, 305], '36', '38', '39'], lengths: [14, 15, 16, 17, 18, 19] }, // Diners Club
  { prefixes: [[3528, 3589]], lengths: [16, 17, 18, 19] }, // JCB
  { prefixes: ['62'], lengths: [16, 17, 18, 19] }, // UnionPay
  {
    prefixes: ['5018', '5020', '5038', '5893', '6304', '6759', [6761, 6763]],
    lengths: [12, 13, 14, 15, 16, 17, 18, 19],
  }, // Maestro
  { prefixes: [[2200, 2204]], lengths: [16, 17, 18, 19] }, // Mir
];

function hasIssuer(digits: string): boolean {
  return ISSUERS.some(
    (issuer) =>
      issuer.lengths.includes(digits.length) &&
      issuer.prefixes.some((prefix) => {
        if (typeof prefix === 'string') {
          return digits.startsWith(prefix);
        }
        const [low, high] = prefix;
        const head = Number(digits.slice(0, String(low).length));
        return head >= low && head <= high;
      }),
  );
}

/** Grouping as printed on cards and typed into forms: 4-4-4-4(-3), Amex 4-6-5, Diners 4-6-4. */
function groupingOk(groups: readonly string[], separators: readonly string[]): boolean {
  if (groups.length === 1) {
    return true;
  }
  if (new Set(separators).size > 1) {
    return false;
  }
  const lengths = groups.map((g) => g.length);
  const shape = lengths.join('-');
  if (shape === '4-6-5' || shape === '4-6-4') {
    return true;
  }
  const last = lengths[lengths.length - 1]!;
  return lengths.slice(0, -1).every((n) => n === 4) && last >= 1 && last <= 4;
}

function isCard(groups: readonly string[], separators: readonly string[]): boolean {
  const digits = groups.join('');
  if (digits.length < 12 || digits.length > 19) {
    return false;
  }
  if (!groupingOk(groups, separators)) {
    return false;
  }
  if (/^(\d)\1+$/.test(digits)) {
    return false;
  }
  return hasIssuer(digits) && luhnValid(digits);
}

/**
 * True when groups `[i, j)` are part of a longer run of four-digit groups with the same
 * separator ("4111 1111 1111 1111 1111" is 20 digits, not a card and a number).
 */
function continuesGrouping(
  groups: readonly string[],
  separators: readonly string[],
  i: number,
  j: number,
): boolean {
  if (j - i < 2) {
    return false;
  }
  const sep = separators[i];
  const before = i > 0 && groups[i - 1]!.length === 4 && separators[i - 1] === sep;
  const after = j < groups.length && groups[j]!.length === 4 && separators[j - 1] === sep;
  return before || after;
}

/** Payment card numbers in `text`. */
export function findCards(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(DIGIT_RUN)) {
    if (m[0].length < 12) {
      continue;
    }
    const runStart = m.index;
    const runEnd = runStart + m[0].length;
    const groups = m[0].split(/[ -]/);
    const separators = m[0].match(/[ -]/g) ?? [];
    const offsets: number[] = [];
    let offset = runStart;
    for (const group of groups) {
      offsets.push(offset);
      offset += group.length + 1;
    }
    // a first or last group glued to a word, a decimal point, a time or a path belongs to
    // that token ("12/27" after a card number is its expiry date); the others stay usable
    const glued = (at: number, digitAt: number): boolean =>
      isWordCharAt(text, at) || (/[./:]/.test(text[at] ?? '') && isDigitAt(text, digitAt));
    const first = glued(runStart - 1, runStart - 2) ? 1 : 0;
    const last = glued(runEnd, runEnd + 1) ? groups.length - 1 : groups.length;
    // the longest card from each group on: a card may share a run with other numbers
    let i = first;
    while (i < last) {
      let found = -1;
      for (let j = Math.min(last, i + 5); j > i; j--) {
        if (
          isCard(groups.slice(i, j), separators.slice(i, j - 1)) &&
          !continuesGrouping(groups, separators, i, j)
        ) {
          found = j;
          break;
        }
      }
      if (found < 0) {
        i++;
        continue;
      }
      const start = offsets[i]!;
      const end = offsets[found - 1]! + groups[found - 1]!.length;
      out.push(matchAt(text, 'card', start, end));
      i = found;
    }
  }
  return out;
}
