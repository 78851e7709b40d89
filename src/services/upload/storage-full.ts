// Which answers of an object store mean "no room": the hub's store (src/hub/storage) and the
// team client's uploads to presigned URLs (src/services/team/submit.ts) read them alike, so a
// full store is STORAGE_FULL wherever it shows. docs/team-mode.md §17.

// S3 and S3-compatible answers that mean "no room": HTTP 507 Insufficient Storage, a body over
// the store's limit (EntityTooLarge, 413), or a quota (Ceph RGW's QuotaExceeded, MinIO's
// XMinioStorageFull, Swift's container quota: 413, which its s3api answers as EntityTooLarge)
export const S3_FULL_CODES: ReadonlySet<string> = new Set([
  'EntityTooLarge',
  'QuotaExceeded',
  'InsufficientStorage',
  'XMinioStorageFull',
  'XMinioAdminBucketQuotaExceeded',
]);

/** True when an object store's answer (HTTP status, S3 error code) says it has no room. */
export function isStorageFullAnswer(status: number | null, s3Code: string): boolean {
  return status === 507 || status === 413 || S3_FULL_CODES.has(s3Code);
}

/** The `<Code>` of an S3 XML error body, or ''. */
export function s3ErrorCode(body: string): string {
  return /<Code>([^<]{1,100})<\/Code>/.exec(body)?.[1] ?? '';
}
