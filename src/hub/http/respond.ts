// The hub's answers: security headers on every response and the Result envelope with an HTTP
// status that mirrors its error code (logs, curl and proxies see failures too).
import type http from 'node:http';
import type { ErrorCode } from '../../shared/errors';
import type { Result, ResultError } from '../../shared/result';
import { setSecurityHeaders } from '../../infra/http/security-headers';

/** Status per error code; codes not listed answer 500. */
export const HUB_STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_PAYLOAD: 400,
  USAGE: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  PASSWORD_CHANGE_REQUIRED: 403,
  NOT_FOUND: 404,
  UNKNOWN_METHOD: 404,
  METHOD_NOT_ALLOWED: 405,
  HUB_USER_EXISTS: 409,
  HUB_LAST_ADMIN: 409,
  INVALID_STATE: 409,
  HUB_LEASE_NOT_HELD: 409,
  HUB_TASK_CLAIM_LIMIT: 409,
  HUB_TASK_FILE_INVALID: 422,
  PULL_INVALID: 400,
  PATH_INVALID: 400,
  INTEGRITY_FAILED: 422,
  STORAGE_FULL: 507,
  STORAGE_UNREACHABLE: 503,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  HUB_DB_UNREACHABLE: 503,
  INTERNAL: 500,
};

/** The HTTP status of a Result. */
export function hubStatus(result: Result<unknown>): number {
  return result.ok ? 200 : (HUB_STATUS_BY_CODE[result.error.code] ?? 500);
}

/** Headers every answer carries (the same as serve's: the hub serves the same renderer, with the
 * same Content-Security-Policy); deliberately no CORS headers. */
export function setHubSecurityHeaders(res: http.ServerResponse, https: boolean): void {
  setSecurityHeaders(res, { https });
}

/** Sends a Result envelope with its status. */
export function sendResult(
  res: http.ServerResponse,
  result: Result<unknown>,
  headers: Record<string, string | string[]> = {},
): void {
  const text = JSON.stringify(result);
  res.writeHead(hubStatus(result), {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/** Sends `{ ok: false, error }` with the status of its code. */
export function sendHubError(
  res: http.ServerResponse,
  code: ErrorCode,
  message: string,
  extra: { details?: Record<string, unknown>; fix?: string } = {},
  headers: Record<string, string | string[]> = {},
): void {
  const error: ResultError = { code, message, ...extra };
  sendResult(res, { ok: false, error }, headers);
}
