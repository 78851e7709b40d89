// The pieces of text a PII scan reads, each with where it came from and when (pure): the typed
// text of steps (write messages, keys of press and hotkey calls), step labels and descriptions,
// accessibility names and values, and free-form label data.
import type { ActionCall, PiiSource, PyValue, Step } from '../../shared/domain';

/** One piece of text to scan. */
export type ScanText = {
  source: PiiSource;
  text: string;
  /** Session-clock time of the text, ms; null when it has none (task, label data). */
  tMs: number | null;
  /** The step the text belongs to (null: none); absent: the step is found from the time. */
  stepIndex?: number | null;
  /** Key-down time of the character starting at each UTF-16 offset, offsets ascending (typed
   * text whose keystrokes spell it). A match takes the time of its first character. */
  charTimes?: readonly CharTime[];
  /** Matched texts that do not count here (a description that echoes the step's typed text). */
  echoes?: string;
  /** Source `raw-file`: the kept file's name. */
  file?: string;
  /** Only matches no other piece found (same kind and text) count: a kept file repeats what the
   * library's rows hold, and their findings resolve it. */
  onlyNew?: boolean;
};

/** Key-down time of the character at a UTF-16 offset. */
export type CharTime = { offset: number; tMs: number };

/** Keystrokes as the reducer keeps them in `extra.keystrokes`. */
type Keystroke = { text?: unknown; tMs?: unknown };

/** Times of the characters of `text` when the step's keystrokes spell exactly it. */
function charTimesOf(step: Step, text: string): CharTime[] | undefined {
  const strokes = step.extra.keystrokes;
  if (!Array.isArray(strokes)) {
    return undefined;
  }
  const list = strokes as Keystroke[];
  const spelled = list.map((k) => (typeof k.text === 'string' ? k.text : '')).join('');
  if (spelled !== text) {
    return undefined;
  }
  const times: CharTime[] = [];
  let offset = 0;
  for (const k of list) {
    if (typeof k.text === 'string' && k.text !== '' && typeof k.tMs === 'number') {
      times.push({ offset, tMs: k.tMs });
      offset += k.text.length;
    }
  }
  return times;
}

/** The message of a `write` call (null: another call). */
function writtenText(call: ActionCall): string | null {
  const message = Array.isArray(call.args) ? call.args[0] : call.args.message;
  return call.name === 'write' && typeof message === 'string' ? message : null;
}

/**
 * The pieces of typed text of a step's calls: each run of write calls between two calls that are
 * not writes (a Tab, Enter, arrow or other key) joined, in order; [] when it types none. A form
 * filled with Tab between its fields is one step `write, press('tab'), write, …`: each field's
 * text is a piece of its own (docs/privacy.md §5).
 */
export function typedPiecesOf(calls: readonly ActionCall[]): string[] {
  const pieces: string[] = [];
  let run: string | null = null;
  for (const call of calls) {
    const text = writtenText(call);
    if (text === null) {
      if (run !== null) {
        pieces.push(run);
      }
      run = null;
    } else {
      run = (run ?? '') + text;
    }
  }
  if (run !== null) {
    pieces.push(run);
  }
  return pieces;
}

function stringsOf(value: PyValue | undefined, into: string[]): void {
  if (typeof value === 'string') {
    into.push(value);
  } else if (Array.isArray(value)) {
    value.forEach((v) => stringsOf(v, into));
  }
}

/** The key names of a step's press and hotkey calls, joined by spaces (null when none). */
function keysTextOf(calls: readonly ActionCall[]): string | null {
  const keys: string[] = [];
  for (const call of calls) {
    if (call.name === 'press' || call.name === 'hotkey') {
      const args = Array.isArray(call.args) ? call.args : Object.values(call.args);
      args.forEach((a) => stringsOf(a, keys));
    }
  }
  return keys.length ? keys.join(' ') : null;
}

