// The one module that builds @aws-sdk/client-s3 clients: an ObjectStore over S3 (or any
// S3-compatible server such as Swift's s3api), with SDK errors mapped to coded AppErrors.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { AppError, isAppError } from '../../shared/errors';
import { describeAuth, type UploadAuth } from './credentials';
import type { CallOptions, ObjectInfo, ObjectStore, Payload } from './object-store';
import { normalizeEtag } from './part-plan';
import { abortedError } from './retry';
import { describeTarget, type UploadTarget } from './target';

/** Connection settings of the HTTP layer. */
export type S3ClientOptions = {
  /** TCP connect timeout (ms). Default 5,000. */
  connectionTimeoutMs?: number;
  /** Idle-socket timeout of one request (ms). Default 120,000. */
  requestTimeoutMs?: number;
};

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ECONNABORTED',
]);
const RETRYABLE_S3_CODES = new Set([
  'SlowDown',
  'RequestTimeout',
  'InternalError',
  'ServiceUnavailable',
  'RequestTimeTooSkewed',
  // the bytes were damaged on the way: send them again
  'BadDigest',
  'XAmzContentSHA256Mismatch',
]);
const AUTH_S3_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'Forbidden',
  'InvalidToken',
  'ExpiredToken',
  'AuthorizationHeaderMalformed',
]);

type SdkError = {
  name?: string;
  message?: string;
  code?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
};

// Maps an SDK or network failure to a coded AppError saying what to do.
export function toStoreError(
  e: unknown,
  context: { operation: string; key?: string; where: string; auth: string },
): AppError {
  if (isAppError(e)) {
    return e;
  }
  const err = (e ?? {}) as SdkError;
  const name = err.name ?? '';
  const status = err.$metadata?.httpStatusCode;
  const s3Code = err.Code ?? name;
  const what = `${context.operation}${context.key ? ` ${context.key}` : ''}`;
  const details = { status: status ?? null, s3Code, operation: context.operation };
  if (name === 'AbortError') {
    return abortedError();
  }
  if (name === 'CredentialsProviderError' || /credential/i.test(name)) {
    return new AppError(
      'UPLOAD_AUTH',
      `No usable credentials from ${context.auth}: ${err.message ?? name}. Set ` +
        'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE.',
      { ...details, retryable: false },
    );
  }
  if (status === undefined) {
    const code = err.code ?? name;
    return new AppError(
      'UPLOAD_UNREACHABLE',
      `Cannot reach ${context.where} (${what}): ${code && NETWORK_CODES.has(code) ? code : (err.message ?? code)}.`,
      { ...details, networkCode: code, retryable: true },
    );
  }
  if (s3Code === 'NoSuchBucket' || (context.operation === 'HeadBucket' && status === 404)) {
    return new AppError(
      'UPLOAD_BUCKET_NOT_FOUND',
      `The bucket of ${context.where} does not exist. Create it, or fix --to / --endpoint.`,
      { ...details, retryable: false },
    );
  }
  if (s3Code === 'RequestTimeTooSkewed') {
    return new AppError(
      'UPLOAD_AUTH',
      `${context.where} refused ${what}: this computer's clock is off; fix the system time.`,
      { ...details, retryable: false },
    );
  }
  if (status === 401 || status === 403 || AUTH_S3_CODES.has(s3Code)) {
    return new AppError(
      'UPLOAD_AUTH',
      `${context.where} refused the credentials from ${context.auth} (${s3Code}, HTTP ${status}): ` +
        'check the access key and secret, and that they may write to this bucket.',
      { ...details, retryable: false },
    );
  }
  if (status >= 500 || status === 429 || status === 408 || RETRYABLE_S3_CODES.has(s3Code)) {
    return new AppError(
      'UPLOAD_UNREACHABLE',
      `${context.where} failed ${what}: ${s3Code} (HTTP ${status}).`,
      { ...details, retryable: true },
    );
  }
  return new AppError(
    'UPLOAD_REJECTED',
    `${context.where} rejected ${what}: ${s3Code} (HTTP ${status})${err.message && err.message !== s3Code ? `: ${err.message}` : ''}.`,
    { ...details, retryable: false },
  );
}

