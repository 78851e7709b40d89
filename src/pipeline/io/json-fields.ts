// Typed field readers over parsed JSON objects; every failure names the field and the value.
// Each field's type is a valibot schema; the messages are the importer's own.
import * as v from 'valibot';
import { importInvalid } from './import-error';
import type { SourceLocation } from './import-error';
import { describeJsonValue } from './json-text';

/** Lowest coordinate of the virtual screen (Windows/macOS/X11 use signed 16-bit ranges). */
export const VIRTUAL_SCREEN_MIN = -32768;
/** Highest coordinate of the virtual screen. */
export const VIRTUAL_SCREEN_MAX = 32767;

const NumberSchema = v.pipe(v.number(), v.finite());
const IntegerSchema = v.pipe(v.number(), v.integer());
const PositiveIntegerSchema = v.pipe(v.number(), v.integer(), v.minValue(1));
const StringSchema = v.string();
const BooleanSchema = v.boolean();
const ScreenRangeSchema = v.pipe(
  v.number(),
  v.minValue(VIRTUAL_SCREEN_MIN),
  v.maxValue(VIRTUAL_SCREEN_MAX),
);

/** `value` checked against `schema`, or an IMPORT_INVALID error with `message(first issue)`. */
function checked<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  loc: SourceLocation,
  message: (issue: v.BaseIssue<unknown>) => string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, value, { abortEarly: true });
  if (!result.success) {
    throw importInvalid(loc, message(result.issues[0]));
  }
  return result.output;
}

/** Returns `row[name]`, rejecting a missing key. */
export function requireField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): unknown {
  if (!Object.hasOwn(row, name)) {
    throw importInvalid(loc, `missing field "${name}"`);
  }
  return row[name];
}

/** Reads a required finite number. */
export function finiteNumberField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number {
  return asFiniteNumber(requireField(row, name, loc), name, loc);
}

/** Reads a finite number, or null when the key is absent or null. */
export function optionalFiniteNumberField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number | null {
  const value = row[name];
  return value == null ? null : asFiniteNumber(value, name, loc);
}

/** Reads a required integer (any sign). */
export function integerField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number {
  const value = requireField(row, name, loc);
  return checked(
    IntegerSchema,
    value,
    loc,
    () => `field "${name}" must be an integer, got ${describeJsonValue(value)}`,
  );
}

/** Reads a required integer > 0. */
export function positiveIntegerField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number {
  const value = requireField(row, name, loc);
  return checked(
    PositiveIntegerSchema,
    value,
    loc,
    () => `field "${name}" must be a positive integer, got ${describeJsonValue(value)}`,
  );
}

/** Reads a required string. */
export function stringField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): string {
  const value = requireField(row, name, loc);
  return stringValue(value, name, loc);
}

/** Reads a string, or null when the key is absent or null. */
export function optionalStringField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): string | null {
  const value = row[name];
  return value == null ? null : stringValue(value, name, loc);
}

/** Reads a required boolean. */
export function booleanField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): boolean {
  const value = requireField(row, name, loc);
  return checked(
    BooleanSchema,
    value,
    loc,
    () => `field "${name}" must be a boolean, got ${describeJsonValue(value)}`,
  );
}

/** Reads a required screen coordinate: finite, within the virtual screen range (floats allowed). */
export function coordinateField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number {
  const value = finiteNumberField(row, name, loc);
  return checked(
    ScreenRangeSchema,
    value,
    loc,
    () =>
      `field "${name}" is ${String(value)}, outside the virtual screen range ` +
      `${VIRTUAL_SCREEN_MIN}..${VIRTUAL_SCREEN_MAX}`,
  );
}

function asFiniteNumber(value: unknown, name: string, loc: SourceLocation): number {
  return checked(NumberSchema, value, loc, () =>
    typeof value !== 'number'
      ? `field "${name}" must be a number, got ${describeJsonValue(value)}`
      : // Only reachable through overflowing literals such as 1e999 (JSON.parse gives ±Infinity).
        `field "${name}" is not a finite number (${String(value)})`,
  );
}

function stringValue(value: unknown, name: string, loc: SourceLocation): string {
  return checked(
    StringSchema,
    value,
    loc,
    () => `field "${name}" must be a string, got ${describeJsonValue(value)}`,
  );
}
