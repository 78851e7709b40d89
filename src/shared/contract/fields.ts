// Field schemas of the contract's payloads, each with the message a caller sees when it fails:
// what was expected and what came (`must be a string, got 3`). validators.ts puts the field's
// path in front of it.
import * as v from 'valibot';

/** Longest accepted id (recording ids, step ids). */
export const MAX_ID_LENGTH = 200;
/** Longest accepted free text (labels, descriptions, comments). */
export const MAX_TEXT_LENGTH = 100_000;

/** A short, printable rendering of a value for messages. */
export function show(value: unknown): string {
  if (value === undefined) {
    return 'nothing';
  }
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** A message saying what was expected and, after it, what came. */
/* @__NO_SIDE_EFFECTS__ */
export function got(expected: string): (issue: v.BaseIssue<unknown>) => string {
  return (issue) => `${expected}, got ${show(issue.input)}`;
}

/** True for `{}`-style objects (not arrays, not class instances). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return false;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The message of a strict object: a missing field is required, an unknown one is named. */
/* @__NO_SIDE_EFFECTS__ */
function fieldsMessage(
  entries: v.ObjectEntries,
  requiredFor = '',
): (issue: v.BaseIssue<unknown>) => string {
  const known = Object.keys(entries).join(', ');
  return (issue) => {
    if (issue.expected === 'never') {
      return `is not a known field (expected one of ${known})`;
    }
    if (issue.path?.[0]?.origin === 'key') {
      return `is required${requiredFor}`;
    }
    return `must be an object, got ${show(issue.input)}`;
  };
}

/** An object with exactly these fields (a variant option: see {@link obj} for a whole payload). */
/* @__NO_SIDE_EFFECTS__ */
export function fields<const E extends v.ObjectEntries>(entries: E, requiredFor = '') {
  return v.strictObject(entries, fieldsMessage(entries, requiredFor));
}

/** A plain object with exactly these fields; `what` names it when something else came. */
/* @__NO_SIDE_EFFECTS__ */
export function obj<const E extends v.ObjectEntries>(entries: E, what = 'an object') {
  return v.pipe(
    v.custom<Record<string, unknown>>(isPlainObject, got(`must be ${what}`)),
    fields(entries),
  );
}

/** A string of `min` to `max` characters. */
/* @__NO_SIDE_EFFECTS__ */
export function text(max = MAX_TEXT_LENGTH, min = 0) {
  return v.pipe(
    v.string(got('must be a string')),
    v.minLength(min, min === 1 ? 'must not be empty' : `must have at least ${min} characters`),
    v.maxLength(max, (issue) => `must have at most ${max} characters, got ${issue.received}`),
  );
}

/** A recording or step id: 1 to {@link MAX_ID_LENGTH} characters, no control characters. */
export const idField = v.pipe(
  text(MAX_ID_LENGTH, 1),
  // eslint-disable-next-line no-control-regex -- ids never contain control characters
  v.regex(/^[^\u0000-\u001f\u007f]*$/, got('must not contain control characters')),
);

/** One of `values`. */
/* @__NO_SIDE_EFFECTS__ */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return v.picklist(values, got(`must be one of ${values.join(', ')}`));
}

/** A finite number. */
export const finiteField = v.pipe(
  v.number(got('must be a finite number')),
  v.finite(got('must be a finite number')),
);

/** A safe integer in [min, max]. */
/* @__NO_SIDE_EFFECTS__ */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = (issue: v.BaseIssue<unknown>) =>
    `must be between ${min} and ${max}, got ${show(issue.input)}`;
  return v.pipe(
    v.number(got('must be an integer')),
    v.safeInteger(got('must be an integer')),
    v.minValue(min, range),
    v.maxValue(max, range),
  );
}

/** true or false. */
export const boolField = v.boolean(got('must be true or false'));

/** An absolute path on the machine running the services (POSIX, drive or UNC). */
export const absolutePathField = v.pipe(
  text(4096, 1),
  v.check((s) => !s.includes('\0'), 'must not contain NUL characters'),
  v.regex(/^(\/|[A-Za-z]:[\\/]|\\\\)/, got('must be an absolute path')),
);

/** A list of 1 to `max` recording ids. */
/* @__NO_SIDE_EFFECTS__ */
export function idList(max: number) {
  const message = got(`must be a list of 1 to ${max} recording ids`);
  return v.pipe(v.array(idField, message), v.minLength(1, message), v.maxLength(max, message));
}
