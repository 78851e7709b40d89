// Shared pieces of the upload tests: an independent S3 client (the raw SDK, not our engine) to
// check what Swift really stores, buckets, blobs and targets, and an upload process to kill.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  CreateBucketCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import type { UploadTarget } from '../../../src/services/upload/target';
import { REPO_ROOT } from '../../helpers/paths';
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

const UPLOAD_RUNNER = path.join(import.meta.dirname, 'fixtures', 'upload-runner.ts');

/**
 * Runs upload row `uploadId` of the library in `libraryDir` in a child process
 * (fixtures/upload-runner.ts, 5 MiB parts, one at a time, `blobFile` as extra/blob.bin) and kills
 * it with SIGKILL when the progress of its `killAtPart`-th part of the blob arrives. Resolves with
 * how the child ended (its signal, else its exit code) and its stderr.
 */
export async function uploadUntilKilled(
  swift: Swift,
  libraryDir: string,
  uploadId: number,
  blobFile: string,
  killAtPart: number,
): Promise<{ exit: NodeJS.Signals | number | null; stderr: string }> {
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin', 'run-ts.mjs'),
      UPLOAD_RUNNER,
      libraryDir,
      String(uploadId),
      blobFile,
      String(PART_5_MIB),
    ],
    { env: { ...process.env, ...swift.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let buffered = '';
  let blobParts = 0;
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code)),
  );
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const e = JSON.parse(line) as { detail?: unknown };
      if (
        typeof e.detail === 'string' &&
        e.detail.startsWith('part ') &&
        e.detail.endsWith('extra/blob.bin')
      ) {
        blobParts += 1;
        if (blobParts === killAtPart) {
          child.kill('SIGKILL');
        }
      }
    }
  });
  return { exit: await exited, stderr };
}
