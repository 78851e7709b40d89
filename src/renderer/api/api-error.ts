// The one error type the renderer sees from the api client.
import { ERROR_CODES, type ErrorCode } from '../../shared/errors';

/** Failures that happen in the client itself, before or around the service. */
export const CLIENT_ERROR_CODES = ['NETWORK', 'UNAUTHORIZED', 'BAD_RESPONSE'] as const;
/** One of {@link CLIENT_ERROR_CODES}. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];
/** Service error codes plus the client's own. */
export type ApiErrorCode = ErrorCode | ClientErrorCode;

/** A failed call: the service's code and message, and the offending payload field if known. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    /** Payload field the error is about (from `details.field` / `details.path`), else null. */
    readonly field: string | null = null,
    readonly details?: Record<string, unknown>,
    /** What the user should do about it (one sentence), when the service said. */
    readonly fix?: string,
  ) {
    super(message);
  }
}

const KNOWN: ReadonlySet<string> = new Set<string>([...ERROR_CODES, ...CLIENT_ERROR_CODES]);

// True when `code` is a known error code.
export function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === 'string' && KNOWN.has(code);
}

// An ApiError from the error half of a wire Result (unknown codes become INTERNAL).
export function apiErrorFromWire(error: {
  code: unknown;
  message: unknown;
  details?: unknown;
  fix?: unknown;
}): ApiError {
  const details =
    typeof error.details === 'object' && error.details !== null && !Array.isArray(error.details)
      ? (error.details as Record<string, unknown>)
      : undefined;
  const fieldValue = details?.field ?? details?.path;
  const field = typeof fieldValue === 'string' ? fieldValue : null;
  const message = typeof error.message === 'string' ? error.message : 'The call failed.';
  return new ApiError(
    isApiErrorCode(error.code) ? error.code : 'INTERNAL',
    message,
    field,
    details,
    typeof error.fix === 'string' && error.fix !== '' ? error.fix : undefined,
  );
}

// A readable one-line message for any thrown value.
export function errorMessage(e: unknown): string {
  if (e instanceof ApiError) {
    return e.field ? `${e.message} (${e.field})` : e.message;
  }
  if (e instanceof Error) {
    return e.message;
  }
  return String(e);
}

/** An error as the pages show it (the ErrorNotice's shape): an ApiError's code, message and the
 * service's fix; anything else as INTERNAL with its message. */
export function shownError(e: unknown): { code: string; message: string; fix: string | null } {
  if (e instanceof ApiError) {
    return { code: e.code, message: e.message, fix: e.fix ?? null };
  }
  return { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}
