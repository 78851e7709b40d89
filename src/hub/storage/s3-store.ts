// The S3 object store (`--storage s3://bucket/prefix [--endpoint URL] [--path-style]`,
// docs/team-mode.md §9): reads, writes and listings through the project's upload ObjectStore
// (src/services/upload: the AWS SDK client, its retries' error mapping), presigned URLs signed
// here (sigv4-presign.ts) so the app sends video bytes straight to the bucket. Store failures
// come out as STORAGE_FULL (507, EntityTooLarge, quota) or STORAGE_UNREACHABLE.
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../shared/errors';
import type { UploadAuth } from '../../services/upload/credentials';
import type { ObjectStore } from '../../services/upload/object-store';
import type { createS3Client } from '../../services/upload/s3-client';
import { openS3Store } from '../../services/upload/s3-store';
import { isStorageFullAnswer } from '../../services/upload/storage-full';
import { describeTarget, joinKey, type UploadTarget } from '../../services/upload/target';
import {
  checkExpiresIn,
  checkObjectKey,
  checkObjectPrefix,
  checkSize,
  type HubObjectInfo,
  type HubObjectStore,
  type PresignedRequest,
  type PresignGetOptions,
  type PresignPutOptions,
  type PutOptions,
} from './object-store';
import { presignS3Url, type SigningCredentials } from './sigv4-presign';

/** Maps an upload-layer error (src/services/upload/s3-client.ts toStoreError) to the hub's
 * storage codes: STORAGE_FULL for a full disk or quota, STORAGE_UNREACHABLE for the rest of
 * what keeps the store from working (network, credentials, bucket, 5xx). NOT_FOUND and
 * INTEGRITY_FAILED pass through. */
export function storageErrorFromS3(e: unknown, where: string): AppError {
  if (!isAppError(e)) {
    const err = e as Error;
    return new AppError(
      'STORAGE_UNREACHABLE',
      `${where}: ${err?.message ?? String(e)}`,
      undefined,
      'Check --storage, --endpoint and the credentials, then try again.',
    );
  }
  if (['NOT_FOUND', 'INTEGRITY_FAILED', 'PATH_INVALID', 'STORAGE_FULL'].includes(e.code)) {
    return e;
  }
  const status = typeof e.details?.status === 'number' ? e.details.status : null;
  const s3Code = typeof e.details?.s3Code === 'string' ? e.details.s3Code : '';
  if (isStorageFullAnswer(status, s3Code)) {
    return new AppError(
      'STORAGE_FULL',
      `${where} has no room: ${s3Code || 'HTTP'} (HTTP ${status ?? '?'})`,
      { status, s3Code },
      'Raise the bucket’s quota or free space in the object store, then send the submission ' +
        'again: it resumes.',
    );
  }
  return new AppError(
    'STORAGE_UNREACHABLE',
    e.message,
    { ...e.details, cause: e.code },
    e.code === 'UPLOAD_AUTH'
      ? 'Give the hub credentials that may read and write the bucket (AWS_ACCESS_KEY_ID and ' +
          'AWS_SECRET_ACCESS_KEY, or AWS_PROFILE).'
      : e.code === 'UPLOAD_BUCKET_NOT_FOUND'
        ? 'Create the bucket, or fix --storage / --endpoint.'
        : 'Check that the object store is up and reachable from the hub, then try again.',
  );
}

/** Objects in an S3-compatible bucket below a prefix. */
export class S3HubObjectStore implements HubObjectStore {
  readonly kind = 's3';
  readonly description: string;
  private readonly store: ObjectStore;
  // the SDK client whose credential provider signs presigned URLs (aws-chain only)
  private signer: Promise<ReturnType<typeof createS3Client>> | null = null;

  constructor(
    private readonly target: UploadTarget,
    private readonly auth: UploadAuth,
  ) {
    this.description = describeTarget(target);
    this.store = openS3Store(target, auth);
  }

