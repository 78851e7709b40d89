// Splitting a typing step in two (issue 26 item 15): which calls go to each half and how each
// half is labelled. One answer for the review page's preview and the edit service.
import type { ActionCall, PyValue } from './action';

function kwargs(call: ActionCall): Record<string, PyValue> {
  return Array.isArray(call.args) ? {} : call.args;
}

function writeText(call: ActionCall): string | null {
  const m = kwargs(call).message;
  return call.name === 'write' && typeof m === 'string' ? m : null;
}

/** Every write message of `calls` joined, in order ('' when none). */
export function writtenTextOf(calls: readonly ActionCall[]): string {
  return calls
    .map(writeText)
    .filter((t): t is string => t !== null)
    .join('');
}

/** Splits calls at code point `at` of the typed text (keys before the split stay first). */
export function splitCalls(calls: readonly ActionCall[], at: number): [ActionCall[], ActionCall[]] {
  const first: ActionCall[] = [];
  const second: ActionCall[] = [];
  let seen = 0;
  for (const call of calls) {
    const text = writeText(call);
    if (text === null) {
      (seen <= at ? first : second).push(call);
      continue;
    }
    const chars = Array.from(text);
    if (seen + chars.length <= at) {
      first.push(call);
    } else if (seen >= at) {
      second.push(call);
    } else {
      const cut = at - seen;
      const args = kwargs(call);
      first.push({ name: 'write', args: { ...args, message: chars.slice(0, cut).join('') } });
      second.push({ name: 'write', args: { ...args, message: chars.slice(cut).join('') } });
    }
    seen += chars.length;
  }
  return [first, second];
}

/** Longest typed text a label quotes (characters), as the reducer writes labels
 * (pipeline/reduce/describe.ts `LABEL_TEXT_MAX_CHARS`); longer text ends in `…`. */
const QUOTED_TEXT_MAX_CHARS = 40;

/** Typed text as a label quotes it: whitespace folded and trimmed, clipped with `…`. */
function quotedForm(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > QUOTED_TEXT_MAX_CHARS
    ? `${chars.slice(0, QUOTED_TEXT_MAX_CHARS - 1).join('')}…`
    : flat;
}

/** The ways a label names typed text: quoted as the reducer writes it, or the text itself. */
const FORMS: readonly ((text: string) => string)[] = [(t) => `"${quotedForm(t)}"`, (t) => t];

/**
 * The labels of the halves of a step labelled `label` whose typed text `whole` is split into
 * `halves`: where the label names the whole text (`Type "Alice Example" in Name text field`),
 * each half's label names its own part (`Type "Alice" in …`, `Type "Example" in …`); a label
 * that does not name the text (the type word, a secure field's `Type in …`) stays on both.
 */
export function splitStepLabels(
  label: string,
  whole: string,
  halves: readonly [string, string],
): [string, string] {
  for (const form of FORMS) {
    const named = form(whole);
    if (whole.trim() !== '' && label.includes(named)) {
      const [a, b] = halves;
      return [label.split(named).join(form(a)), label.split(named).join(form(b))];
    }
  }
  return [label, label];
}
