// The `uploads:*` contract methods through dispatch: coded errors when no target is usable (no
// saved target, no annotator, an unreachable endpoint) and the listing of upload views.
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src/services/dispatch';
import { saveUploadDefaults } from '../../../src/services/upload/defaults';
import { enqueueUpload } from '../../../src/services/upload/queue';
import { serviceContext } from '../../helpers/context';
import { exampleLibrary } from '../../helpers/example-library';

const t = await exampleLibrary();
const { ctx, services } = serviceContext(t.lib);
const AWS_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_ENDPOINT_URL',
  'AWS_ENDPOINT_URL_S3',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
] as const;
const savedEnv = Object.fromEntries(AWS_VARS.map((k) => [k, process.env[k]]));
let id = '';

beforeAll(() => {
  id = t.id;
  for (const k of AWS_VARS) {
    delete process.env[k];
  }
});
afterEach(async () => {
  await services.uploads.idle();
});
afterAll(() => {
  for (const k of AWS_VARS) {
    if (savedEnv[k] === undefined) {
      delete process.env[k];
    } else {
      process.env[k] = savedEnv[k];
    }
  }
  t.cleanup();
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function errorOf(r: Awaited<ReturnType<typeof dispatch>>): { code: string; message: string } {
  if (r.ok) {
    throw new Error('expected an error result');
  }
  return r.error;
}

describe('uploads:* methods', () => {
  it('refuses uploads:enqueue without a saved or given target (UPLOAD_CONFIG)', async () => {
    const r = await dispatch(ctx, 'uploads:enqueue', { ids: [id], annotator: 'ann' });
    const e = errorOf(r);
    expect(e.code).toBe('UPLOAD_CONFIG');
    expect(e.message).toMatch(/No upload target/);
    const list = await dispatch(ctx, 'uploads:list', {});
    expect(list).toEqual({ ok: true, value: [] });
  });

  it('refuses uploads:enqueue without an annotator and with a bad URL', async () => {
    const noAnnotator = errorOf(
      await dispatch(ctx, 'uploads:enqueue', { ids: [id], to: 's3://bucket-a/p' }),
    );
    expect(noAnnotator.code).toBe('UPLOAD_CONFIG');
    expect(noAnnotator.message).toMatch(/annotator/i);
    const badUrl = errorOf(
      await dispatch(ctx, 'uploads:enqueue', { ids: [id], to: 'http://x', annotator: 'a' }),
    );
    expect(badUrl.code).toBe('INVALID_PAYLOAD');
    expect(badUrl.message).toContain('to');
    const unknown = errorOf(
      await dispatch(ctx, 'uploads:enqueue', {
        ids: ['nope'],
        to: 's3://bucket-a',
        annotator: 'a',
      }),
    );
    expect(unknown.code).toBe('NOT_FOUND');
  });

  it('reports an unreachable endpoint as a coded error and queues nothing', async () => {
    process.env.AWS_ACCESS_KEY_ID = 'AKIDTEST';
    process.env.AWS_SECRET_ACCESS_KEY = 'secret';
    try {
      const port = await closedPort();
      saveUploadDefaults(
        t.lib.db,
        {
          endpoint: `http://127.0.0.1:${port}`,
          region: 'us-east-1',
          bucket: 'bucket-a',
          prefix: 'team',
          forcePathStyle: true,
        },
        'ann',
      );
      const defaults = await dispatch(ctx, 'uploads:defaults', {});
      expect(defaults).toEqual({
        ok: true,
        value: { to: 's3://bucket-a/team', endpoint: `http://127.0.0.1:${port}`, annotator: 'ann' },
      });
      const e = errorOf(await dispatch(ctx, 'uploads:enqueue', { ids: [id] }));
      expect(e.code).toBe('UPLOAD_UNREACHABLE');
      expect(await dispatch(ctx, 'uploads:list', {})).toEqual({ ok: true, value: [] });
    } finally {
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
    }
  });

  it('lists upload views and cancels a queued one', async () => {
    const target = {
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      bucket: 'bucket-b',
      prefix: 'p',
      forcePathStyle: true,
    };
    const { uploadId } = enqueueUpload(t.lib, id, { target, annotator: 'ann' });
    const list = await dispatch(ctx, 'uploads:list', {});
    expect(list.ok).toBe(true);
    const views = list.ok
      ? (list.value as { uploadId: number; status: string; location: string }[])
      : [];
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({
      uploadId,
      recordingId: id,
      status: 'queued',
      location: `s3://bucket-b/p/ann/${id}/`,
    });
    const cancelled = await dispatch(ctx, 'uploads:cancel', { uploadId });
    expect(cancelled.ok && (cancelled.value as { status: string }).status).toBe('cancelled');
    const retry = errorOf(await dispatch(ctx, 'uploads:retry', { uploadId }));
    expect(retry.code).toBe('INVALID_STATE');
    const missing = errorOf(await dispatch(ctx, 'uploads:retry', { uploadId: 9999 }));
    expect(missing.code).toBe('NOT_FOUND');
    const bad = errorOf(await dispatch(ctx, 'uploads:cancel', { uploadId: 'x' }));
    expect(bad.code).toBe('INVALID_PAYLOAD');
    expect(bad.message).toContain('uploadId');
  });
});
