// Privacy: what the PII scan finds and where, exclusion rules at capture, and the marks and
// edits that keep private data from leaving the machine (issue 14).
import * as v from 'valibot';

/** Kinds of personal or secret data the scan detects. */
export const PII_KINDS = ['email', 'phone', 'card', 'iban', 'secret', 'ip'] as const;
/** One of {@link PII_KINDS}. */
export const PiiKindSchema = v.picklist(PII_KINDS);
/** One of {@link PII_KINDS}. */
export type PiiKind = v.InferOutput<typeof PiiKindSchema>;

/** Kinds that block export and upload until resolved (or `--allow-pii`); the others warn. */
export const BLOCKING_PII_KINDS = ['card', 'iban', 'secret'] as const satisfies readonly PiiKind[];

/** Where a finding's text came from. */
export const PII_SOURCES = [
  'typed',
  'window-title',
  'accessibility',
  'task',
  'label',
  /** A file an import kept under the recording's `raw/` (it leaves with the upload). */
  'raw-file',
] as const;
/** One of {@link PII_SOURCES}. */
export const PiiSourceSchema = v.picklist(PII_SOURCES);
/** One of {@link PII_SOURCES}. */
export type PiiSource = v.InferOutput<typeof PiiSourceSchema>;

/** One match of a detector in a piece of text (offsets in UTF-16 code units, end exclusive). */
export type PiiMatch = {
  kind: PiiKind;
  start: number;
  end: number;
  /** The matched text as it appears. */
  text: string;
};

/** One finding of `scan` in a recording. */
export type PiiFinding = {
  /** Stable across scans of the same data: source, kind, time and matched text hashed. */
  id: string;
  kind: PiiKind;
  source: PiiSource;
  /** Index of the (edited) step the text belongs to or is nearest, null when none (task). */
  stepIndex: number | null;
  /** Session-clock time of the text, null when it has none (task, label). */
  tMs: number | null;
  /** The text around the match with the match itself masked. */
  excerpt: string;
  /** Source `raw-file`: the file's name in the imported folder (kept as `raw/<file>`). */
  file?: string;
};

/** Mark kind of an interval during which an excluded window had focus (marks table). */
export const EXCLUDED_MARK_KIND = 'excluded';
/** Title stored in the window timeline instead of an excluded window's title. */
export const EXCLUDED_WINDOW_TITLE = 'excluded';
/**
 * Mark kind of an excluded window's rectangle while it was on the screen, focused or not
 * (issue 26, item 6): `data_json = {"rule", "bounds": {x, y, width, height}}` (screen px, the
 * window-manager frame included); every export, keyframe and upload blanks the rectangle over
 * [tMs, endMs].
 */
export const EXCLUDED_REGION_MARK_KIND = 'excluded-region';
