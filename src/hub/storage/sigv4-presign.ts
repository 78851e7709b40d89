// Presigned S3 URLs: AWS Signature Version 4 in the query string ("Authenticating Requests:
// Using Query Parameters", AWS S3 API reference), computed with node:crypto. The project's
// upload client signs headers through the AWS SDK; presigning needs only the credentials, so the
// hub signs URLs here rather than adding the SDK's presigner package. A PUT signs its exact
// Content-Length, and its Content-MD5 when given, so the store itself refuses a body of another
// size or other bytes.
import { createHash, createHmac } from 'node:crypto';

/** Credentials that sign a URL. */
export type SigningCredentials = {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
};

/** What to presign. */
export type PresignInput = {
  method: 'GET' | 'PUT';
  /** `https://host[:port]` of the bucket's server, without a path. */
  origin: string;
  /** The request path, not yet encoded: `/bucket/key` (path style) or `/key` (virtual host). */
  path: string;
  region: string;
  credentials: SigningCredentials;
  expiresInSec: number;
  /** PUT: the body's exact size, signed as the content-length header. */
  contentLength?: number;
  /** PUT: the body's MD5, base64, signed as the content-md5 header (S3 refuses another body). */
  contentMd5?: string;
  /** The signing time (default now). */
  now?: Date;
};

// RFC 3986 encoding as SigV4 wants it: only A-Z a-z 0-9 - _ . ~ stay as they are
function encode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: Buffer | string, text: string) =>
  createHmac('sha256', key).update(text).digest();

/** A presigned URL for one request. */
export function presignS3Url(input: PresignInput): string {
  const now = input.now ?? new Date();
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, ''); // YYYYMMDDTHHMMSSZ
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/s3/aws4_request`;
  const host = new URL(input.origin).host; // with the port unless it is the scheme's default
  const headers: [string, string][] = [['host', host]];
  if (input.contentLength !== undefined) {
    headers.push(['content-length', String(input.contentLength)]);
  }
  if (input.contentMd5 !== undefined) {
    headers.push(['content-md5', input.contentMd5]);
  }
  headers.sort(([a], [b]) => (a < b ? -1 : 1));
  const signedHeaders = headers.map(([k]) => k).join(';');
  const query: [string, string][] = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${input.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(input.expiresInSec)],
    ['X-Amz-SignedHeaders', signedHeaders],
  ];
  if (input.credentials.sessionToken) {
    query.push(['X-Amz-Security-Token', input.credentials.sessionToken]);
  }
  const canonicalQuery = query
    .map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalPath = input.path.split('/').map(encode).join('/');
  const canonicalRequest = [
    input.method,
    canonicalPath,
    canonicalQuery,
    headers.map(([k, v]) => `${k}:${v}\n`).join(''),
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, day), input.region), 's3'),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  return `${input.origin}${canonicalPath}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}
