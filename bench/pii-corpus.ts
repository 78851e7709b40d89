// Benchmark (issue 14): the PII detectors on the labelled corpus of the tests. Prints per kind
// the positives, true and false positives, false negatives, precision and recall, then the
// throughput of findPii over the corpus texts repeated to about 5 MB.
//   npx tsx bench/pii-corpus.ts          (BENCH_MB, default 5)
import { findPii } from '../src/pipeline/privacy/detect';
import { PII_KINDS } from '../src/shared/domain/privacy';
import { PII_CORPUS, PII_NEGATIVES } from '../tests/pipeline/privacy/pii-corpus';
import { scoreCorpus } from '../tests/pipeline/privacy/pii-score';

const TARGET_MB = Number(process.env.BENCH_MB ?? 5);

const { byKind, misses } = scoreCorpus(PII_CORPUS, findPii);
console.log(
  `corpus: ${PII_CORPUS.length} cases, ${PII_NEGATIVES.length} hard negatives (no PII expected)`,
);
console.log('kind     positives  TP  FP  FN  precision  recall');
for (const kind of PII_KINDS) {
  const s = byKind[kind];
  console.log(
    `${kind.padEnd(8)} ${String(s.positives).padStart(9)} ${String(s.truePositives).padStart(3)} ` +
      `${String(s.falsePositives).padStart(3)} ${String(s.falseNegatives).padStart(3)} ` +
      `${s.precision.toFixed(3).padStart(10)} ${s.recall.toFixed(3).padStart(7)}`,
  );
}
for (const miss of misses) {
  console.log(
    `  ${miss.error} ${miss.kind}: ${JSON.stringify(miss.text)} in ${JSON.stringify(miss.in)}`,
  );
}

// throughput: the corpus texts as lines of one large text, scanned in pieces of ~64 KB (the
// scan calls findPii per text: a typed run, a title, an accessibility value)
const block = PII_CORPUS.map((c) => c.text).join('\n');
const copies = Math.max(1, Math.ceil((TARGET_MB * 1024 * 1024) / block.length));
const texts = PII_CORPUS.map((c) => c.text);
let chars = 0;
let matches = 0;
findPii(block); // warm-up
const startedNs = process.hrtime.bigint();
for (let i = 0; i < copies; i++) {
  for (const text of texts) {
    matches += findPii(text).length;
    chars += text.length;
  }
}
const perTextS = Number(process.hrtime.bigint() - startedNs) / 1e9;
const big = Array.from({ length: copies }, () => block).join('\n');
const bigStartedNs = process.hrtime.bigint();
const bigMatches = findPii(big).length;
const bigS = Number(process.hrtime.bigint() - bigStartedNs) / 1e9;
// a reference for the machine's speed (shared CPUs): one /\d+/g pass over the same text
const baseStartedNs = process.hrtime.bigint();
let digitRuns = 0;
for (const _ of big.matchAll(/\d+/g)) {
  digitRuns++;
}
const baseS = Number(process.hrtime.bigint() - baseStartedNs) / 1e9;
const mb = (n: number): number => n / (1024 * 1024);
console.log(
  `throughput per text: ${mb(chars).toFixed(2)} MB in ${perTextS.toFixed(2)} s = ` +
    `${(mb(chars) / perTextS).toFixed(1)} MB/s (${matches} matches)`,
);
console.log(
  `throughput one text: ${mb(big.length).toFixed(2)} MB in ${bigS.toFixed(2)} s = ` +
    `${(mb(big.length) / bigS).toFixed(1)} MB/s (${bigMatches} matches)`,
);
console.log(
  `reference, one /\\d+/g pass over the same text: ${(mb(big.length) / baseS).toFixed(1)} MB/s ` +
    `(${digitRuns} runs)`,
);
