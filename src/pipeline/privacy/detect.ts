// The PII scan's detectors over one piece of text (issue 14): e-mail addresses, phone numbers,
// payment cards, IBANs, secret keys and tokens, IP addresses. Pure: no I/O.
import type { PiiKind, PiiMatch } from '../../shared/domain/privacy';
import { findCards } from './card';
import { findEmails } from './email';
import { findIbans } from './iban';
import { findIps } from './ip';
import { findPhones } from './phone';
import { findSecrets } from './secret';

export { maskExcerpt } from './mask';

/**
 * Which match wins when two overlap: the more specific detector (a checksum or a fixed format
 * beats a shape); phones are the loosest.
 */
const SPECIFICITY: Readonly<Record<PiiKind, number>> = {
  secret: 6,
  card: 5,
  iban: 4,
  email: 3,
  ip: 2,
  phone: 1,
};

/** Every PII match in `text`, sorted by start, none overlapping another. */
export function findPii(text: string): PiiMatch[] {
  if (text.length === 0) {
    return [];
  }
  // cards, IBANs, IP addresses and phones all contain digits; most titles and names have none
  const numeric = /\d/.test(text);
  const candidates = [
    ...findSecrets(text),
    ...findEmails(text),
    ...(numeric
      ? [...findCards(text), ...findIbans(text), ...findIps(text), ...findPhones(text)]
      : []),
  ];
  // clusters of transitively overlapping candidates, then the most specific (then longest)
  // first within each cluster: linear in the matches, however many a long text has
  candidates.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: PiiMatch[] = [];
  let cluster: PiiMatch[] = [];
  let clusterEnd = -1;
  const flush = (): void => {
    if (cluster.length === 1) {
      kept.push(cluster[0]!);
    } else if (cluster.length > 1) {
      const chosen: PiiMatch[] = [];
      cluster.sort(
        (a, b) =>
          SPECIFICITY[b.kind] - SPECIFICITY[a.kind] ||
          b.end - b.start - (a.end - a.start) ||
          a.start - b.start,
      );
      for (const candidate of cluster) {
        if (!chosen.some((k) => candidate.start < k.end && k.start < candidate.end)) {
          chosen.push(candidate);
        }
      }
      kept.push(...chosen.sort((a, b) => a.start - b.start));
    }
    cluster = [];
  };
  for (const candidate of candidates) {
    if (candidate.start >= clusterEnd) {
      flush();
    }
    cluster.push(candidate);
    clusterEnd = Math.max(clusterEnd, candidate.end);
  }
  flush();
  return kept;
}
