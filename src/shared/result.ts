// Result envelope: what every contract call returns instead of throwing across a boundary.
import type { ErrorCode } from './errors';

/** Serialisable error half of a {@link Result}. */
export type ResultError = {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  /** What the user should do about it (one sentence), when there is something to do. */
  fix?: string;
};

/** `{ ok: true, value }` or `{ ok: false, error }`. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ResultError };

/** Wraps a value as a successful result. */
export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** Wraps an error as a failed result. */
export function err<T = never>(error: ResultError): Result<T> {
  return { ok: false, error };
}
