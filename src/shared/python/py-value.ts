// Constructors and guards for typed Python values (docs/pyautogui-code.md §4: ints and floats differ).
import type { PyValue } from '../domain/action';

/** A Python int. */
export type PyInt = { int: number };
/** A Python float. */
export type PyFloat = { float: number };

// Builds a Python int value.
export function pyInt(value: number): PyInt {
  // Python has no negative zero int.
  return { int: value === 0 ? 0 : value };
}

// Builds a Python float value.
export function pyFloat(value: number): PyFloat {
  return { float: value };
}

// True when `value` is a Python int.
export function isPyInt(value: PyValue | undefined): value is PyInt {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'int' in value;
}

// True when `value` is a Python float.
export function isPyFloat(value: PyValue | undefined): value is PyFloat {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'float' in value;
}

// The numeric value of an int or float, else null (Python bools are not treated as numbers here).
export function pyNumber(value: PyValue | undefined): number | null {
  if (isPyInt(value)) {
    return value.int;
  }
  if (isPyFloat(value)) {
    return value.float;
  }
  return null;
}

/** A Python number (int or float). */
export type PyNumber = PyInt | PyFloat;

// Wraps a JS number as a Python int when integral, else as a float (JSON numbers lose the type).
export function pyNumberFromJson(value: number): PyNumber {
  return Number.isInteger(value) ? pyInt(value) : pyFloat(value);
}

function numberOf(value: PyNumber): number {
  return 'int' in value ? value.int : value.float;
}

// Python `min(a, b)`: the first argument on ties (so the result keeps that argument's type).
export function pyMin(a: PyNumber, b: PyNumber): PyNumber {
  return numberOf(b) < numberOf(a) ? b : a;
}

// Python `max(a, b)`: the first argument on ties (so `max(0, 0.0)` is the int 0).
export function pyMax(a: PyNumber, b: PyNumber): PyNumber {
  return numberOf(b) > numberOf(a) ? b : a;
}

// Python true division `a / b`: always a float.
export function pyDivide(a: PyNumber, b: PyNumber): PyFloat {
  return pyFloat(numberOf(a) / numberOf(b));
}
