// The labels of the two halves of a split typing step (issue 26 item 15): a label that names the
// typed text names each half's own part of it; any other label stays on both halves. One
// function for the review page's preview and the edit service.

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