  private full(key: string): string {
    return joinKey(this.target.prefix, checkObjectKey(key));
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw storageErrorFromS3(e, this.description);
    }
  }

  /** Fails with STORAGE_UNREACHABLE when the bucket is missing or the credentials refused. */
  async check(): Promise<void> {
    await this.call(() => this.store.checkBucket());
  }

  async put(
    key: string,
    body: Buffer | AsyncIterable<Uint8Array>,
    options: PutOptions = {},
  ): Promise<HubObjectInfo> {
    const chunks: Uint8Array[] = [];
    if (Buffer.isBuffer(body)) {
      chunks.push(body);
    } else {
      for await (const c of body) {
        chunks.push(c);
      }
    }
    // the hub writes small objects only (a manifest, a verdict's files): the app sends the
    // bundle's big files straight to the bucket by presigned URLs
    const buf = Buffer.concat(chunks);
    if (options.sizeBytes !== undefined && buf.length !== checkSize(options.sizeBytes)) {
      throw new AppError(
        'INTEGRITY_FAILED',
        `${key}: ${buf.length} bytes, ${options.sizeBytes} announced`,
        { key, sizeBytes: buf.length, expected: options.sizeBytes },
      );
    }
    await this.call(() =>
      this.store.putObject(
        this.full(key),
        {
          body: buf,
          sha256Hex: createHash('sha256').update(buf).digest('hex'),
          md5Base64: createHash('md5').update(buf).digest('base64'),
        },
        { metadata: {}, contentType: 'application/octet-stream' },
      ),
    );
    return { key, sizeBytes: buf.length };
  }

  async get(key: string): Promise<AsyncIterable<Uint8Array>> {
    const full = this.full(key);
    return await this.call(async () => {
      try {
        return await this.store.getObject(full);
      } catch (e) {
        if (isAppError(e) && e.details?.status === 404) {
          throw new AppError('NOT_FOUND', `no object ${key} in ${this.description}`, { key });
        }
        throw e;
      }
    });
  }

  async stat(key: string): Promise<HubObjectInfo | null> {
    const info = await this.call(() => this.store.headObject(this.full(key)));
    return info ? { key, sizeBytes: info.sizeBytes, ...md5Of(info.etag) } : null;
  }

  async delete(key: string): Promise<void> {
    await this.call(() => this.store.deleteObject(this.full(key)));
  }

  async *list(prefix: string): AsyncIterable<HubObjectInfo> {
    checkObjectPrefix(prefix);
    const base = this.target.prefix ? `${this.target.prefix}/` : '';
    try {
      for await (const o of this.store.listObjects(`${base}${prefix}`)) {
        yield { key: o.key.slice(base.length), sizeBytes: o.sizeBytes, ...md5Of(o.etag) };
      }
    } catch (e) {
      throw storageErrorFromS3(e, this.description);
    }
  }

  private async credentials(): Promise<SigningCredentials> {
    switch (this.auth.kind) {
      case 'static':
        return this.auth.credentials;
      case 'provider':
        return await this.call(() =>
          (this.auth as { provide: () => Promise<SigningCredentials> }).provide(),
        );
      case 'aws-chain': {
        // the SDK's own chain (environment, profile files), loaded when presigning first needs
        // it; one client for the store's life: its provider keeps the credentials and renews
        // them before they expire (a client per URL cost each plan ~5 ms of the hub's thread)
        this.signer ??= (async () => {
          const { createS3Client: create } = await import('../../services/upload/s3-client');
          return create(this.target, this.auth);
        })();
        const client = await this.signer;
        try {
          return await this.call(async () => await client.config.credentials());
        } catch (e) {
          // the next URL tries the chain again (a profile fixed meanwhile)
          this.signer = null;
          client.destroy();
          throw e;
        }
      }
    }
  }

  private location(fullKey: string): { origin: string; path: string } {
    const { bucket, endpoint, region, forcePathStyle } = this.target;
    const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
    if (forcePathStyle) {
      return { origin: base.origin, path: `/${bucket}/${fullKey}` };
    }
    return { origin: `${base.protocol}//${bucket}.${base.host}`, path: `/${fullKey}` };
  }

  private async presign(
    method: 'PUT' | 'GET',
    key: string,
    expiresInSec: number | undefined,
    put?: { contentLength: number; md5Hex?: string | undefined },
  ): Promise<PresignedRequest> {
    const sec = checkExpiresIn(expiresInSec);
    const contentMd5 = put?.md5Hex === undefined ? undefined : md5Base64(put.md5Hex);
    const now = new Date();
    const { origin, path } = this.location(this.full(key));
    const url = presignS3Url({
      method,
      origin,
      path,
      region: this.target.region,
      credentials: await this.credentials(),
      expiresInSec: sec,
      now,
      ...(put ? { contentLength: put.contentLength } : {}),
      ...(contentMd5 ? { contentMd5 } : {}),
    });
    return {
      method,
      url,
      headers: {
        ...(put ? { 'content-length': String(put.contentLength) } : {}),
        ...(contentMd5 ? { 'content-md5': contentMd5 } : {}),
      },
      expiresAtMs: now.getTime() + sec * 1000,
    };
  }

  async presignPut(key: string, options: PresignPutOptions): Promise<PresignedRequest> {
    return await this.presign('PUT', key, options.expiresInSec, {
      contentLength: checkSize(options.sizeBytes),
      md5Hex: options.md5Hex,
    });
  }

  async presignGet(key: string, options: PresignGetOptions = {}): Promise<PresignedRequest> {
    return await this.presign('GET', key, options.expiresInSec);
  }

  async close(): Promise<void> {
    this.store.close();
    const signer = this.signer;
    this.signer = null;
    (await signer?.catch(() => null))?.destroy();
  }
}

// an ETag that is a plain MD5 (hex): a single PUT's on S3 and Swift; a multipart upload's
// (`<md5>-<parts>`) or an encrypting store's is not the body's MD5
function md5Of(etag: string): { md5?: string } {
  return /^[0-9a-f]{32}$/.test(etag) ? { md5: etag } : {};
}

// Content-MD5 is the MD5's 16 bytes in base64 (RFC 1864)
function md5Base64(md5Hex: string): string {
  if (!/^[0-9a-f]{32}$/.test(md5Hex)) {
    throw new AppError(
      'INVALID_PAYLOAD',
      `an MD5 must be 32 lower-case hex digits (got "${md5Hex.slice(0, 40)}")`,
      undefined,
      'Give the MD5 from the manifest.',
    );
  }
  return Buffer.from(md5Hex, 'hex').toString('base64');
}