// Builds the SDK client for a target. Checksums: we send Content-MD5 and a signed SHA-256 per
// request ourselves; the SDK's default CRC32 (and its aws-chunked streaming, which Swift's
// s3api rejects) is turned off with WHEN_REQUIRED. Retries are ours (retry.ts), so maxAttempts 1.
export function createS3Client(
  target: UploadTarget,
  auth: UploadAuth,
  options: S3ClientOptions = {},
): S3Client {
  const config: S3ClientConfig = {
    region: target.region,
    forcePathStyle: target.forcePathStyle,
    maxAttempts: 1,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? 5000,
      requestTimeout: options.requestTimeoutMs ?? 120_000,
    },
  };
  if (target.endpoint) {
    config.endpoint = target.endpoint;
  }
  switch (auth.kind) {
    case 'aws-chain':
      if (auth.profile) {
        config.profile = auth.profile;
      }
      break;
    case 'static':
      config.credentials = {
        accessKeyId: auth.credentials.accessKeyId,
        secretAccessKey: auth.credentials.secretAccessKey,
        ...(auth.credentials.sessionToken ? { sessionToken: auth.credentials.sessionToken } : {}),
      };
      break;
    case 'provider':
      config.credentials = async () => {
        const c = await auth.provide();
        return {
          accessKeyId: c.accessKeyId,
          secretAccessKey: c.secretAccessKey,
          ...(c.sessionToken ? { sessionToken: c.sessionToken } : {}),
          ...(c.expiresAtMs ? { expiration: new Date(c.expiresAtMs) } : {}),
        };
      };
      break;
  }
  return new S3Client(config);
}

type HasMiddleware = {
  middlewareStack: {
    add: (
      mw: (
        next: (args: { request: unknown }) => Promise<unknown>,
      ) => (args: { request: unknown }) => Promise<unknown>,
      options: { step: 'build'; name: string },
    ) => void;
  };
};

// Signs with the SHA-256 we already computed instead of letting the SDK hash the body again.
function withPayloadSha256<C extends object>(command: C, sha256Hex: string): C {
  (command as unknown as HasMiddleware).middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) {
        request.headers['x-amz-content-sha256'] = sha256Hex;
      }
      return next(args);
    },
    { step: 'build', name: 'cuaPayloadSha256' },
  );
  return command;
}

