// PII detectors (issue 14): checksums, each detector's boundaries and rejections, overlap
// resolution, masked excerpts, and per-kind precision ≥ 0.95 and recall ≥ 0.90 on the corpus.
import { describe, expect, it } from 'vitest';
import { findPii, maskExcerpt } from '../../../src/pipeline/privacy/detect';
import { ibanMod97Valid, luhnValid, shannonEntropy } from '../../../src/pipeline/privacy/checksums';
import type { PiiKind } from '../../../src/shared/domain/privacy';
import { PII_KINDS } from '../../../src/shared/domain/privacy';
import { PII_CORPUS, PII_NEGATIVES } from './pii-corpus';
import { scoreCorpus } from './pii-score';

/** `kind:text` of every match, for compact assertions. */
function found(text: string): string[] {
  return findPii(text).map((m) => `${m.kind}:${m.text}`);
}

describe('checksums', () => {
  it('Luhn accepts valid card numbers and rejects one changed digit', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4111x11111111111')).toBe(false);
  });

  it('mod-97 accepts valid IBANs and rejects a changed digit or swapped pair', () => {
    expect(ibanMod97Valid('DE89370400440532013000')).toBe(true);
    expect(ibanMod97Valid('GB82WEST12345698765432')).toBe(true);
    expect(ibanMod97Valid('NO9386011117947')).toBe(true);
    expect(ibanMod97Valid('DE89370400440532013001')).toBe(false);
    expect(ibanMod97Valid('GB82WEST12345698765423')).toBe(false);
    expect(ibanMod97Valid('gb82west12345698765432')).toBe(false);
  });

  it('Shannon entropy is 0 for one repeated symbol and log2(n) for n distinct symbols', () => {
    expect(shannonEntropy('aaaaaaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBeCloseTo(2, 10);
    expect(shannonEntropy('0123456789abcdef')).toBeCloseTo(4, 10);
    expect(shannonEntropy('')).toBe(0);
  });
});

describe('email', () => {
  it('finds addresses with their exact extent', () => {
    expect(found('Inbox (3) - jane.doe@example.com - Mail')).toEqual([
      'email:jane.doe@example.com',
    ]);
    expect(found('<a.b+c@sub.example.co.uk>.')).toEqual(['email:a.b+c@sub.example.co.uk']);
  });
  it('rejects retina asset names, package versions, bare hosts and scp-style remotes', () => {
    expect(found('logo@2x.png icon@3x.webp vitest@5.1.2 user@localhost @types/node')).toEqual([]);
    expect(found('git clone git@github.com:acme/widgets.git')).toEqual([]);
    expect(found('from git@github.com: done')).toEqual(['email:git@github.com']);
  });
});

describe('phone', () => {
  it('finds international and national forms', () => {
    expect(found('Call +1 (415) 555-2671')).toEqual(['phone:+1 (415) 555-2671']);
    expect(found('+44 20 7946 0958')).toEqual(['phone:+44 20 7946 0958']);
    expect(found('01 23 45 67 89')).toEqual(['phone:01 23 45 67 89']);
    expect(found('12 34 56 78 90')).toEqual([]);
    expect(found('415.555.2671')).toEqual(['phone:415.555.2671']);
  });
  it('needs a phone word for short or unseparated national numbers', () => {
    expect(found('code 555-1234')).toEqual([]);
    expect(found('tel: 555-1234')).toEqual(['phone:555-1234']);
    expect(found('4155552671')).toEqual([]);
    expect(found('phone 4155552671')).toEqual(['phone:4155552671']);
  });
  it('rejects dates, times, versions, coordinates, ISBNs, amounts and labelled numbers', () => {
    for (const text of [
      '2024-05-01 12:30:45',
      '12.05.2024',
      '10.0.19045.3693',
      '-33.8688151, 151.2092955',
      'ISBN 978-3-16-148410-0',
      '12 345 678 bytes',
      '$ 415 555 2671',
      'Order #123-456-7890',
      'Serial number: 555-0123-4567',
      '1234 5678 9012 3456',
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });
  it('rejects US ZIP+4 codes unless labelled as a phone', () => {
    expect(found('CA 94107-1234')).toEqual([]);
    expect(found('tel 94107-1234')).toEqual(['phone:94107-1234']);
  });
  it('drops a trailing number after a complete phone', () => {
    expect(found('+44 20 7946 0958 2024')).toEqual(['phone:+44 20 7946 0958']);
  });
});

describe('card', () => {
  it('finds Luhn-valid numbers with a known issuer in the usual groupings', () => {
    expect(found('4111 1111 1111 1111')).toEqual(['card:4111 1111 1111 1111']);
    expect(found('4111-1111-1111-1111')).toEqual(['card:4111-1111-1111-1111']);
    expect(found('Amex 3782 822463 10005')).toEqual(['card:3782 822463 10005']);
    expect(found('5555555555554444')).toEqual(['card:5555555555554444']);
  });
  it('rejects a failed Luhn check, unknown issuers, mixed separators and longer runs', () => {
    expect(found('4111 1111 1111 1112')).toEqual([]);
    // Luhn-valid but no issuer starts with 9 or 1
    expect(found('9111111111111111 1111111111111117')).toEqual([]);
    expect(found('4111 1111-1111 1111')).toEqual([]);
    expect(found('41111111111111110')).toEqual([]);
    expect(found('x4111111111111111')).toEqual([]);
    expect(found('3.4111111111111111')).toEqual([]);
  });
  it('keeps a card next to its expiry date, in comma lists, but not inside longer blocks', () => {
    expect(found('card 4111 1111 1111 1111 12/27')).toEqual(['card:4111 1111 1111 1111']);
    expect(found('4111111111111111,5555555555554444')).toEqual([
      'card:4111111111111111',
      'card:5555555555554444',
    ]);
    expect(found('4111 1111 1111 1111 1111')).toEqual([]);
  });
  it('wins over the phone detector on the same digits', () => {
    expect(findPii('4111 1111 1111 1111').map((m) => m.kind)).toEqual(['card']);
  });
});

describe('iban', () => {
  it('finds compact and four-grouped IBANs of the country length with a valid checksum', () => {
    expect(found('DE89370400440532013000')).toEqual(['iban:DE89370400440532013000']);
    expect(found('IBAN: DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX')).toEqual([
      'iban:DE89 3704 0044 0532 0130 00',
    ]);
  });
  it('rejects a wrong checksum, a wrong length, unknown countries and odd grouping', () => {
    expect(found('DE89370400440532013001')).toEqual([]);
    expect(found('DE8937040044053201300')).toEqual([]);
    expect(found('DE893704004405320130001')).toEqual([]);
    expect(found('ZZ89370400440532013000')).toEqual([]);
    expect(found('DE89 37040 0440 5320 1300 0')).toEqual([]);
  });
});

describe('secret', () => {
  it('finds well-known token formats', () => {
    const tokens = [
      'AKIAIOSFODNN7EXAMPLE',
      'ghp_AnHzbG8Xricdnpgg8WGomXuhqOCouNOVnSRL',
      'xoxb-932726389265-7241362145961-kNDI1DQZtSh1hc05qjJvmaSt',
      'sk_live_h3sGGcJkGhT656YKxD2qRMJg',
      'AIza548ayLTj2Lg0YJ8AGjf2bN4U1yh_CVKGYvz',
      'sk-RcKVUecepQRViQ1ZqZTait6esh1UxyE4jbrDDQx5RJ38ZVuN',
      '-----BEGIN PRIVATE KEY-----',
    ];
    for (const token of tokens) {
      expect(found(`value ${token} end`), token).toEqual([`secret:${token}`]);
    }
  });
  it('finds high-entropy values only after a credential word', () => {
    expect(found('api_key = "Zx9fK2LmQ8rT4vW7yB3n"')).toEqual(['secret:Zx9fK2LmQ8rT4vW7yB3n']);
    expect(found('random Zx9fK2LmQ8rT4vW7yB3n')).toEqual([]);
    expect(found('password: aaaaaaaaaaaaaaaaaaaa')).toEqual([]);
    expect(found('token: short1A')).toEqual([]);
  });
  it('does not take code identifiers, file names or a next URL parameter for a secret', () => {
    expect(found('const token = getAccessTokenFromStorage();')).toEqual([]);
    expect(found('secret_key_path = config/keys/server-2024.pem')).toEqual([]);
    expect(found('?api_key=Zx9fK2LmQ8rT4vW7yB3n&page=2')).toEqual(['secret:Zx9fK2LmQ8rT4vW7yB3n']);
    expect(found('password = "Tr0ub4dor&3xK9!mQz2Lp"')).toEqual(['secret:Tr0ub4dor&3xK9!mQz2Lp']);
  });
  it('keeps the AWS secret without its label and the key id over the label match', () => {
    expect(found('aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')).toEqual([
      'secret:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    ]);
    expect(found('AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE')).toEqual([
      'secret:AKIAIOSFODNN7EXAMPLE',
    ]);
  });
  it('takes a PEM body only up to its own footer', () => {
    const key = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB3k\n-----END EC PRIVATE KEY-----';
    expect(found(`a -----BEGIN PRIVATE KEY----- b\n${key}`)).toEqual([
      'secret:-----BEGIN PRIVATE KEY-----',
      `secret:${key}`,
    ]);
  });
  it('wins over an e-mail address inside a remote URL', () => {
    expect(found('https://ghp_AnHzbG8Xricdnpgg8WGomXuhqOCouNOVnSRL@github.com/o/r')).toEqual([
      'secret:ghp_AnHzbG8Xricdnpgg8WGomXuhqOCouNOVnSRL',
    ]);
  });
});

describe('ip', () => {
  it('finds IPv4 and IPv6 forms', () => {
    expect(found('10.0.0.5, 2001:db8::1, ::1, ::ffff:192.0.2.128.')).toEqual([
      'ip:10.0.0.5',
      'ip:2001:db8::1',
      'ip:::1',
      'ip:::ffff:192.0.2.128',
    ]);
    expect(found('FE80:0000:0000:0000:0202:B3FF:FE1E:8329')).toEqual([
      'ip:FE80:0000:0000:0000:0202:B3FF:FE1E:8329',
    ]);
  });
  it('rejects out-of-range octets, versions, longer dotted runs, MACs, times and slices', () => {
    for (const text of [
      '256.1.1.1',
      'v1.2.3.4',
      'Chrome/120.0.0.0 Safari/537.36',
      'version 10.0.0.1',
      '1.3.6.1.4.1',
      '00:1A:2B:3C:4D:5E',
      '12:30:45',
      'arr[1::2]',
      'std::vector',
      '1:2:3:4:5:6:7',
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });
});

describe('findPii', () => {
  it('returns matches sorted by start with exact offsets and no overlaps', () => {
    const text = 'mail a@b.io, ip 10.0.0.1, card 4111 1111 1111 1111, call +1 415 555 2671';
    const matches = findPii(text);
    expect(matches.map((m) => m.kind)).toEqual(['email', 'ip', 'card', 'phone']);
    for (const [i, m] of matches.entries()) {
      expect(text.slice(m.start, m.end)).toBe(m.text);
      if (i > 0) {
        expect(m.start).toBeGreaterThanOrEqual(matches[i - 1]!.end);
      }
    }
    expect(findPii('')).toEqual([]);
  });
});

describe('long texts', () => {
  it('stay linear: 100 KB of near-misses of every detector scan in well under 3 s each', () => {
    const n = 100_000;
    const texts = [
      '12 '.repeat(n / 3),
      '1234-'.repeat(n / 5),
      '1.'.repeat(n / 2),
      'a.'.repeat(n / 2) + '@',
      'a/'.repeat(n / 2) + '@b.co',
      'DE89 '.repeat(n / 5),
      '+1 '.repeat(n / 3),
      '-----BEGIN PRIVATE KEY-----\n'.repeat(n / 28),
      'token: '.repeat(n / 7),
      'fe80:'.repeat(n / 5),
    ];
    for (const text of texts) {
      const started = performance.now();
      findPii(text);
      expect(performance.now() - started, text.slice(0, 20)).toBeLessThan(3000);
    }
  });
});

describe('maskExcerpt', () => {
  it('keeps the first and last two characters of long matches and masks short ones fully', () => {
    const text = 'Card 4111 1111 1111 1111 ok';
    const [card] = findPii(text);
    expect(maskExcerpt(text, card!)).toBe('Card 41***************11 ok');
    const pin = { kind: 'secret' as PiiKind, start: 4, end: 11, text: 'abcdefg' };
    expect(maskExcerpt('pin abcdefg!', pin)).toBe('pin *******!');
  });
  it('cuts context at the given width with an ellipsis and at line breaks', () => {
    const text = `${'x'.repeat(30)} jane@example.com ${'y'.repeat(30)}`;
    const [email] = findPii(text);
    expect(maskExcerpt(text, email!)).toBe(
      `…${'x'.repeat(19)} ja************om ${'y'.repeat(19)}…`,
    );
    expect(maskExcerpt(text, email!, 3)).toBe('…xx ja************om yy…');
    const lines = 'first line\nmail jane@example.com now\nlast line';
    const [inner] = findPii(lines);
    expect(maskExcerpt(lines, inner!)).toBe('…mail ja************om now…');
  });
  it('never shows the middle of the match', () => {
    const text = 'token ghp_AnHzbG8Xricdnpgg8WGomXuhqOCouNOVnSRL';
    const [secret] = findPii(text);
    const excerpt = maskExcerpt(text, secret!);
    expect(excerpt).not.toContain('AnHzbG8X');
    expect(excerpt.startsWith('token gh')).toBe(true);
  });
});

describe('labelled corpus', () => {
  it('has at least 25 positives per kind and 150 hard negatives, with labels found in the text', () => {
    const positives = Object.fromEntries(PII_KINDS.map((k) => [k, 0])) as Record<PiiKind, number>;
    for (const c of PII_CORPUS) {
      for (const e of c.expected) {
        positives[e.kind]++;
        expect(c.text, e.text).toContain(e.text);
      }
    }
    for (const kind of PII_KINDS) {
      expect(positives[kind], kind).toBeGreaterThanOrEqual(25);
    }
    expect(PII_NEGATIVES.length).toBeGreaterThanOrEqual(150);
    expect(PII_NEGATIVES.every((c) => c.expected.length === 0)).toBe(true);
  });

  it('reaches precision ≥ 0.95 and recall ≥ 0.90 for every kind', () => {
    const { byKind, misses } = scoreCorpus(PII_CORPUS, findPii);
    for (const kind of PII_KINDS) {
      const score = byKind[kind];
      const mine = misses.filter((m) => m.kind === kind);
      expect(
        score.precision,
        `${kind} precision; misses ${JSON.stringify(mine)}`,
      ).toBeGreaterThanOrEqual(0.95);
      expect(score.recall, `${kind} recall; misses ${JSON.stringify(mine)}`).toBeGreaterThanOrEqual(
        0.9,
      );
    }
  });
});
