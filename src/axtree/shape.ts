// Checking untrusted accessibility data (helper output, stored JSON) against valibot schemas:
// the first issue becomes an AxShapeError naming where it is (`root.children[2].role`) and what
// was expected. Shared by the model (./model.ts) and the helper protocol
// (./platform/native-helper.ts).
import * as v from 'valibot';

/** A value that is not a valid accessibility shape; `path` says where (e.g. `root.children[2]`). */
export class AxShapeError extends Error {
  override readonly name = 'AxShapeError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** `JSON.stringify` of what an issue got, for messages (`got 7`, `got undefined`). */
export function got(issue: v.BaseIssue<unknown>): string {
  return `got ${JSON.stringify(issue.input)}`;
}

/** True for a plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite number; anything else is `expected a finite number, got …`. */
export const FiniteNumberSchema = v.pipe(
  v.number((issue) => `expected a finite number, ${got(issue)}`),
  v.finite((issue) => `expected a finite number, ${got(issue)}`),
);

/** A string; anything else is `expected a string, got …`. */
export const StringSchema = v.string((issue) => `expected a string, ${got(issue)}`);

/** A boolean; anything else is `expected a boolean, got …`. */
export const BooleanSchema = v.boolean((issue) => `expected a boolean, ${got(issue)}`);

/**
 * An object with these entries (unknown keys dropped). Anything but a plain object (arrays too)
 * gets `notObject`; a missing required key gets what its entry's schema says about `undefined`
 * (`expected a string, got undefined`), not valibot's generic key message.
 */
export function shapeObject<E extends v.ObjectEntries>(
  entries: E,
  notObject: string | ((input: unknown) => string),
) {
  const message = (issue: v.BaseIssue<unknown>): string => {
    const key = issue.path?.length === 1 ? issue.path[0]?.key : undefined;
    const entry = typeof key === 'string' ? entries[key] : undefined;
    if (entry !== undefined) {
      return v.safeParse(entry, undefined).issues?.[0].message ?? issue.message;
    }
    return typeof notObject === 'string' ? notObject : notObject(issue.input);
  };
  return v.pipe(
    v.custom<Record<string, unknown>>(isRecord, (issue) => message(issue)),
    v.object(entries, message),
  );
}

/** `base` followed by an issue's path: `.key` for keys, `[i]` for array items. */
export function issuePath(base: string, issue: v.BaseIssue<unknown>): string {
  let out = base;
  for (const item of issue.path ?? []) {
    out += typeof item.key === 'number' ? `[${item.key}]` : `.${String(item.key)}`;
  }
  return out;
}

/**
 * Checks `value` against `schema`: the output, or the error `fail` makes of the first issue
 * (default: an AxShapeError naming the field under `path`).
 */
export function parseShape<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  path: string,
  fail: (issue: v.BaseIssue<unknown>) => Error = (issue) =>
    new AxShapeError(issuePath(path, issue), issue.message),
): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (!result.success) {
    throw fail(result.issues[0]);
  }
  return result.output;
}
