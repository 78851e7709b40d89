// Multipart arithmetic: part sizes within S3's limits, the part list of an object, and the ETag
// S3 gives a multipart object (MD5 of the concatenated part MD5s, "-N").
import { createHash } from 'node:crypto';
import { AppError } from '../../shared/errors';

/** S3's smallest part (all but the last part must be at least this big). */
export const MIN_PART_SIZE_BYTES = 5 * 1024 * 1024;
/** S3's largest part. */
export const MAX_PART_SIZE_BYTES = 5 * 1024 * 1024 * 1024;
/** S3's part-count limit. */
export const MAX_PARTS = 10_000;
/** Default part size: 8 MiB parts keep memory at concurrency × 8 MiB. */
export const DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;

/** One part of an object. */
export type PartPlan = {
  /** 1-based. */
  partNumber: number;
  offsetBytes: number;
  sizeBytes: number;
};

// The part size for an object: the requested size, grown (in MiB steps) to stay within 10,000 parts.
export function choosePartSize(objectSizeBytes: number, requestedBytes: number): number {
  if (!Number.isInteger(requestedBytes) || requestedBytes < MIN_PART_SIZE_BYTES) {
    throw new AppError(
      'UPLOAD_CONFIG',
      `Part size ${requestedBytes} bytes is below S3's minimum of ${MIN_PART_SIZE_BYTES} (5 MiB).`,
    );
  }
  const mib = 1024 * 1024;
  const needed = Math.ceil(objectSizeBytes / MAX_PARTS / mib) * mib;
  const size = Math.max(requestedBytes, needed);
  if (size > MAX_PART_SIZE_BYTES) {
    throw new AppError(
      'UPLOAD_CONFIG',
      `An object of ${objectSizeBytes} bytes exceeds S3's limit of ${MAX_PARTS} parts of 5 GiB.`,
    );
  }
  return size;
}

// Splits an object into parts of `partSizeBytes` (the last one shorter); one part when it fits.
export function planParts(objectSizeBytes: number, partSizeBytes: number): PartPlan[] {
  const parts: PartPlan[] = [];
  let offset = 0;
  let partNumber = 1;
  do {
    const size = Math.min(partSizeBytes, objectSizeBytes - offset);
    parts.push({ partNumber, offsetBytes: offset, sizeBytes: size });
    offset += size;
    partNumber += 1;
  } while (offset < objectSizeBytes);
  return parts;
}

/** Whether an object goes up in one PUT (at most one part) or as a multipart upload. */
export function isSinglePut(objectSizeBytes: number, partSizeBytes: number): boolean {
  return objectSizeBytes <= partSizeBytes;
}

// An ETag without quotes, lower-case (servers differ in quoting).
export function normalizeEtag(etag: string | undefined | null): string {
  return (etag ?? '').replace(/^W\//, '').replace(/"/g, '').toLowerCase();
}

// The ETag S3 reports for a multipart object made of parts with these MD5s (hex, in part order).
export function multipartEtag(partMd5Hex: readonly string[]): string {
  const hash = createHash('md5');
  for (const md5 of partMd5Hex) {
    hash.update(Buffer.from(md5, 'hex'));
  }
  return `${hash.digest('hex')}-${partMd5Hex.length}`;
}
