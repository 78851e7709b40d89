// Text redaction of what leaves the machine (issue 14, item 3): every occurrence of a redacted
// finding's text becomes its kind's placeholder (`[EMAIL]`, `[CARD]`, …) in strings, JSON values
// and the raw key events that typed it. Pure: no I/O. The library's own rows never change.
//
// Raw key events (docs/privacy.md §3): the printable key-downs of a recording are read as one
// text; each occurrence of a redacted text in it is a span. The span's first characters become the
// placeholder's characters (key-down and its key-up: `key`, `char`, `keyRaw`), its remaining
// key events are kept as masked events (flag `masked`: AgentNet rows with `name`/`pynput_key`
// null, as a password field's keys are exported), so the event count, order, times and indices
// stay the same and OpenCUA's scripts read the folder as before, re-reducing it to the
// placeholder. A backspace takes the last key-down back; a span with erased key-downs inside it
// (corrected while typed) is masked whole with them, as is a span shorter than its placeholder.
// A Tab, Enter, arrow or click ends a piece of text (issue 26, item 1): no span crosses one, so
// each field of a form filled with Tab is masked on its own, as the scan reads it.
import { EVENT_FLAGS, type PiiKind, type RawEvent } from '../../shared/domain';

/** The placeholder each kind of finding is replaced with. */
export const PII_PLACEHOLDERS: Readonly<Record<PiiKind, string>> = {
  email: '[EMAIL]',
  phone: '[PHONE]',
  card: '[CARD]',
  iban: '[IBAN]',
  secret: '[SECRET]',
  ip: '[IP]',
};

/** One text to take out, and what replaces it. */
export type TextRedaction = { text: string; placeholder: string };

/** Separators a typed number carries that its compact form (digits only) leaves out. */
const SEPARATORS = /[\s\-.()/]/g;
/** Shortest compact form replaced on its own (shorter ones would hit ordinary numbers). */
const MIN_COMPACT = 6;

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The rules of a set of redactions: the texts longest first, then their compact forms (only
 * between non-alphanumerics). */
function rulesOf(redactions: readonly TextRedaction[]): { re: RegExp; placeholder: string }[] {
  const sorted = [...redactions]
    .filter((r) => r.text.length > 0)
    .sort((a, b) => b.text.length - a.text.length);
  const rules = sorted.map((r) => ({
    re: new RegExp(escapeRe(r.text), 'g'),
    placeholder: r.placeholder,
  }));
  for (const r of sorted) {
    const compact = r.text.replace(SEPARATORS, '');
    if (compact !== r.text && compact.length >= MIN_COMPACT) {
      rules.push({
        re: new RegExp(`(?<![0-9A-Za-z])${escapeRe(compact)}(?![0-9A-Za-z])`, 'gi'),
        placeholder: r.placeholder,
      });
    }
  }
  return rules;
}

/** What a label puts after text it cut short ("Type "eyJhbGciOiJIUzI1NiIsInR5cCI6…""). */
const ELLIPSIS = '\u2026';
/** Shortest start of a redacted text replaced where it was cut short. */
const MIN_CLIPPED = 6;

/**
 * `s` with every start of a redacted text that is cut short by `…` (a step label quotes at most
 * 40 characters of a piece of typed text: a long key typed in a field leaves its first 39 in the
 * label, which neither the detectors nor the whole text match) replaced with the placeholder.
 */
function redactClipped(s: string, redactions: readonly TextRedaction[]): string {
  let out = s;
  const sorted = [...redactions].sort((a, b) => b.text.length - a.text.length);
  for (const r of sorted) {
    for (let at = out.indexOf(ELLIPSIS); at >= 0; at = out.indexOf(ELLIPSIS, at + 1)) {
      for (let k = Math.min(r.text.length - 1, at); k >= MIN_CLIPPED; k -= 1) {
        if (out.slice(at - k, at) === r.text.slice(0, k)) {
          out = out.slice(0, at - k) + r.placeholder + out.slice(at);
          at += r.placeholder.length - k;
          break;
        }
      }
    }
  }
  return out;
}

