// Assertions that narrow types and fail loudly.

/** Throws when `condition` is false; use for invariants, not for user input. */
export function strictAssert(condition: unknown, message: string): asserts condition {
  if (!condition) {
    throw new Error(`Assertion failed: ${message}`);
  }
}

/** Exhaustiveness check at the end of a switch over a union. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