/**
 * The typed text of one step, piece by piece: each run of write messages between two other calls
 * (a form filled with Tab between its fields is one step `write, press('tab'), write, …`, and
 * each field's text is read on its own: joined, "…@example.org4111 1111 1111 1111+1 415…" matches
 * nothing), with the keystroke times when the keystrokes spell the step's text; and the keys of
 * its press and hotkey calls. `stepIndex` absent: the caller's step is not one of the shown steps
 * (a fresh reduction of the raw keys), so each match finds its step by time.
 */
export function typedTexts(step: Step, options: { ownStep: boolean }): ScanText[] {
  const out: ScanText[] = [];
  const own = options.ownStep ? { stepIndex: step.index } : {};
  const pieces = typedPiecesOf(step.calls);
  const written = pieces.join('');
  const times = written === '' ? undefined : charTimesOf(step, written);
  let start = 0;
  for (const text of pieces) {
    const end = start + text.length;
    if (text !== '') {
      const charTimes = times
        ?.filter((c) => c.offset >= start && c.offset < end)
        .map((c) => ({ offset: c.offset - start, tMs: c.tMs }));
      out.push({
        source: 'typed',
        text,
        tMs: step.startMs,
        ...own,
        ...(charTimes ? { charTimes } : {}),
      });
    }
    start = end;
  }
  const keys = keysTextOf(step.calls);
  if (keys !== null) {
    out.push({ source: 'typed', text: keys, tMs: step.startMs, ...own });
  }
  return out;
}

/** A shown step's label and description (matches of either that only repeat the step's own
 * typed text — `Type "…"` labels, `⌨️ Type: …` descriptions — are that text's findings, and a
 * redaction of that text covers them too). */
export function stepLabelTexts(step: Step): ScanText[] {
  const out: ScanText[] = [];
  const at = { tMs: step.startMs, stepIndex: step.index };
  // the pieces one per line: a match that spans two of them is not an echo
  const typed = typedPiecesOf(step.calls).join('\n');
  if (step.label.trim() !== '') {
    out.push({ source: 'label', text: step.label, ...at, ...(typed ? { echoes: typed } : {}) });
  }
  if (step.description.trim() !== '') {
    out.push({
      source: 'label',
      text: step.description,
      ...at,
      ...(typed ? { echoes: typed } : {}),
    });
  }
  return out;
}

/** Every string value anywhere in a JSON value (free-form label data), in document order. */
export function jsonStrings(value: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      out.push(v);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i -= 1) {
        stack.push(v[i]);
      }
    } else if (v !== null && typeof v === 'object') {
      stack.push(...Object.values(v as Record<string, unknown>).reverse());
    }
  }
  return out;
}

// Fields of a stored accessibility node that hold what a user sees or typed: our model's
// `name`/`description` (axtree/model.ts), UIA's `Name`/`Value`, AX's `AXTitle`/`AXValue`/…
// (compared lower-cased, without the `AX` prefix). Roles, states, refs and bounds are left out.
const AX_TEXT_FIELDS: ReadonlySet<string> = new Set([
  'name',
  'value',
  'description',
  'title',
  'text',
  'label',
  'help',
  'placeholder',
  'placeholdervalue',
  'valuedescription',
  'helptext',
]);

function isAxTextField(key: string): boolean {
  const k = key.toLowerCase();
  return AX_TEXT_FIELDS.has(k) || (k.startsWith('ax') && AX_TEXT_FIELDS.has(k.slice(2)));
}

/**
 * The distinct names, values and descriptions in a stored accessibility tree (a window
 * snapshot, or an element record's path with its ancestors), as stored.
 */
export function axStrings(tree: unknown): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [tree];
  while (stack.length) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      stack.push(...(v as unknown[]));
    } else if (v !== null && typeof v === 'object') {
      for (const [key, field] of Object.entries(v as Record<string, unknown>)) {
        if (typeof field === 'string') {
          if (field.trim() !== '' && isAxTextField(key)) {
            out.add(field);
          }
        } else if (field !== null && typeof field === 'object') {
          stack.push(field);
        }
      }
    }
  }
  return [...out];
}
