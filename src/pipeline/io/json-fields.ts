// Typed field readers over parsed JSON objects; every failure names the field and the value.
import { importInvalid } from './import-error';
import type { SourceLocation } from './import-error';
import { describeJsonValue } from './json-text';

/** Lowest coordinate of the virtual screen (Windows/macOS/X11 use signed 16-bit ranges). */
export const VIRTUAL_SCREEN_MIN = -32768;
/** Highest coordinate of the virtual screen. */
export const VIRTUAL_SCREEN_MAX = 32767;

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
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw importInvalid(loc, `field "${name}" must be an integer, got ${describeJsonValue(value)}`);
  }
  return value;
}

/** Reads a required integer > 0. */
export function positiveIntegerField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number {
  const value = requireField(row, name, loc);
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw importInvalid(
      loc,
      `field "${name}" must be a positive integer, got ${describeJsonValue(value)}`,
    );
  }
  return value;
}

/** Reads a required string. */
export function stringField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): string {
  const value = requireField(row, name, loc);
  if (typeof value !== 'string') {
    throw importInvalid(loc, `field "${name}" must be a string, got ${describeJsonValue(value)}`);
  }
  return value;
}

/** Reads a string, or null when the key is absent or null. */
export function optionalStringField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): string | null {
  const value = row[name];
  if (value == null) {
    return null;
  }
  if (typeof value !== 'string') {
    throw importInvalid(loc, `field "${name}" must be a string, got ${describeJsonValue(value)}`);
  }
  return value;
}

/** Reads a required boolean. */
export function booleanField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): boolean {
  const value = requireField(row, name, loc);
  if (typeof value !== 'boolean') {
    throw importInvalid(loc, `field "${name}" must be a boolean, got ${describeJsonValue(value)}`);
  }
  return value;
}

/** Reads a required screen coordinate: finite, within the virtual screen range (floats allowed). */
export function coordinateField(
  row: Record<string, unknown>,
  name: string,
  loc: SourceLocation,
): number {
  const value = finiteNumberField(row, name, loc);
  if (value < VIRTUAL_SCREEN_MIN || value > VIRTUAL_SCREEN_MAX) {
    throw importInvalid(
      loc,
      `field "${name}" is ${String(value)}, outside the virtual screen range ` +
        `${VIRTUAL_SCREEN_MIN}..${VIRTUAL_SCREEN_MAX}`,
    );
  }
  return value;
}

function asFiniteNumber(value: unknown, name: string, loc: SourceLocation): number {
  if (typeof value !== 'number') {
    throw importInvalid(loc, `field "${name}" must be a number, got ${describeJsonValue(value)}`);
  }
  if (!Number.isFinite(value)) {
    // Only reachable through overflowing literals such as 1e999 (JSON.parse gives ±Infinity).
    throw importInvalid(loc, `field "${name}" is not a finite number (${String(value)})`);
  }
  return value;
}
