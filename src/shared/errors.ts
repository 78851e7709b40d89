// Coded application errors: every failure that crosses a boundary carries a stable code.

/** Stable error codes shared by every host (CLI exit mapping, HTTP, IPC). */
export const ERROR_CODES = [
  'UNKNOWN_METHOD',
  'INVALID_PAYLOAD',
  'INTERNAL',
  'NOT_FOUND',
  // library lifecycle (src/services/recordings.ts): deleting a recording whose recorder is still
  // running; the disk is full (nothing could be written, not even the space-freeing delete)
  'RECORDING_ACTIVE',
  'DISK_FULL',
  'USAGE',
  'LIBRARY_UNWRITABLE',
  // the library is on a read-only file system or folder: commands that only read still work
  // (src/services/library/library.ts), the others are refused
  'LIBRARY_READ_ONLY',
  'DB_FROM_FUTURE',
  'DB_CORRUPT',
  'IMPORT_INVALID',
  'IMPORT_DUPLICATE',
  'LEGACY_ENCRYPTED_UNSUPPORTED',
  'VIDEO_UNREADABLE',
  // library database faults (src/store, src/services/library): locked by another writer past
  // the wait; its file or WAL deleted/replaced under a running process; missing or emptied while
  // the library holds recordings; no library in the folder a command was given
  'DB_BUSY',
  'DB_REPLACED',
  'DB_MISSING',
  'LIBRARY_NOT_FOUND',
  // operating-system failures classified by src/shared/system-error.ts
  'PERMISSION_DENIED',
  'READ_ONLY_FILESYSTEM',
  'PATH_INVALID',
  'IO_ERROR',
  'FFMPEG_NOT_FOUND',
  'FFMPEG_FAILED',
  // one-shot commands of the infrastructure layer (src/infra/run-command.ts): it could not start,
  // it exited with a failure status, it outlived its time limit and was killed
  'COMMAND_NOT_FOUND',
  'COMMAND_FAILED',
  'COMMAND_TIMEOUT',
  // the recorder stopped and saved because the library's disk is nearly full (before ffmpeg
  // would fail on a full disk; src/services/recording/disk-watch.ts)
  'DISK_SPACE_LOW',
  // exports
  'EXPORT_INVALID',
  'EXPORT_TARGET_EXISTS',
  // another export holds the output folder's lock (src/services/export/export-lock.ts) past the wait
  'EXPORT_TARGET_BUSY',
  // export output folder faults (src/services/export/export-target.ts): a file in the path or a
  // pseudo file system (/proc); no write permission or read-only; damaged recordings in a run
  'EXPORT_TARGET_INVALID',
  'EXPORT_TARGET_UNWRITABLE',
  'EXPORT_DAMAGED',
  // integrity of library files leaving the library (export, upload): the video is gone, or its
  // bytes no longer match the SHA-256 stored when it entered the library
  'VIDEO_MISSING',
  'INTEGRITY_FAILED',
  // CoT synthesis (src/pipeline/cot, docs/cot.md): the model's answer cannot be read after a retry
  // (no ## sections, not JSON); no API key in the environment for the model endpoint
  'COT_ANSWER_INVALID',
  'COT_API_KEY_MISSING',
  // lifecycle objects called in the wrong state (src/recorder/screen: "call stop() before start()")
  'INVALID_STATE',
  // recording on an operating system without capture parts (src/recorder/platform has Linux,
  // macOS and Windows)
  'PLATFORM_UNSUPPORTED',
  // a Linux Wayland session: X11 capture sees only XWayland there (src/recorder/platform/wayland.ts)
  'WAYLAND_SESSION',
  // accessibility capture (src/axtree, src/recorder/accessibility)
  'ACCESSIBILITY_UNAVAILABLE',
  'ACCESSIBILITY_TIMEOUT',
  'HELPER_START_TIMEOUT',
  'HELPER_PROTOCOL_ERROR',
  'HELPER_EXITED',
  'HELPER_REQUEST_FAILED',
  // a helper without the method asked for (docs/helper-protocol.md §4)
  'HELPER_UNKNOWN_METHOD',
  // active-window timeline (src/recorder/windows)
  'ACTIVE_WINDOW_UNAVAILABLE',
  // global input hook (src/recorder/input)
  'INPUT_HOOK_UNAVAILABLE',
  'INPUT_HOOK_FAILED',
  'HOTKEY_INVALID',
  // exclusion rules at capture (src/recorder/privacy): an empty name or a bad title regex
  'EXCLUSION_RULE_INVALID',
  // frame decoding and images (src/pipeline/media)
  'FFMPEG_START_TIMEOUT',
  'ABORTED',
  'IMAGE_INVALID',
  // uploads and pull (src/services/upload): target/config, credentials refused, no bucket,
  // transient network/server failure (retried), permanent refusal, checksum/size mismatch after
  // upload, an upload another process is running, an invalid submission, no secret storage
  'UPLOAD_CONFIG',
  'UPLOAD_AUTH',
  'UPLOAD_BUCKET_NOT_FOUND',
  'UPLOAD_UNREACHABLE',
  'UPLOAD_REJECTED',
  'UPLOAD_VERIFY_FAILED',
  'UPLOAD_BUSY',
  'PULL_INVALID',
  'SECRET_STORAGE_UNAVAILABLE',
  // review/edit services: an edit that does not fit the recording's current steps
  'EDIT_INVALID',
  // an edit of an accepted recording without `force` (editing it returns it to review)
  'REVIEW_LOCKED',
  // export/upload of a recording with unresolved PII findings of a blocking kind (card, iban,
  // secret) without `allowPii` (src/services/privacy/policy.ts)
  'PII_UNRESOLVED',
  // HTTP binding (src/server): missing/wrong token, Host/Origin refused, verb, body size
  'UNAUTHORIZED',
  'FORBIDDEN',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  // replay (docs/replay.md §5)
  'REPLAY_NO_DISPLAY',
  'REPLAY_LIVE_DISPLAY',
  // another replay drives the display (one per display: src/replay/display-lock.ts)
  'REPLAY_DISPLAY_BUSY',
  'REPLAY_DRIVER_FAILED',
  'REPLAY_UNSUPPORTED',
  'REPLAY_NOTHING',
  // team hub (src/hub, docs/team-mode.md): another process holds the embedded hub's data folder;
  // the hub's PostgreSQL cannot be reached; an account name already taken; a change that would
  // leave the hub without an admin
  'HUB_DATA_LOCKED',
  'HUB_DB_UNREACHABLE',
  'HUB_USER_EXISTS',
  'HUB_LAST_ADMIN',
  // the hub's object store (src/hub/storage): the folder's disk or the bucket's quota is full;
  // the store cannot be reached
  'STORAGE_FULL',
  'STORAGE_UNREACHABLE',
  // the review queue: a verdict or release by someone not holding the submission's live lease
  'HUB_LEASE_NOT_HELD',
  // the task hub: the person already holds as many task claims as the hub allows one person;
  // a task file with bad lines imported without confirming (nothing was written)
  'HUB_TASK_CLAIM_LIMIT',
  'HUB_TASK_FILE_INVALID',
  // hub HTTP (src/hub/http): too many failed sign-ins for an account or from an address (details
  // say when to retry); a session signed in with a one-time password that must change it first
  'RATE_LIMITED',
  'PASSWORD_CHANGE_REQUIRED',
  // the team client (src/services/team): the hub cannot be reached, or its answer is not the
  // hub's; no sign-in stored beside this library
  'HUB_UNREACHABLE',
  'HUB_NOT_SIGNED_IN',
  // OpenAI-compatible model endpoints (src/infra/openai, docs/cot.md): the key is refused (401/
  // 403); no such model or base URL (404); still rate-limited after the retries (429); the
  // server failing (5xx) or unreachable; no answer within the time limit; an answer that is not
  // a chat completion; any other refusal (400, 413, 422); the run's cost limit reached
  'MODEL_AUTH',
  'MODEL_NOT_FOUND',
  'MODEL_RATE_LIMITED',
  'MODEL_SERVER_ERROR',
  'MODEL_UNREACHABLE',
  'MODEL_TIMEOUT',
  'MODEL_BAD_RESPONSE',
  'MODEL_REQUEST_REJECTED',
  'MODEL_COST_LIMIT',
] as const;

/** One of {@link ERROR_CODES}. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Error with a stable code, optional structured details (safe to serialise) and, where the
 * user can do something about it, a one-line `fix` saying what to do. */
export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** What the user should do about it, as one imperative sentence. */
    readonly fix?: string,
  ) {
    super(message);
  }
}

/** True when `e` is an {@link AppError} (optionally with the given code). */
export function isAppError(e: unknown, code?: ErrorCode): e is AppError {
  return e instanceof AppError && (code === undefined || e.code === code);
}