/** A redactor of strings and JSON values for a fixed set of redactions. */
export type TextRedactor = {
  /** False when there is nothing to redact (every function returns its input). */
  readonly isActive: boolean;
  string(s: string): string;
  /** A JSON-like value with every string (and object key) redacted; `keystrokes` lists (the
   * reducer's per-character records) get their characters redacted as a span. */
  value<T>(v: T): T;
  /** Raw events with the key events of redacted spans rewritten (see the file comment). */
  events(events: readonly RawEvent[]): RawEvent[];
};

/** A redactor for `redactions` (none: the identity). */
export function textRedactor(redactions: readonly TextRedaction[]): TextRedactor {
  const rules = rulesOf(redactions);
  const isActive = rules.length > 0;
  const string = (s: string): string => {
    let out = s;
    for (const r of rules) {
      if (out.length) {
        out = out.replace(r.re, r.placeholder);
      }
    }
    return out.includes(ELLIPSIS) ? redactClipped(out, redactions) : out;
  };
  const value = <T>(v: T): T => {
    if (!isActive) {
      return v;
    }
    const walk = (x: unknown, key?: string): unknown => {
      if (typeof x === 'string') {
        return string(x);
      }
      if (Array.isArray(x)) {
        return key === 'keystrokes' ? keystrokes(x.map((y) => walk(y))) : x.map((y) => walk(y));
      }
      if (x && typeof x === 'object') {
        return Object.fromEntries(Object.entries(x).map(([k, y]) => [string(k), walk(y, k)]));
      }
      return x;
    };
    return walk(v) as T;
  };
  // per-character records `{ text, … }`: spans spelling a redacted text get the placeholder's
  // characters, the rest of the span an empty text
  const keystrokes = (list: unknown[]): unknown[] => {
    const records = list.map((k) =>
      k && typeof k === 'object' ? (k as { text?: unknown; key?: unknown }) : {},
    );
    const chars = records.map((k) => (typeof k.text === 'string' ? k.text : ''));
    // a Tab, Enter or arrow between two pieces of text: no span crosses it
    const breaks = new Set<number>();
    records.forEach((k, i) => {
      if (chars[i] === '' && typeof k.key === 'string' && isBreakKey(k.key)) {
        breaks.add(i);
      }
    });
    const plan = spanPlan(chars, redactions, breaks);
    return list.map((k, i) => {
      const next = plan.get(i);
      return next === undefined ? k : { ...(k as object), text: next };
    });
  };
  const events = (list: readonly RawEvent[]): RawEvent[] =>
    isActive ? redactKeyEvents(list, redactions) : [...list];
  return { isActive, string, value, events };
}

/** Keys that end a piece of typed text (docs/privacy.md §1): the scan reads the text between two
 * of them, or two clicks, on its own, and a redaction span never crosses one. */
const BREAK_KEYS: ReadonlySet<string> = new Set([
  'tab',
  'iso_left_tab',
  'enter',
  'return',
  'kp_enter',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'page_up',
  'page_down',
  'pageup',
  'pagedown',
  'prior',
  'next',
  'esc',
  'escape',
]);

/** True for a key name (ours, AgentNet's or pynput's `Key.tab`) that ends a piece of text. */
export function isBreakKey(name: string): boolean {
  return BREAK_KEYS.has(name.toLowerCase().replace(/^key\./, ''));
}

/** Never part of a redacted text: stands between two pieces of typed text. */
const BREAK = '\u0000';

/**
 * Over a sequence of characters (one entry per keystroke, '' for none), the new character of
 * every position inside an occurrence of a redacted text: the placeholder's characters, then ''
 * (masked) for the rest; a span shorter than its placeholder becomes '' whole. `breaks`: the
 * positions that start a new piece of text (after a Tab, Enter, arrow or click); no occurrence
 * spans two pieces, as the scan reads each piece on its own.
 */
