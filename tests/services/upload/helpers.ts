// Shared pieces of the upload tests: an independent S3 client (the raw SDK, not our engine) to
// check what Swift really stores, buckets, blobs and targets.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { UploadTarget } from '../../../src/services/upload/target';
import type { Swift } from '../../helpers/swift';

/** An SDK client straight at Swift, for independent checks. */
export function rawClient(swift: Swift): S3Client {
  return new S3Client({
    endpoint: swift.endpoint,
    region: swift.region,
    forcePathStyle: true,
    credentials: swift.credentials,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Creates a bucket. */
export async function createBucket(client: S3Client, bucket: string): Promise<void> {
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
}

/** Every object under a prefix: key → { size, lastModified }. */
export async function listObjects(
  client: S3Client,
  bucket: string,
  prefix: string,
): Promise<Map<string, { size: number; etag: string }>> {
  const out = new Map<string, { size: number; etag: string }>();
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const o of page.Contents ?? []) {
      out.set(o.Key!, { size: o.Size ?? 0, etag: (o.ETag ?? '').replace(/"/g, '') });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return out;
}

/** SHA-256 (hex) of an object's bytes as Swift returns them. */
export async function objectSha256(client: S3Client, bucket: string, key: string): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const hash = createHash('sha256');
  for await (const chunk of out.Body as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
  }
  return hash.digest('hex');
}

/** The bytes of an object. */
export async function objectText(client: S3Client, bucket: string, key: string): Promise<string> {
  const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return await out.Body!.transformToString();
}

/** Writes a file of random bytes. */
export function writeBlob(file: string, sizeBytes: number): void {
  fs.writeFileSync(file, randomBytes(sizeBytes));
}

/** A path-style target at Swift. */
export function swiftTarget(swift: Swift, bucket: string, prefix: string): UploadTarget {
  return { endpoint: swift.endpoint, region: swift.region, bucket, prefix, forcePathStyle: true };
}

/** 5 MiB, S3's smallest part. */
export const PART_5_MIB = 5 * 1024 * 1024;
