import { describe, expect, it } from 'vitest';
import { toStoreError } from '../../../src/services/upload/s3-client';

const CONTEXT = { operation: 'PutObject', key: 'a/b', where: 's3://b at http://x', auth: 'env' };

function sdkError(name: string, status?: number, extra: Record<string, unknown> = {}) {
  return Object.assign(new Error(`${name} message`), {
    name,
    ...(status === undefined ? {} : { $metadata: { httpStatusCode: status } }),
    ...extra,
  });
}

describe('SDK error mapping', () => {
  it.each([
    [sdkError('SignatureDoesNotMatch', 403), 'UPLOAD_AUTH', false],
    [sdkError('InvalidAccessKeyId', 403), 'UPLOAD_AUTH', false],
    [sdkError('Forbidden', 403), 'UPLOAD_AUTH', false],
    [sdkError('CredentialsProviderError'), 'UPLOAD_AUTH', false],
    [sdkError('RequestTimeTooSkewed', 403), 'UPLOAD_AUTH', false],
    [sdkError('NoSuchBucket', 404), 'UPLOAD_BUCKET_NOT_FOUND', false],
    [sdkError('InternalError', 500), 'UPLOAD_UNREACHABLE', true],
    [sdkError('SlowDown', 503), 'UPLOAD_UNREACHABLE', true],
    [sdkError('BadDigest', 400), 'UPLOAD_UNREACHABLE', true],
    [sdkError('Error', undefined, { code: 'ECONNREFUSED' }), 'UPLOAD_UNREACHABLE', true],
    [sdkError('TimeoutError'), 'UPLOAD_UNREACHABLE', true],
    [sdkError('NoSuchUpload', 404), 'UPLOAD_REJECTED', false],
    [sdkError('EntityTooSmall', 400), 'UPLOAD_REJECTED', false],
    [sdkError('AbortError'), 'ABORTED', false],
  ])('%s → %s', (e, code, retryable) => {
    const mapped = toStoreError(e, CONTEXT);
    expect(mapped.code).toBe(code);
    expect(mapped.details?.retryable ?? false).toBe(retryable);
  });

  it('names the target, the operation and what to do', () => {
    expect(toStoreError(sdkError('NoSuchBucket', 404), CONTEXT).message).toBe(
      'The bucket of s3://b at http://x does not exist. Create it, or fix --to / --endpoint.',
    );
    expect(
      toStoreError(sdkError('Error', undefined, { code: 'ECONNREFUSED' }), CONTEXT).message,
    ).toBe('Cannot reach s3://b at http://x (PutObject a/b): ECONNREFUSED.');
    expect(toStoreError(sdkError('NoSuchUpload', 404), CONTEXT).details?.s3Code).toBe(
      'NoSuchUpload',
    );
  });
});
