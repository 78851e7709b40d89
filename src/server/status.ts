// HTTP status of a Result envelope: the body is always the envelope; the status mirrors its code
// so logs, curl and proxies see failures too.
import type { ErrorCode } from '../shared/errors';
import type { Result } from '../shared/result';

/** Status per error code; codes not listed (infrastructure failures) answer 500. */
export const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_PAYLOAD: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  UNKNOWN_METHOD: 404,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IMPORT_DUPLICATE: 409,
  EXPORT_TARGET_EXISTS: 409,
  EXPORT_TARGET_BUSY: 409,
  INVALID_STATE: 409,
  REVIEW_LOCKED: 409,
  PII_UNRESOLVED: 409,
  RECORDING_ACTIVE: 409,
  DISK_FULL: 507,
  PAYLOAD_TOO_LARGE: 413,
  // well-formed requests the services refuse on their content
  USAGE: 422,
  EDIT_INVALID: 422,
  PATH_INVALID: 422,
  UPLOAD_CONFIG: 422,
  PULL_INVALID: 422,
  // the library cannot take writes right now (another process holds the lock past the wait, or
  // this process stopped writing because its database file was replaced): try again / restart
  DB_BUSY: 503,
  DB_REPLACED: 503,
  // the library's folder or disk is read-only: reads work, writes cannot until it is writable
  LIBRARY_READ_ONLY: 409,
  IMPORT_INVALID: 422,
  EXPORT_INVALID: 422,
  LEGACY_ENCRYPTED_UNSUPPORTED: 422,
  HOTKEY_INVALID: 422,
  EXCLUSION_RULE_INVALID: 422,
  IMAGE_INVALID: 422,
  VIDEO_UNREADABLE: 422,
  // replay refusals: the settings' display is off, unsafe or busy, or nothing to replay
  REPLAY_NO_DISPLAY: 422,
  REPLAY_LIVE_DISPLAY: 422,
  REPLAY_NOTHING: 422,
  REPLAY_DISPLAY_BUSY: 409,
  INTERNAL: 500,
};

// The HTTP status for a Result: 200 when ok, else by error code (default 500).
export function statusForResult(result: Result<unknown>): number {
  return result.ok ? 200 : (STATUS_BY_CODE[result.error.code] ?? 500);
}
