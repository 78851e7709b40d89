// IBAN detector (ISO 13616): country code, two check digits and the country's BBAN, compact or
// printed in groups of four separated by single spaces, the country's length, a valid mod-97.
import type { PiiMatch } from '../../shared/domain/privacy';
import { IBAN_LENGTHS, ibanMod97Valid } from './checksums';
import { isWordCharAt, matchAt } from './text';

const IBAN_START = /(?<![A-Za-z0-9_])([A-Za-z]{2})(\d{2})(?=[ ]?[A-Za-z0-9])/g;

function isAlnum(ch: string | undefined): boolean {
  return ch !== undefined && /^[A-Za-z0-9]$/.test(ch);
}

/** IBANs in `text`. */
export function findIbans(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.matchAll(IBAN_START)) {
    const country = m[1]!.toUpperCase();
    const length = IBAN_LENGTHS[country];
    if (length === undefined) {
      continue;
    }
    // mixed case within the country code ("De89") is a word, not an IBAN
    if (m[1] !== country && m[1] !== m[1]!.toLowerCase()) {
      continue;
    }
    const start = m.index;
    let index = start + 4;
    let compact = country + m[2]!;
    let spaced: boolean | undefined;
    while (compact.length < length) {
      const ch = text[index];
      if (ch === ' ' && compact.length % 4 === 0 && spaced !== false && isAlnum(text[index + 1])) {
        spaced = true;
        index++;
        continue;
      }
      if (!isAlnum(ch)) {
        break;
      }
      // once grouped by spaces, every full group of four is followed by one
      if (spaced === undefined && compact.length % 4 === 0 && compact.length > 4) {
        spaced = false;
      }
      if (spaced === true && compact.length % 4 === 0 && text[index - 1] !== ' ') {
        break;
      }
      compact += ch!.toUpperCase();
      index++;
    }
    if (compact.length !== length || isWordCharAt(text, index)) {
      continue;
    }
    if (!ibanMod97Valid(compact)) {
      continue;
    }
    out.push(matchAt(text, 'iban', start, index));
  }
  return out;
}