/** An ObjectStore over one bucket of an S3-compatible server. */
export class S3ObjectStore implements ObjectStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly authDescription: string;

  constructor(
    private readonly target: UploadTarget,
    auth: UploadAuth,
    options: S3ClientOptions = {},
  ) {
    this.client = createS3Client(target, auth, options);
    this.description = describeTarget(target);
    this.authDescription = describeAuth(auth);
  }

  private async call<T>(
    operation: string,
    key: string | undefined,
    options: CallOptions | undefined,
    fn: (abortSignal: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> {
    if (options?.signal?.aborted) {
      throw abortedError();
    }
    try {
      return await fn(options?.signal);
    } catch (e) {
      if (options?.signal?.aborted) {
        throw abortedError();
      }
      throw toStoreError(e, {
        operation,
        ...(key === undefined ? {} : { key }),
        where: this.description,
        auth: this.authDescription,
      });
    }
  }

  async checkBucket(options?: CallOptions): Promise<void> {
    await this.call('HeadBucket', undefined, options, (abortSignal) =>
      this.client.send(new HeadBucketCommand({ Bucket: this.target.bucket }), { abortSignal }),
    );
  }

  async putObject(
    key: string,
    payload: Payload,
    meta: { metadata: Record<string, string>; contentType: string },
    options?: CallOptions,
  ): Promise<{ etag: string }> {
    const out = await this.call('PutObject', key, options, (abortSignal) =>
      this.client.send(
        withPayloadSha256(
          new PutObjectCommand({
            Bucket: this.target.bucket,
            Key: key,
            Body: payload.body,
            ContentLength: payload.body.length,
            ...(payload.md5Base64 ? { ContentMD5: payload.md5Base64 } : {}),
            ContentType: meta.contentType,
            Metadata: meta.metadata,
          }),
          payload.sha256Hex,
        ),
        { abortSignal },
      ),
    );
    return { etag: normalizeEtag(out.ETag) };
  }

  async createMultipartUpload(
    key: string,
    meta: { metadata: Record<string, string>; contentType: string },
    options?: CallOptions,
  ): Promise<{ uploadId: string }> {
    const out = await this.call('CreateMultipartUpload', key, options, (abortSignal) =>
      this.client.send(
        new CreateMultipartUploadCommand({
          Bucket: this.target.bucket,
          Key: key,
          ContentType: meta.contentType,
          Metadata: meta.metadata,
        }),
        { abortSignal },
      ),
    );
    if (!out.UploadId) {
      throw new AppError(
        'UPLOAD_REJECTED',
        `${this.description} returned no upload id for ${key}.`,
      );
    }
    return { uploadId: out.UploadId };
  }

  async uploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    payload: Payload,
    options?: CallOptions,
  ): Promise<{ etag: string }> {
    const out = await this.call(`UploadPart ${partNumber} of`, key, options, (abortSignal) =>
      this.client.send(
        withPayloadSha256(
          new UploadPartCommand({
            Bucket: this.target.bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: payload.body,
            ContentLength: payload.body.length,
            ...(payload.md5Base64 ? { ContentMD5: payload.md5Base64 } : {}),
          }),
          payload.sha256Hex,
        ),
        { abortSignal },
      ),
    );
    return { etag: normalizeEtag(out.ETag) };
  }

  async listParts(
    key: string,
    uploadId: string,
    options?: CallOptions,
  ): Promise<{ partNumber: number; etag: string; sizeBytes: number }[]> {
    const parts: { partNumber: number; etag: string; sizeBytes: number }[] = [];
    let marker: string | undefined;
    for (;;) {
      const out = await this.call('ListParts', key, options, (abortSignal) =>
        this.client.send(
          new ListPartsCommand({
            Bucket: this.target.bucket,
            Key: key,
            UploadId: uploadId,
            ...(marker ? { PartNumberMarker: marker } : {}),
          }),
          { abortSignal },
        ),
      );
      for (const p of out.Parts ?? []) {
        parts.push({
          partNumber: p.PartNumber ?? 0,
          etag: normalizeEtag(p.ETag),
          sizeBytes: p.Size ?? 0,
        });
      }
      if (!out.IsTruncated || !out.NextPartNumberMarker) {
        return parts;
      }
      marker = out.NextPartNumberMarker;
    }
  }

  async completeMultipartUpload(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[],
    options?: CallOptions,
  ): Promise<{ etag: string }> {
    const out = await this.call('CompleteMultipartUpload', key, options, (abortSignal) =>
      this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.target.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: {
            Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: `"${p.etag}"` })),
          },
        }),
        { abortSignal },
      ),
    );
    return { etag: normalizeEtag(out.ETag) };
  }

  async abortMultipartUpload(key: string, uploadId: string, options?: CallOptions): Promise<void> {
    await this.call('AbortMultipartUpload', key, options, (abortSignal) =>
      this.client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.target.bucket,
          Key: key,
          UploadId: uploadId,
        }),
        { abortSignal },
      ),
    );
  }

  async headObject(key: string, options?: CallOptions): Promise<ObjectInfo | null> {
    try {
      const out = await this.call('HeadObject', key, options, (abortSignal) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.target.bucket, Key: key }), {
          abortSignal,
        }),
      );
      return {
        key,
        sizeBytes: out.ContentLength ?? 0,
        etag: normalizeEtag(out.ETag),
        metadata: out.Metadata ?? {},
        lastModifiedMs: out.LastModified ? out.LastModified.getTime() : null,
      };
    } catch (e) {
      if (isAppError(e) && e.details?.status === 404) {
        return null;
      }
      throw e;
    }
  }

  async getObject(key: string, options?: CallOptions): Promise<AsyncIterable<Uint8Array>> {
    const out = await this.call('GetObject', key, options, (abortSignal) =>
      this.client.send(new GetObjectCommand({ Bucket: this.target.bucket, Key: key }), {
        abortSignal,
      }),
    );
    if (!out.Body) {
      throw new AppError('UPLOAD_REJECTED', `${this.description} returned no body for ${key}.`);
    }
    return out.Body as unknown as AsyncIterable<Uint8Array>;
  }

  async deleteObject(key: string, options?: CallOptions): Promise<void> {
    await this.call('DeleteObject', key, options, (abortSignal) =>
      this.client.send(new DeleteObjectCommand({ Bucket: this.target.bucket, Key: key }), {
        abortSignal,
      }),
    );
  }

  async *listObjects(prefix: string, options?: CallOptions): AsyncIterable<ObjectInfo> {
    let token: string | undefined;
    for (;;) {
      const out = await this.call('ListObjectsV2', prefix, options, (abortSignal) =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.target.bucket,
            Prefix: prefix,
            ...(token ? { ContinuationToken: token } : {}),
          }),
          { abortSignal },
        ),
      );
      for (const o of out.Contents ?? []) {
        if (o.Key) {
          yield {
            key: o.Key,
            sizeBytes: o.Size ?? 0,
            etag: normalizeEtag(o.ETag),
            metadata: {},
            lastModifiedMs: o.LastModified ? o.LastModified.getTime() : null,
          };
        }
      }
      if (!out.IsTruncated || !out.NextContinuationToken) {
        return;
      }
      token = out.NextContinuationToken;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
