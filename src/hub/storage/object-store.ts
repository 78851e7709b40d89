// The hub's object store (docs/team-mode.md §9): where submission bundles live. One interface,
// two implementations: a folder inside the hub's data folder (the embedded default) and any
// S3-compatible bucket. Video bytes go between the app and the store through presigned URLs,
// never through the hub: S3 signs them itself (SigV4 query signing); the folder's URLs are
// signed by the hub (signed-url.ts) and served by the hub's HTTP layer.
import { AppError } from '../../shared/errors';

/** What the store knows about one object. */
export type HubObjectInfo = {
  key: string;
  sizeBytes: number;
  /** The object's SHA-256 (hex) when the store knows it without reading the object back (the
   * folder store hashes what it writes); verification then reads nothing. */
  sha256?: string;
  /** The object's MD5 (hex) when the store gives it: an S3 ETag that is a plain MD5 (a single
   * PUT; not a multipart upload's, nor an encrypting store's opaque one). */
  md5?: string;
};

/** A request the app makes straight to the store. */
export type PresignedRequest = {
  method: 'PUT' | 'GET';
  url: string;
  /** Headers the request must carry as given (they are part of the signature). */
  headers: Record<string, string>;
  expiresAtMs: number;
};

/** Options of a presigned upload. */
export type PresignPutOptions = {
  /** The object's exact size in bytes (from the manifest): the store refuses any other. */
  sizeBytes: number;
  /** The body's MD5 (hex, from the manifest). S3: signed as Content-MD5, so the store refuses
   * any other body (BadDigest) and its ETag is this MD5; the folder store ignores it (it takes
   * the SHA-256 of what it writes). */
  md5Hex?: string;
  /** How long the URL works, in seconds (1 s to 7 days; default 15 minutes). */
  expiresInSec?: number;
};

/** Options of a presigned download. */
export type PresignGetOptions = {
  /** How long the URL works, in seconds (1 s to 7 days; default 15 minutes). */
  expiresInSec?: number;
};

/** Options of {@link HubObjectStore.put}. */
export type PutOptions = {
  /** The exact size the body must have (INTEGRITY_FAILED otherwise; nothing is kept). */
  sizeBytes?: number;
};

/** The default lifetime of a presigned URL (s). */
export const DEFAULT_PRESIGN_SEC = 15 * 60;
/** The longest a presigned URL may live (s): SigV4's own limit, 7 days. */
export const MAX_PRESIGN_SEC = 7 * 24 * 3600;

/**
 * The hub's object store. Errors are AppErrors: STORAGE_FULL (disk or quota), STORAGE_UNREACHABLE
 * (network, credentials, bucket), INTEGRITY_FAILED (a size or SHA-256 that does not match),
 * PATH_INVALID (a key that could leave the store), INVALID_STATE (no URL base for the folder).
 */
export interface HubObjectStore {
  readonly kind: 'folder' | 's3';
  /** Where it points, for messages (`folder /data/objects`, `s3://b/p at http://…`). */
  readonly description: string;
  /** Writes a whole object (atomically: readers see the old object or the new one). */
  put(
    key: string,
    body: Buffer | AsyncIterable<Uint8Array>,
    options?: PutOptions,
  ): Promise<HubObjectInfo>;
  /** The object's bytes, or NOT_FOUND. */
  get(key: string): Promise<AsyncIterable<Uint8Array>>;
  /** Size of the object, or null when there is none. */
  stat(key: string): Promise<HubObjectInfo | null>;
  /** Removes the object (no error if there is none). */
  delete(key: string): Promise<void>;
  /** Every object under a key prefix. */
  list(prefix: string): AsyncIterable<HubObjectInfo>;
  /** A URL the app PUTs exactly `sizeBytes` bytes to. */
  presignPut(key: string, options: PresignPutOptions): Promise<PresignedRequest>;
  /** A URL the app GETs the object from. */
  presignGet(key: string, options?: PresignGetOptions): Promise<PresignedRequest>;
  /** Releases connections. */
  close(): Promise<void>;
}

// no backslash (a separator on Windows), NUL or other control character in a key
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const BAD_KEY_CHAR_RE = /[\\\u0000-\u001f\u007f]/;

/** Throws PATH_INVALID unless `key` is a store key that cannot leave the store: `/`-separated
 * non-empty segments, none `.` or `..`, no backslash or control character, at most 1024
 * characters (255 per segment). Manifest paths (isSafeRelativePath) are such keys. */
export function checkObjectKey(key: string): string {
  const ok =
    typeof key === 'string' &&
    key.length > 0 &&
    key.length <= 1024 &&
    !BAD_KEY_CHAR_RE.test(key) &&
    key.split('/').every((s) => s.length > 0 && s.length <= 255 && s !== '.' && s !== '..');
  if (!ok) {
    throw new AppError(
      'PATH_INVALID',
      `"${String(key).slice(0, 200)}" is not a storage key: use /-separated names of letters, ` +
        'digits, ".", "_" and "-", none empty, "." or "..", nor starting with "." or "-"',
      { key: String(key).slice(0, 200) },
      'Use the keys the hub hands out (SUBMISSION/vN/PATH from the manifest).',
    );
  }
  return key;
}

/** Throws PATH_INVALID unless `prefix` is '' or a valid key. */
export function checkObjectPrefix(prefix: string): string {
  return prefix === '' ? prefix : checkObjectKey(prefix.replace(/\/$/, ''));
}

/** Checks a presigned URL's lifetime (s). */
export function checkExpiresIn(expiresInSec: number | undefined): number {
  const sec = expiresInSec ?? DEFAULT_PRESIGN_SEC;
  if (!Number.isInteger(sec) || sec < 1 || sec > MAX_PRESIGN_SEC) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `a presigned URL must last 1 s to 7 days (got ${sec} s)`,
      { expiresInSec: sec },
      'Give the lifetime in whole seconds, at most 604800.',
    );
  }
  return sec;
}

/** Checks an upload's declared size. */
export function checkSize(sizeBytes: number): number {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `an object size must be a whole number of bytes (got ${sizeBytes})`,
      { sizeBytes },
      'Give the size from the manifest.',
    );
  }
  return sizeBytes;
}
