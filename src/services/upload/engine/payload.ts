// Payload digests: the bytes of one request, read from a file, with the SHA-256 every request
// carries in its signature (x-amz-content-sha256) and, where asked, the MD5 sent as Content-MD5
// that the returned ETag must equal; and the Content-Type an object is stored with.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../../shared/errors';
import type { Payload } from '../object-store';

/** A payload with its SHA-256, and its MD5 (hex) when it was asked for, else null. */
export type Digested = Payload & { md5Hex: string | null };

const CONTENT_TYPES: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.png': 'image/png',
};

/** Content-Type of an object key by its extension (application/octet-stream if unknown). */
export function contentTypeOf(key: string): string {
  return CONTENT_TYPES[path.extname(key).toLowerCase()] ?? 'application/octet-stream';
}

/** A payload with its SHA-256 and MD5 (Content-MD5 and the expected ETag). */
export function payloadWithMd5(body: Buffer): Payload & { md5Base64: string; md5Hex: string } {
  const md5 = createHash('md5').update(body).digest();
  return {
    body,
    sha256Hex: createHash('sha256').update(body).digest('hex'),
    md5Base64: md5.toString('base64'),
    md5Hex: md5.toString('hex'),
  };
}

/** A payload with its SHA-256, and with its MD5 only when `withMd5` (MD5 costs throughput). */
export function digests(body: Buffer, withMd5: boolean): Digested {
  if (withMd5) {
    return payloadWithMd5(body);
  }
  return { body, sha256Hex: createHash('sha256').update(body).digest('hex'), md5Hex: null };
}

/** `size` bytes of `file` from `offset`; a file that became shorter is an error, not zeros. */
export async function readRange(file: string, offset: number, size: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(size);
    let done = 0;
    while (done < size) {
      const { bytesRead } = await handle.read(buf, done, size - done, offset + done);
      if (bytesRead === 0) {
        throw new AppError(
          'UPLOAD_VERIFY_FAILED',
          `${file} became shorter while uploading; run the upload again.`,
        );
      }
      done += bytesRead;
    }
    return buf;
  } finally {
    await handle.close();
  }
}
