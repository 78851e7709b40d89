// The storage port the upload engine, export and pull talk to. The S3 implementation lives in
// s3-client.ts (the only module that touches @aws-sdk). A collection server that hands out
// short-lived presigned URLs plugs in here as another implementation: it asks the server to
// create/complete multipart uploads and to presign each PutObject/UploadPart request, and PUTs
// the bytes itself; the engine, its SQLite journal, retries and verification stay unchanged.

/** What a HEAD (or a listing) tells about one stored object. */
export type ObjectInfo = {
  key: string;
  sizeBytes: number;
  /** Normalised ETag (no quotes, lower-case): MD5 hex, or `<md5>-<parts>` for multipart. */
  etag: string;
  /** User metadata (`x-amz-meta-*`, names lower-case); empty from listings. */
  metadata: Record<string, string>;
  lastModifiedMs: number | null;
};

/** Bytes of one request plus the checksums the server verifies them against. */
export type Payload = {
  body: Buffer;
  /** MD5 of `body`, base64: sent as Content-MD5 (the server rejects a mismatch: BadDigest). */
  md5Base64?: string;
  /** SHA-256 of `body`, hex: signed as the payload hash (x-amz-content-sha256), also verified. */
  sha256Hex: string;
};

/** Options every call accepts. */
export type CallOptions = {
  signal?: AbortSignal;
};

/**
 * An S3-like object store. Errors are AppErrors: `UPLOAD_AUTH`, `UPLOAD_BUCKET_NOT_FOUND`,
 * `UPLOAD_UNREACHABLE` / `UPLOAD_REJECTED` with `details.retryable`, `details.status`,
 * `details.s3Code` (e.g. `NoSuchUpload`), or `ABORTED`.
 */
export interface ObjectStore {
  /** Where the store points, for messages (`s3://bucket at http://…`). */
  readonly description: string;
  /** Fails with a coded error when the bucket is missing or the credentials are refused. */
  checkBucket(options?: CallOptions): Promise<void>;
  putObject(
    key: string,
    payload: Payload,
    meta: { metadata: Record<string, string>; contentType: string },
    options?: CallOptions,
  ): Promise<{ etag: string }>;
  createMultipartUpload(
    key: string,
    meta: { metadata: Record<string, string>; contentType: string },
    options?: CallOptions,
  ): Promise<{ uploadId: string }>;
  uploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    payload: Payload,
    options?: CallOptions,
  ): Promise<{ etag: string }>;
  /** Parts the server holds for an open multipart upload (throws s3Code NoSuchUpload if gone). */
  listParts(
    key: string,
    uploadId: string,
    options?: CallOptions,
  ): Promise<{ partNumber: number; etag: string; sizeBytes: number }[]>;
  completeMultipartUpload(
    key: string,
    uploadId: string,
    parts: readonly { partNumber: number; etag: string }[],
    options?: CallOptions,
  ): Promise<{ etag: string }>;
  abortMultipartUpload(key: string, uploadId: string, options?: CallOptions): Promise<void>;
  /** Object facts, or null when there is no such key. */
  headObject(key: string, options?: CallOptions): Promise<ObjectInfo | null>;
  /** The object's bytes as a stream. */
  getObject(key: string, options?: CallOptions): Promise<AsyncIterable<Uint8Array>>;
  deleteObject(key: string, options?: CallOptions): Promise<void>;
  /** Every object under a key prefix (all pages). */
  listObjects(prefix: string, options?: CallOptions): AsyncIterable<ObjectInfo>;
  /** Releases connections. */
  close(): void;
}