function spanPlan(
  chars: readonly string[],
  redactions: readonly TextRedaction[],
  breaks: ReadonlySet<number> = new Set(),
): Map<number, string> {
  const plan = new Map<number, string>();
  // the text over the positions that carry a character, and each character's position (-1 for
  // a break)
  const positions: number[] = [];
  let text = '';
  chars.forEach((c, i) => {
    if (breaks.has(i) && text !== '' && !text.endsWith(BREAK)) {
      positions.push(-1);
      text += BREAK;
    }
    if (c.length) {
      for (let k = 0; k < c.length; k += 1) {
        positions.push(i);
      }
      text += c;
    }
  });
  const sorted = [...redactions]
    .filter((r) => r.text.length > 0 && !r.text.includes(BREAK))
    .sort((a, b) => b.text.length - a.text.length);
  for (const r of sorted) {
    for (let at = text.indexOf(r.text); at >= 0; at = text.indexOf(r.text, at + r.text.length)) {
      const span = [...new Set(positions.slice(at, at + r.text.length))];
      if (span.some((p) => plan.has(p))) {
        continue; // inside a longer redaction already planned
      }
      const placeholder = [...r.placeholder];
      const fits = placeholder.length <= span.length;
      span.forEach((p, j) => plan.set(p, fits && j < placeholder.length ? placeholder[j]! : ''));
    }
  }
  return plan;
}

const isMasked = (e: RawEvent): boolean => (e.flags & EVENT_FLAGS.masked) !== 0;

/** The character a key-down types (null: none, or a masked one). */
function typedChar(e: RawEvent): string | null {
  if (e.kind !== 'keydown' || isMasked(e)) {
    return null;
  }
  if (e.char !== null && [...e.char].length === 1) {
    return e.char;
  }
  if (e.key !== null && [...e.key].length === 1) {
    return e.key;
  }
  return e.key === 'space' ? ' ' : null;
}

/** Raw events with the key events of every redacted span rewritten (see the file comment). */
export function redactKeyEvents(
  events: readonly RawEvent[],
  redactions: readonly TextRedaction[],
): RawEvent[] {
  // the text as typed: printable key-downs, a backspace taking the last one back (its key-down
  // is remembered as erased, so corrections inside a span are masked too)
  const downs: number[] = [];
  const chars: string[] = [];
  const erased: number[] = [];
  // a Tab, Enter, arrow or click starts a new piece: no span crosses it
  const breaks = new Set<number>();
  events.forEach((e, i) => {
    if (
      e.kind === 'down' ||
      (e.kind === 'keydown' && e.key !== null && isBreakKey(e.key) && !isMasked(e))
    ) {
      breaks.add(chars.length);
      return;
    }
    const c = typedChar(e);
    if (c !== null) {
      downs.push(i);
      chars.push(c);
    } else if (e.kind === 'keydown' && e.key === 'backspace' && downs.length) {
      erased.push(downs.pop()!);
      chars.pop();
      // a break after the erased character now comes after the one before it
      for (const b of [...breaks]) {
        if (b > chars.length) {
          breaks.delete(b);
          breaks.add(chars.length);
        }
      }
    }
  });
  const visible = spanPlan(chars, redactions, breaks);
  if (!visible.size) {
    return [...events];
  }
  const plan = new Map<number, string>();
  // spans by their first and last key-down; one with an erased key-down inside is masked whole
  const positions = [...visible.keys()].sort((a, b) => a - b);
  let runStart = 0;
  for (let k = 1; k <= positions.length; k += 1) {
    if (k < positions.length && positions[k] === positions[k - 1]! + 1) {
      continue;
    }
    const run = positions.slice(runStart, k);
    runStart = k;
    const first = downs[run[0]!]!;
    const last = downs[run.at(-1)!]!;
    const inside = erased.filter((i) => i > first && i < last);
    for (const p of run) {
      plan.set(downs[p]!, inside.length ? '' : visible.get(p)!);
    }
    inside.forEach((i) => plan.set(i, ''));
  }
  const out = [...events];
  const rewrite = (i: number, next: string): void => {
    const e = out[i]!;
    out[i] =
      next === ''
        ? {
            ...e,
            key: null,
            char: null,
            keyRaw: null,
            keycode: null,
            flags: e.flags | EVENT_FLAGS.masked,
          }
        : { ...e, key: next, char: next, keyRaw: `'${next}'`, keycode: null };
  };
  for (const [i, next] of plan) {
    const down = events[i]!;
    rewrite(i, next);
    // its key-up: the next key-up of the same key (code, name or character) after it
    for (let j = i + 1; j < events.length; j += 1) {
      const e = events[j]!;
      if (
        e.kind === 'keyup' &&
        ((down.keycode !== null && e.keycode === down.keycode) ||
          (down.key !== null && e.key === down.key) ||
          (down.char !== null && e.char === down.char))
      ) {
        rewrite(j, next);
        break;
      }
    }
  }
  return out;
}
