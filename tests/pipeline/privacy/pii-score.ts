// Per-kind precision and recall of a PII finder over the labelled corpus: a reported match is a
// true positive when the case expects the same kind with the same text (each expectation used
// once), a false positive otherwise; unmatched expectations are false negatives.
import type { PiiKind, PiiMatch } from '../../../src/shared/domain/privacy';
import { PII_KINDS } from '../../../src/shared/domain/privacy';
import type { PiiCorpusCase } from './pii-corpus';

/** Counts and ratios of one kind. */
export type KindScore = {
  positives: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
};

/** One wrong answer, for messages. */
export type ScoreMiss = { kind: PiiKind; text: string; in: string; error: 'fp' | 'fn' };

/** Scores per kind and the list of misses. */
export function scoreCorpus(
  cases: readonly PiiCorpusCase[],
  find: (text: string) => PiiMatch[],
): { byKind: Record<PiiKind, KindScore>; misses: ScoreMiss[] } {
  const counts = Object.fromEntries(
    PII_KINDS.map((kind) => [kind, { positives: 0, tp: 0, fp: 0, fn: 0 }]),
  ) as Record<PiiKind, { positives: number; tp: number; fp: number; fn: number }>;
  const misses: ScoreMiss[] = [];
  for (const c of cases) {
    const open = c.expected.map((e) => ({ ...e }));
    for (const e of c.expected) {
      counts[e.kind].positives++;
    }
    for (const match of find(c.text)) {
      const at = open.findIndex((e) => e.kind === match.kind && e.text === match.text);
      if (at >= 0) {
        open.splice(at, 1);
        counts[match.kind].tp++;
      } else {
        counts[match.kind].fp++;
        misses.push({ kind: match.kind, text: match.text, in: c.text, error: 'fp' });
      }
    }
    for (const e of open) {
      counts[e.kind].fn++;
      misses.push({ kind: e.kind, text: e.text, in: c.text, error: 'fn' });
    }
  }
  const byKind = Object.fromEntries(
    PII_KINDS.map((kind) => {
      const { positives, tp, fp, fn } = counts[kind];
      const score: KindScore = {
        positives,
        truePositives: tp,
        falsePositives: fp,
        falseNegatives: fn,
        precision: tp + fp === 0 ? 1 : tp / (tp + fp),
        recall: tp + fn === 0 ? 1 : tp / (tp + fn),
      };
      return [kind, score];
    }),
  ) as Record<PiiKind, KindScore>;
  return { byKind, misses };
}
