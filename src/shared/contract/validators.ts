// Validators over the contract's schemas (methods.ts, edits.ts). Each returns the payload rebuilt
// from its known fields (keys in the order sent: keyword order is the order code prints in), or
// the path of the first offending field (`edit.calls[0].args.x`) with what was expected and what
// came.
import * as v from 'valibot';
import type { ActionCall } from '../domain';
import { ActionCallInputSchema, StepEditSchema, type StepEdit } from './edits';
import { isPlainObject } from './fields';
import {
  API_EVENTS,
  API_METHODS,
  EVENT_SCHEMAS,
  METHOD_SCHEMAS,
  type ApiEvent,
  type ApiEvents,
  type ApiMethod,
  type ApiMethods,
} from './methods';

/** Outcome of a validator: the clean value, or the offending field path and why. */
export type Validation<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

/** A payload validator. */
export type Validator<T> = (payload: unknown) => Validation<T>;

// Compile-time proof that the runtime lists name every method and event of the schemas: a
// missing name makes the right-hand side `false` and this file stops compiling.
type MissingMethods = Exclude<ApiMethod, (typeof API_METHODS)[number]>;
type MissingEvents = Exclude<ApiEvent, (typeof API_EVENTS)[number]>;
const _everyMethodListed: [MissingMethods] extends [never] ? true : false = true;
const _everyEventListed: [MissingEvents] extends [never] ? true : false = true;

/** Path used for the payload itself. */
export const PAYLOAD_FIELD = '(payload)';

const FIRST_ISSUE = { abortEarly: true } as const;

/** The dotted path of an issue below `prefix` (`edit.calls[0].args.x`), or `(payload)`. */
export function issueField(issue: v.BaseIssue<unknown>, prefix = ''): string {
  let path = prefix;
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') {
      path = `${path}[${key}]`;
    } else {
      path = path === '' ? String(key) : `${path}.${String(key)}`;
    }
  }
  return path === '' ? PAYLOAD_FIELD : path;
}

// The parsed value with its object keys in the order they came in `input` (parsing rebuilds
// objects in schema order); keys the parse added (defaults) follow.
function inInputOrder(output: unknown, input: unknown): unknown {
  if (Array.isArray(output) && Array.isArray(input)) {
    return output.map((item, i) => inInputOrder(item, input[i]));
  }
  if (!isPlainObject(output) || !isPlainObject(input)) {
    return output;
  }
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(input)) {
    if (Object.prototype.hasOwnProperty.call(output, key)) {
      ordered[key] = inInputOrder(output[key], input[key]);
    }
  }
  for (const key of Object.keys(output)) {
    if (!Object.prototype.hasOwnProperty.call(ordered, key)) {
      ordered[key] = output[key];
    }
  }
  return ordered;
}

/** Checks `payload` against `schema`: the parsed value, or the first issue's field and message. */
export function validateWith<S extends v.GenericSchema>(
  schema: S,
  payload: unknown,
  prefix = '',
): Validation<v.InferOutput<S>> {
  const result = v.safeParse(schema, payload, FIRST_ISSUE);
  if (result.success) {
    return { ok: true, value: inInputOrder(result.output, payload) as v.InferOutput<S> };
  }
  const issue = result.issues[0];
  return { ok: false, field: issueField(issue, prefix), message: issue.message };
}

/** Validates one call of the action space (name, required args and their types). */
export function validateActionCall(payload: unknown, field = 'call'): Validation<ActionCall> {
  return validateWith(ActionCallInputSchema, payload, field);
}

/** Validates one edit (op, fields, and the calls of a set-action). */
export function validateStepEdit(payload: unknown, field = 'edit'): Validation<StepEdit> {
  return validateWith(StepEditSchema, payload, field);
}

type Input<M extends ApiMethod> = ApiMethods[M]['input'];
type Output<M extends ApiMethod> = ApiMethods[M]['output'];

/* @__NO_SIDE_EFFECTS__ */
function validatorsOf<K extends string, T extends { [N in K]: unknown }>(
  names: readonly K[],
  schemaOf: (name: K) => v.GenericSchema,
): { [N in K]: Validator<T[N]> } {
  return Object.fromEntries(
    names.map((name) => [name, (payload: unknown) => validateWith(schemaOf(name), payload)]),
  ) as { [N in K]: Validator<T[N]> };
}

/** The payload validator of every method. */
export const METHOD_VALIDATORS = validatorsOf<ApiMethod, { [M in ApiMethod]: Input<M> }>(
  API_METHODS,
  (m) => METHOD_SCHEMAS[m].input,
);

/** Validates the payload of `method` (a known method name). */
export function validateMethodInput<M extends ApiMethod>(
  method: M,
  payload: unknown,
): Validation<Input<M>> {
  return METHOD_VALIDATORS[method](payload);
}

/** Checks a result of `method` against its output schema (tests and hosts that want to catch a
 * service drifting from the contract; the dispatcher does not run it on every call). */
export function validateMethodOutput<M extends ApiMethod>(
  method: M,
  result: unknown,
): Validation<Output<M>> {
  return validateWith(METHOD_SCHEMAS[method].output, result, 'result');
}

/** The payload validator of every event. */
export const EVENT_VALIDATORS = validatorsOf<ApiEvent, ApiEvents>(
  API_EVENTS,
  (e) => EVENT_SCHEMAS[e],
);

/** True when `name` is a method of the contract. */
export function isApiMethod(name: string): name is ApiMethod {
  return (API_METHODS as readonly string[]).includes(name);
}
