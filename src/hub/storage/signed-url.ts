// Signed, expiring object URLs of the folder store (docs/team-mode.md §9): the embedded hub
// serves the objects of its data folder itself, so the app's upload and download URLs carry an
// HMAC-SHA256 (per-hub secret) over the method, the key, the expiry and, for an upload, the
// exact size. Nothing else is accepted: another key, method, size or a later time fails.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { checkObjectKey, checkSize } from './object-store';

/** The path below the hub's URL that serves the folder store's objects. */
export const OBJECT_URL_PATH = '/objects/';
/** Bytes of a per-hub signing secret. */
export const SIGNING_SECRET_BYTES = 32;

/** What a signed URL allows. */
export type SignedObjectGrant = {
  method: 'PUT' | 'GET';
  key: string;
  /** PUT: the exact number of bytes the body must have. */
  sizeBytes?: number;
  expiresAtMs: number;
};

/** A new random signing secret (keep it in the hub's data folder, mode 0600). */
export function newSigningSecret(): Buffer {
  return randomBytes(SIGNING_SECRET_BYTES);
}

function mac(secret: Buffer, grant: SignedObjectGrant): string {
  // one field per line: no field can run into the next (keys hold no newline)
  const text = [
    'cua-annotator-object-v1',
    grant.method,
    grant.key,
    grant.sizeBytes === undefined ? '-' : String(grant.sizeBytes),
    String(grant.expiresAtMs),
  ].join('\n');
  return createHmac('sha256', secret).update(text).digest('base64url');
}

/** The path and query of a signed object URL (to put after the hub's base URL). */
export function signObjectPath(secret: Buffer, grant: SignedObjectGrant): string {
  checkObjectKey(grant.key);
  if (grant.method === 'PUT') {
    checkSize(grant.sizeBytes ?? -1);
  }
  const q = new URLSearchParams({ m: grant.method, e: String(grant.expiresAtMs) });
  if (grant.sizeBytes !== undefined) {
    q.set('n', String(grant.sizeBytes));
  }
  q.set('s', mac(secret, grant));
  const path = grant.key.split('/').map(encodeURIComponent).join('/');
  return `${OBJECT_URL_PATH}${path}?${q.toString()}`;
}

function refused(why: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `object URL refused: ${why}`,
    undefined,
    'Ask the hub for a new upload or download URL (they expire).',
  );
}

/** Checks a request for a signed object URL (method, path with query, now) and returns what it
 * allows; FORBIDDEN when the signature, method or expiry does not hold. */
export function verifyObjectRequest(
  secret: Buffer,
  request: { method: string; pathAndQuery: string },
  nowMs: number = Date.now(),
): SignedObjectGrant {
  let url: URL;
  try {
    url = new URL(request.pathAndQuery, 'http://hub.invalid');
  } catch {
    throw refused('unreadable URL');
  }
  if (!url.pathname.startsWith(OBJECT_URL_PATH)) {
    throw refused('not an object URL');
  }
  let key: string;
  try {
    key = url.pathname.slice(OBJECT_URL_PATH.length).split('/').map(decodeURIComponent).join('/');
    checkObjectKey(key);
  } catch {
    throw refused('not a storage key');
  }
  const method = url.searchParams.get('m');
  const expires = Number(url.searchParams.get('e'));
  const sizeText = url.searchParams.get('n');
  const signature = url.searchParams.get('s') ?? '';
  if ((method !== 'PUT' && method !== 'GET') || method !== request.method.toUpperCase()) {
    throw refused(`signed for ${String(method)}, used with ${request.method}`);
  }
  if (!Number.isSafeInteger(expires)) {
    throw refused('no expiry');
  }
  const sizeBytes = sizeText === null ? undefined : Number(sizeText);
  if (method === 'PUT' && (sizeBytes === undefined || !Number.isSafeInteger(sizeBytes))) {
    throw refused('an upload URL without its size');
  }
  const grant: SignedObjectGrant = {
    method,
    key,
    expiresAtMs: expires,
    ...(sizeBytes === undefined ? {} : { sizeBytes }),
  };
  const want = Buffer.from(mac(secret, grant));
  const got = Buffer.from(signature);
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    throw refused('bad signature');
  }
  if (nowMs > expires) {
    throw refused(`expired at ${new Date(expires).toISOString()}`);
  }
  return grant;
}
