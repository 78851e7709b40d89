import { describe, expect, it } from 'vitest';
import {
  parseS3Url,
  resolveTarget,
  submissionKeyPrefix,
  targetUrl,
} from '../../../src/services/upload/target';
import { isAppError } from '../../../src/shared/errors';

function code(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return isAppError(e) ? e.code : 'not an AppError';
  }
}

describe('upload target', () => {
  it.each([
    ['s3://bucket', { bucket: 'bucket', prefix: '' }],
    ['s3://bucket/', { bucket: 'bucket', prefix: '' }],
    ['s3://my.bucket-1/a/b/', { bucket: 'my.bucket-1', prefix: 'a/b' }],
    ['s3://bucket//a//b', { bucket: 'bucket', prefix: 'a/b' }],
  ])('parses %s', (url, expected) => {
    expect(parseS3Url(url)).toEqual(expected);
    expect(targetUrl(expected)).toBe(
      expected.prefix ? `s3://${expected.bucket}/${expected.prefix}` : `s3://${expected.bucket}`,
    );
  });

  it.each(['https://bucket/x', 's3://', 's3://Bucket', 's3://ab', 's3://bucket/a/../b'])(
    'refuses %s',
    (url) => {
      expect(code(() => parseS3Url(url))).toBe('UPLOAD_CONFIG');
    },
  );

  it('resolves flag > AWS environment > saved settings', () => {
    const saved = {
      bucket: 'saved',
      prefix: 'p',
      endpoint: 'http://127.0.0.1:1',
      region: 'eu-west-1',
      forcePathStyle: true,
      annotator: 'sam',
    };
    expect(resolveTarget({}, {}, saved)).toMatchObject({
      target: { bucket: 'saved', prefix: 'p', endpoint: 'http://127.0.0.1:1', region: 'eu-west-1' },
      annotator: 'sam',
      from: { endpoint: 'settings', region: 'settings', bucket: 'settings' },
    });
    const env = {
      AWS_ENDPOINT_URL: 'http://127.0.0.1:2',
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:3/',
      AWS_DEFAULT_REGION: 'us-west-2',
    };
    expect(resolveTarget({}, env, saved)).toMatchObject({
      target: { endpoint: 'http://127.0.0.1:3', region: 'us-west-2', forcePathStyle: true },
      from: { endpoint: 'AWS_ENDPOINT_URL_S3', region: 'AWS_DEFAULT_REGION' },
    });
    expect(
      resolveTarget(
        {
          url: 's3://flag/q',
          endpoint: 'http://127.0.0.1:4',
          region: 'ap-south-1',
          annotator: 'fay',
        },
        env,
        saved,
      ),
    ).toMatchObject({
      target: { bucket: 'flag', prefix: 'q', endpoint: 'http://127.0.0.1:4', region: 'ap-south-1' },
      annotator: 'fay',
    });
    expect(resolveTarget({ url: 's3://b1x' }, {}, undefined)).toMatchObject({
      target: { endpoint: null, region: 'us-east-1', forcePathStyle: false },
      annotator: null,
    });
    expect(code(() => resolveTarget({}, {}, undefined))).toBe('UPLOAD_CONFIG');
    expect(code(() => resolveTarget({ url: 's3://b1x', endpoint: 'ftp://x' }, {}, {}))).toBe(
      'UPLOAD_CONFIG',
    );
  });

  it('builds <prefix>/<annotator>/<recording-id> and refuses unsafe annotators', () => {
    expect(submissionKeyPrefix({ prefix: 'team/a' }, 'alice', 'rec-1')).toBe('team/a/alice/rec-1');
    expect(submissionKeyPrefix({ prefix: '' }, 'alice', 'rec-1')).toBe('alice/rec-1');
    for (const bad of ['../x', 'a/b', '', '.hidden', 'x'.repeat(65)]) {
      expect(
        code(() => submissionKeyPrefix({ prefix: '' }, bad, 'rec-1')),
        bad,
      ).toBe('UPLOAD_CONFIG');
    }
  });
});
