// Phone number detector: international numbers written with "+" or "00" and national numbers
// in the usual groupings (ITU-T E.123 spacing, North American (415) 555-2671, dotted and dashed
// forms). Digit runs that are dates, times, versions, coordinates, prices, card-like blocks,
// thousands-grouped amounts or labelled order/reference numbers are not phones.
import type { PiiMatch } from '../../shared/domain/privacy';
import { before, isWordCharAt, matchAt } from './text';

// "+", digit groups (one may sit in parentheses) and the separators between them
const CANDIDATE =
  /(?<![\w+\-./#$€£¥,:])(?:\+[ \u00a0]?)?\(?\d+\)?(?:(?:[ \u00a0]?[-./][ \u00a0]?|[ \u00a0]|(?<=\))|(?=\())\(?\d+\)?)*/g;

/** Words before a number that say it is a phone number. */
const PHONE_WORDS =
  /(?<![a-z])(?:phone|tel|tél|telefon|telefono|teléfono|telephone|call|mobile|mobil|mob|handy|cell|fax|whatsapp|sms|text me|ring|dial|hotline|contact|reach me|number|nummer|numéro|☎|📞|✆)\W{0,12}$/i;
/** Words before a number that say it is something else. */
const OTHER_WORDS =
  /(?<![a-z])(?:order|invoice|isbn|issn|sku|ref|reference|tracking|serial|s\/n|part|model|item|ticket|case|account|acct|iban|id|no\.|nr\.?|code|build|version|ver\.?|pid|port|zip|postcode|postal|issue|pr|commit|batch|lot|policy|customer|transaction|txn|receipt|ean|upc|imei|ssn|patient|booking|confirmation|container|shipment|po|doi|arxiv|pmid)(?:\s*(?:number|num|no\.?|nr\.?|#|id))?\W{0,12}$/i;

type Parsed = { groups: string[]; seps: string[]; plus: boolean };

function parse(value: string): Parsed | null {
  const plus = value.startsWith('+');
  const groups: string[] = [];
  const seps: string[] = [];
  let last = plus ? 1 : 0;
  for (const m of value.matchAll(/\d+/g)) {
    if (groups.length > 0) {
      seps.push(value.slice(last, m.index));
    } else if (value.slice(last, m.index).replace(/[ \u00a0(]/g, '') !== '') {
      return null;
    }
    groups.push(m[0]);
    last = m.index + m[0].length;
  }
  return { groups, seps, plus };
}

function isDate(groups: readonly string[], seps: readonly string[]): boolean {
  if (groups.length < 3 || seps[0] !== seps[1] || !/^[-./]$/.test(seps[0]!)) {
    return false;
  }
  const [a, b, c] = groups.map((g) => g.length);
  const first = Number(groups[0]);
  const second = Number(groups[1]);
  if (a === 4 && b! <= 2 && c! <= 2) {
    return second >= 1 && second <= 12;
  }
  if (a! <= 2 && b! <= 2 && (c === 4 || c === 2)) {
    return first <= 31 && second <= 31;
  }
  return false;
}

function valid(p: Parsed, context: boolean, raw: string): boolean {
  const { groups, seps, plus } = p;
  let digits = groups.join('');
  let international = plus;
  if (!plus && groups[0]!.startsWith('00') && groups[0]!.length <= 5 && groups.length > 1) {
    international = true;
    digits = digits.slice(2);
  }
  if (international) {
    if (digits.length < 8 || digits.length > 15 || digits.startsWith('0')) {
      return false;
    }
  } else if (digits.length < (context ? 7 : 9) || digits.length > 12) {
    return false;
  }
  if (groups.length === 1) {
    return plus || context;
  }
  // parentheses: one pair at most, around an area code in the first two groups
  const open = (raw.match(/\(/g) ?? []).length;
  const close = (raw.match(/\)/g) ?? []).length;
  if (open !== close || open > 1) {
    return false;
  }
  if (open === 1) {
    const inner = /\((\d+)\)/.exec(raw);
    if (!inner || inner[1]!.length > 5 || groups.indexOf(inner[1]!) > 1) {
      return false;
    }
  }
  const plain = seps.map((s) => s.replace(/[()]/g, '').replace(/\u00a0/g, ' '));
  for (const [i, sep] of plain.entries()) {
    if (sep === '' && !/[()]/.test(seps[i]!)) {
      return false;
    }
    if (!['', ' ', '-', '.', '/', ' - ', ' / '].includes(sep)) {
      return false;
    }
  }
  if (plain.some((s) => s.includes('.'))) {
    if (!plain.every((s) => s === '.') || groups.length < 3) {
      return false;
    }
    // four groups of up to three digits is an IPv4 address
    if (groups.length === 4 && groups.every((g) => g.length <= 3)) {
      return false;
    }
  }
  if (plain.filter((s) => s.includes('/')).length > 1) {
    return false;
  }
  // one-digit groups only for a country code ("+1", "+7"), the group after it ("+33 1"), or
  // the North American trunk "1-800-…"; ISBNs, versions and list numbers use them elsewhere
  for (const [i, g] of groups.entries()) {
    if (g.length > 8) {
      return false;
    }
    if (g.length !== 1) {
      continue;
    }
    if (international && i <= 1) {
      continue;
    }
    if (i === 0 && g === '1' && groups.length === 4) {
      continue;
    }
    return false;
  }
  if (isDate(groups, seps)) {
    return false;
  }
  if (!international && !context) {
    // US ZIP+4 codes ("94107-1234")
    if (
      groups.length === 2 &&
      groups[0]!.length === 5 &&
      groups[1]!.length === 4 &&
      plain[0] === '-'
    ) {
      return false;
    }
    // pairs of digits are the French national format, which always starts with the trunk 0
    if (groups.length >= 4 && groups.every((g) => g.length === 2) && !groups[0]!.startsWith('0')) {
      return false;
    }
    // card-like blocks of four and thousands-grouped amounts ("12 345 678")
    if (groups.length >= 3 && groups.every((g) => g.length === 4)) {
      return false;
    }
    if (
      groups[0]!.length <= 3 &&
      groups.slice(1).every((g) => g.length === 3) &&
      plain.every((s) => s === ' ' || s === '.')
    ) {
      return false;
    }
  }
  return true;
}

function countDigits(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 48 && code <= 57) {
      count++;
    }
  }
  return count;
}

/** Phone numbers in `text`. */
export function findPhones(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  if (countDigits(text) < 7) {
    return out;
  }
  for (const m of text.matchAll(CANDIDATE)) {
    const start = m.index;
    let raw = m[0];
    // a trailing ")" that opened nowhere belongs to the sentence
    if (raw.endsWith(')') && !raw.includes('(')) {
      raw = raw.slice(0, -1);
    }
    const end = start + raw.length;
    if (isWordCharAt(text, end) || /^[%€$£¥]/.test(text.slice(end, end + 1))) {
      continue;
    }
    if (/^[.,:/]\d/.test(text.slice(end, end + 2))) {
      continue;
    }
    if (
      /^\s?(?:%|kb|mb|gb|tb|px|ms|bytes?|rows|items|€|eur|usd)\b/i.test(text.slice(end, end + 7))
    ) {
      continue;
    }
    if (/[$€£¥]\s?$/.test(text.slice(Math.max(0, start - 2), start))) {
      continue;
    }
    // fewer than seven digits is never a phone: skip the word checks, the costly part
    if (countDigits(raw) < 7) {
      continue;
    }
    const preceding = before(text, start, 40);
    if (OTHER_WORDS.test(preceding)) {
      continue;
    }
    const context = PHONE_WORDS.test(preceding);
    const parsed = parse(raw);
    if (!parsed) {
      continue;
    }
    if (valid(parsed, context, raw)) {
      out.push(matchAt(text, 'phone', start, end));
      continue;
    }
    // a trailing group after a space may be something else ("+44 20 7946 0958 2024")
    const lastSpace = raw.lastIndexOf(' ');
    if (lastSpace > 0 && /^\d+$/.test(raw.slice(lastSpace + 1))) {
      const shorter = raw.slice(0, lastSpace).replace(/[ \u00a0]+$/, '');
      const reparsed = parse(shorter);
      if (reparsed && /\d$/.test(shorter) && valid(reparsed, context, shorter)) {
        out.push(matchAt(text, 'phone', start, start + shorter.length));
      }
    }
  }
  return out;
}
