// From scanned texts to findings (pure apart from hashing): each detector match gets its time,
// its step, a masked excerpt and a stable id; identical findings are kept once and the list is
// sorted by time.
import { createHash } from 'node:crypto';
import { PII_SOURCES, type PiiFinding, type PiiMatch } from '../../shared/domain';
import type { ScanText } from './scan-texts';

/** The detectors: every match in a text (src/pipeline/privacy/detect.ts). */
export type FindPii = (text: string) => PiiMatch[];
/** The text around a match with the match masked (src/pipeline/privacy/detect.ts). */
export type MaskExcerpt = (text: string, match: PiiMatch) => string;

/** A step's place on the session clock. */
export type StepSpan = { index: number; startMs: number; endMs: number };

/** The step whose [start, end] holds `tMs`, else the nearest one (the earlier on a tie); null
 * without steps or without a time. */
export function stepIndexAt(steps: readonly StepSpan[], tMs: number | null): number | null {
  if (tMs === null || steps.length === 0) {
    return null;
  }
  let best: StepSpan | null = null;
  let bestGap = Infinity;
  for (const s of steps) {
    if (tMs >= s.startMs && tMs <= s.endMs) {
      return s.index;
    }
    const gap = tMs < s.startMs ? s.startMs - tMs : tMs - s.endMs;
    if (gap < bestGap) {
      best = s;
      bestGap = gap;
    }
  }
  return best ? best.index : null;
}

/** The stable id of a finding: source, kind, time and matched text hashed (16 hex digits). */
export function findingId(source: string, kind: string, tMs: number | null, text: string): string {
  return createHash('sha256')
    .update(`${source}|${kind}|${tMs === null ? 'null' : String(tMs)}|${text}`)
    .digest('hex')
    .slice(0, 16);
}

/** The time of a match: the key-down of its first character when known (`isExact`), else the
 * piece's time. */
function matchTime(piece: ScanText, match: PiiMatch): { tMs: number | null; isExact: boolean } {
  let tMs = piece.tMs;
  let isExact = false;
  for (const c of piece.charTimes ?? []) {
    if (c.offset > match.start) {
      break;
    }
    tMs = c.tMs;
    isExact = true;
  }
  return { tMs, isExact };
}

type Kept = {
  piece: ScanText;
  match: PiiMatch;
  /** Every match in the piece's text (the excerpt masks the others too). */
  all: readonly PiiMatch[];
  tMs: number | null;
  /** `tMs` is the key-down of the match's first character. */
  isExact: boolean;
  stepIndex: number | null;
};

/** `text` with every match but `keep` starred out (same UTF-16 length, so offsets hold): an
 * excerpt never shows another finding's text around its own. */
export function maskOtherMatches(text: string, all: readonly PiiMatch[], keep: PiiMatch): string {
  let out = text;
  for (const m of all) {
    if (m !== keep && m.end > m.start) {
      out = out.slice(0, m.start) + '*'.repeat(m.end - m.start) + out.slice(m.end);
    }
  }
  return out;
}

const sourceOrder = (s: string): number => PII_SOURCES.indexOf(s as (typeof PII_SOURCES)[number]);
const byTime = (a: number | null, b: number | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a - b;

/** Collects the findings of texts that arrive in any order (a stream of accessibility rows). */
export class FindingCollector {
  private readonly kept = new Map<string, Kept>();
  private readonly cache = new Map<string, PiiMatch[]>();
  /** Kind and text of every match kept from a piece that is not `onlyNew`. */
  private readonly seen = new Set<string>();

  constructor(
    private readonly steps: readonly StepSpan[],
    private readonly findPii: FindPii,
    private readonly maskExcerpt: MaskExcerpt,
  ) {}

  /** Scans one piece of text. */
  add(piece: ScanText): void {
    if (piece.text === '') {
      return;
    }
    let matches = this.cache.get(piece.text);
    if (!matches) {
      matches = this.findPii(piece.text);
      this.cache.set(piece.text, matches);
    }
    for (const match of matches) {
      if (piece.echoes?.includes(match.text)) {
        continue;
      }
      const seenKey = `${match.kind}\u0000${match.text}`;
      if (piece.onlyNew && this.seen.has(seenKey)) {
        continue;
      }
      if (!piece.onlyNew) {
        this.seen.add(seenKey);
      }
      const { tMs, isExact } = matchTime(piece, match);
      const stepIndex =
        piece.stepIndex !== undefined ? piece.stepIndex : stepIndexAt(this.steps, tMs);
      // identical (source, kind, text, step): kept once, at the key-down of its first character
      // when one copy knows it (an edited step's text has no keystrokes, the raw keys' has: the
      // id stays the same when an edit changes or removes the step's text), else the earliest
      const key = JSON.stringify([piece.source, match.kind, match.text, stepIndex]);
      const old = this.kept.get(key);
      if (
        !old ||
        (isExact && !old.isExact) ||
        (isExact === old.isExact && byTime(tMs, old.tMs) < 0)
      ) {
        this.kept.set(key, { piece, match, all: matches, tMs, isExact, stepIndex });
      }
    }
  }

  /** The findings, by time (untimed first), then source, step, kind and id. */
  findings(): PiiFinding[] {
    const out = [...this.kept.values()].map((k): PiiFinding => ({
      id: findingId(k.piece.source, k.match.kind, k.tMs, k.match.text),
      kind: k.match.kind,
      source: k.piece.source,
      stepIndex: k.stepIndex,
      tMs: k.tMs,
      excerpt: this.maskExcerpt(maskOtherMatches(k.piece.text, k.all, k.match), k.match),
      ...(k.piece.file === undefined ? {} : { file: k.piece.file }),
    }));
    return out.sort(
      (a, b) =>
        byTime(a.tMs, b.tMs) ||
        sourceOrder(a.source) - sourceOrder(b.source) ||
        byTime(a.stepIndex, b.stepIndex) ||
        (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  }
}
