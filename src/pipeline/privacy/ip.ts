// IP address detector: dotted-quad IPv4 (octets 0–255, no leading zeros, not a version number)
// and IPv6 in full, compressed ("::") and IPv4-suffixed forms (RFC 4291 §2.2).
import type { PiiMatch } from '../../shared/domain/privacy';
import { before, isWordCharAt, matchAt } from './text';

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?![\\w]|\\.\\d)`, 'g');
const IPV4_EXACT = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
// candidates: hex groups and colons, optionally ending in a dotted quad; validated below
const IPV6_CANDIDATE =
  /(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?::\d{1,3}(?:\.\d{1,3}){3})?(?![\w:]|\.\d)/g;

// "v1.2.3.4", "version 10.0.0.1", "build 6.1.7601.2": dotted numbers named as versions
const VERSION_BEFORE =
  /(?:\bv|\bver\.?|\bversion|\bbuild|\brelease|\bfirmware|\bfw|\bupdate|\bpatch)\s*[:=]?\s*$/;

function validIpv6(value: string): boolean {
  let body = value;
  const dotted = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(body);
  if (dotted) {
    if (!IPV4_EXACT.test(dotted[1]!)) {
      return false;
    }
    // the dotted quad stands for the last two groups
    body = body.slice(0, dotted.index + 1) + '0:0';
  }
  const halves = body.split('::');
  if (halves.length > 2) {
    return false;
  }
  const groupsOf = (half: string): string[] | null => {
    if (half === '') {
      return [];
    }
    const groups = half.split(':');
    return groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g)) ? groups : null;
  };
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!left || !right) {
    return false;
  }
  const count = left.length + right.length;
  if (halves.length === 1) {
    return count === 8;
  }
  if (count > 7) {
    return false;
  }
  // "1::2" (a Python slice), "a::b": too little to be an address; "::1" is the loopback
  const hexChars = [...left, ...right].join('').length;
  return value === '::1' || (hexChars >= 4 && /\d/.test(value));
}

/** IPv4 and IPv6 addresses in `text`. */
export function findIps(text: string): PiiMatch[] {
  const out: PiiMatch[] = [];
  for (const m of text.includes('.') ? text.matchAll(IPV4) : []) {
    // "Chrome/120.0.0.0": a product token's version (but "http://10.0.0.1" is an address)
    const productVersion = text[m.index - 1] === '/' && /[A-Za-z0-9]/.test(text[m.index - 2] ?? '');
    if (productVersion || VERSION_BEFORE.test(before(text, m.index, 16))) {
      continue;
    }
    out.push(matchAt(text, 'ip', m.index, m.index + m[0].length));
  }
  for (const m of text.includes(':') ? text.matchAll(IPV6_CANDIDATE) : []) {
    const value = m[0];
    if (!value.includes(':') || !validIpv6(value)) {
      continue;
    }
    if (isWordCharAt(text, m.index - 1)) {
      continue;
    }
    out.push(matchAt(text, 'ip', m.index, m.index + value.length));
  }
  return out;
}
