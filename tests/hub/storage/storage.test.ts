// The hub's object store (src/hub/storage) on a folder and on real S3 (OpenStack Swift's s3api
// on loopback, tests/helpers/swift.ts): atomic writes and keys that cannot leave the folder,
// signed folder URLs served over real HTTP, SigV4 presigned PUT/GET with fetch, a bundle checked
// against its manifest (a tampered or missing file refused), a full tmpfs → STORAGE_FULL, S3
// failures → STORAGE_FULL / STORAGE_UNREACHABLE.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Readable } from 'node:stream';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MANIFEST_NAME,
  manifestText,
  SUBMISSION_SCHEMA,
  type SubmissionManifest,
} from '../../../src/services/upload/manifest';
import { toStoreError } from '../../../src/services/upload/s3-client';
import {
  checkObject,
  FolderObjectStore,
  handleObjectRequest,
  hashObject,
  newSigningSecret,
  openHubStorage,
  presignS3Url,
  signObjectPath,
  storageErrorFromS3,
  verifyBundle,
  verifyObjectRequest,
  type HubObjectStore,
} from '../../../src/hub/storage';
import { startSwift, type Swift } from '../../helpers/swift';
import { createBucket, rawClient } from '../../services/upload/helpers';

let tmp: string;
let swift: Swift;
const BUCKET = 'hub-objects';

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'hub-storage-'));
  swift = await startSwift();
  await createBucket(rawClient(swift), BUCKET);
}, 120_000);
afterAll(async () => {
  await swift?.stop();
  await rm(tmp, { recursive: true, force: true });
});

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of body) {
    chunks.push(Buffer.from(c));
  }
  return Buffer.concat(chunks).toString('utf8');
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

// a small bundle: two files and a manifest naming their sizes and SHA-256s
async function putBundle(store: HubObjectStore, prefix: string): Promise<Buffer> {
  const files = {
    'video.mp4': randomBytes(50_000),
    'steps/steps.json': Buffer.from('[{"step":1}]'),
  };
  for (const [p, b] of Object.entries(files)) {
    await store.put(`${prefix}/${p}`, b);
  }
  const manifest: SubmissionManifest = {
    schema: SUBMISSION_SCHEMA,
    schemaVersion: 1,
    recordingId: 'rec-1',
    episodeId: 'ep-1',
    task: 'open the settings',
    platform: { os: 'linux' } as SubmissionManifest['platform'],
    toolVersion: '0.0.0-test',
    librarySchemaVersion: 1,
    annotator: 'alice',
    createdAt: '2026-01-01T00:00:00.000Z',
    submittedAt: '2026-01-01T00:01:00.000Z',
    stepCount: 1,
    files: Object.entries(files).map(([p, b]) => ({
      path: p,
      sizeBytes: b.length,
      sha256: sha256(b),
      role: p.endsWith('.mp4') ? 'video' : 'steps',
    })),
    totals: { files: 2, bytes: 50_000 + 12 },
  };
  const m = Buffer.from(manifestText(manifest));
  await store.put(`${prefix}/${MANIFEST_NAME}`, m);
  return m;
}

// the bundle checks every store must pass
async function bundleChecks(store: HubObjectStore, prefix: string): Promise<void> {
  const m = await putBundle(store, prefix);
  const ok = await verifyBundle(store, prefix);
  expect(ok).toMatchObject({ manifestSha256: sha256(m), files: 2, bytes: 50_012 });
  // same size, other bytes: only the SHA-256 shows it
  await store.put(`${prefix}/steps/steps.json`, Buffer.from('[{"step":2}]'));
  await store.delete(`${prefix}/video.mp4`);
  await expect(verifyBundle(store, prefix)).rejects.toMatchObject({
    code: 'INTEGRITY_FAILED',
    details: {
      problems: [
        { path: 'video.mp4', problem: 'missing' },
        { path: 'steps/steps.json', problem: 'sha256' },
      ],
    },
  });
}

describe('folder object store', () => {
  it('20 first writes at once on a new store all land (its opening is shared, not raced)', async () => {
    const dir = path.join(tmp, 'f-race', 'objects');
    const store = new FolderObjectStore({ dir, secret: newSigningSecret() });
    const keys = Array.from({ length: 20 }, (_, i) => `race/${i}.bin`);
    await Promise.all(keys.map((k) => store.put(k, Buffer.from(k))));
    for (const k of keys) {
      expect(await text(await store.get(k))).toBe(k);
    }
  });

  it('writes atomically, reads, lists, deletes; a cut-short write leaves the old object', async () => {
    const dir = path.join(tmp, 'f1', 'objects');
    const store = new FolderObjectStore({ dir, secret: newSigningSecret() });
    await store.put('s1/v1/a.bin', Buffer.from('first'));
    await store.put('s1/v1/a.bin', Buffer.from('second!'));
    await store.put('s1/v1/sub/b.bin', Buffer.from('b'));
    await store.put('s2/v1/c.bin', Buffer.from('c'));
    expect(await text(await store.get('s1/v1/a.bin'))).toBe('second!');
    // the store knows the SHA-256 of what it wrote (verification reads nothing back) …
    const sha = (b: string) => createHash('sha256').update(b).digest('hex');
    expect(await store.stat('s1/v1/a.bin')).toEqual({
      key: 's1/v1/a.bin',
      sizeBytes: 7,
      sha256: sha('second!'),
    });
    // … until the file changes behind its back (same size, same inode): then it is read again
    await writeFile(path.join(dir, 's2', 'v1', 'c.bin'), 'C');
    expect(await store.stat('s2/v1/c.bin')).toEqual({ key: 's2/v1/c.bin', sizeBytes: 1 });
    expect(
      await checkObject(store, 's2/v1/c.bin', { path: 'c', sizeBytes: 1, sha256: sha('c') }),
    ).toMatchObject({ problem: 'sha256', actual: sha('C') });
    expect(await store.stat('s1/v1/none')).toBeNull();
    const listed = [];
    for await (const o of store.list('s1/')) {
      listed.push(o.key);
    }
    expect(listed).toEqual(['s1/v1/a.bin', 's1/v1/sub/b.bin']);
    // announced 100 bytes, 5 arrive: refused, the old object stays, no temp file is left
    const short = Readable.from([Buffer.from('short')]);
    await expect(store.put('s1/v1/a.bin', short, { sizeBytes: 100 })).rejects.toMatchObject({
      code: 'INTEGRITY_FAILED',
    });
    expect(await text(await store.get('s1/v1/a.bin'))).toBe('second!');
    expect(await readdir(path.join(tmp, 'f1', '.objects-tmp'))).toEqual([]);
    await store.delete('s1/v1/a.bin');
    await store.delete('s1/v1/a.bin');
    expect(await store.stat('s1/v1/a.bin')).toBeNull();
    await expect(store.get('s1/v1/a.bin')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses keys that could leave the folder, through links too', async () => {
    const dir = path.join(tmp, 'f2', 'objects');
    const outside = path.join(tmp, 'f2', 'outside');
    await mkdir(outside, { recursive: true });
    const store = new FolderObjectStore({ dir, secret: newSigningSecret() });
    for (const key of [
      '../x',
      'a/../../x',
      '/etc/x',
      'a\\..\\x',
      '',
      'a//b',
      '.',
      'a/./b',
      'a\0b',
    ]) {
      await expect(store.put(key, Buffer.from('x')), key).rejects.toMatchObject({
        code: 'PATH_INVALID',
      });
    }
    await store.put('ok', Buffer.from('x'));
    await symlink(outside, path.join(dir, 'link'));
    await expect(store.put('link/x', Buffer.from('x'))).rejects.toMatchObject({
      code: 'PATH_INVALID',
    });
    expect(await readdir(outside)).toEqual([]);
    // a link planted in the folder is never read through
    await writeFile(path.join(outside, 'secret'), 'outside');
    await symlink(path.join(outside, 'secret'), path.join(dir, 'planted'));
    await expect(store.get('planted')).rejects.toMatchObject({ code: 'PATH_INVALID' });
    expect(await store.stat('planted')).toBeNull();
  });

  it("SigV4 query signing gives AWS's documented example signature", () => {
    // "Authenticating Requests: Using Query Parameters", AWS S3 API reference, example GET
    const url = presignS3Url({
      method: 'GET',
      origin: 'https://examplebucket.s3.amazonaws.com',
      path: '/test.txt',
      region: 'us-east-1',
      credentials: {
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      expiresInSec: 86400,
      now: new Date('2013-05-24T00:00:00Z'),
    });
    expect(new URL(url).searchParams.get('X-Amz-Signature')).toBe(
      'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('signed URLs: only their method, key, size and lifetime pass', () => {
    const secret = newSigningSecret();
    const now = 1_800_000_000_000;
    const put = signObjectPath(secret, {
      method: 'PUT',
      key: 's/v1/video.mp4',
      sizeBytes: 10,
      expiresAtMs: now + 60_000,
    });
    expect(verifyObjectRequest(secret, { method: 'PUT', pathAndQuery: put }, now)).toEqual({
      method: 'PUT',
      key: 's/v1/video.mp4',
      sizeBytes: 10,
      expiresAtMs: now + 60_000,
    });
    const refusals: [string, string, number, Buffer][] = [
      ['GET', put, now, secret], // another method
      ['PUT', put, now + 60_001, secret], // expired
      ['PUT', put.replace('video.mp4', 'other.mp4'), now, secret], // another key
      ['PUT', put.replace('n=10', 'n=11'), now, secret], // another size
      ['PUT', put.replace(/e=\d+/, `e=${now + 3_600_000}`), now, secret], // a later expiry
      ['PUT', put, now, newSigningSecret()], // another hub's secret
      ['PUT', put.replace('/objects/', '/objects/../'), now, secret],
    ];
    for (const [method, pathAndQuery, at, key] of refusals) {
      expect(() => verifyObjectRequest(key, { method, pathAndQuery }, at), pathAndQuery).toThrow(
        expect.objectContaining({ code: 'FORBIDDEN' }),
      );
    }
  });

  it('a presigned PUT then GET through the hub’s object handler, with a real HTTP client', async () => {
    const store = new FolderObjectStore({
      dir: path.join(tmp, 'f3', 'objects'),
      secret: newSigningSecret(),
    });
    const server = http.createServer((req, res) => void handleObjectRequest(store, req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      store.setBaseUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const body = randomBytes(200_000);
      const put = await store.presignPut('sub/v1/video.mp4', { sizeBytes: body.length });
      const res = await fetch(put.url, { method: 'PUT', body, headers: put.headers });
      expect(res.status).toBe(200);
      const get = await store.presignGet('sub/v1/video.mp4');
      const got = Buffer.from(await (await fetch(get.url)).arrayBuffer());
      expect(sha256(got)).toBe(sha256(body));
      // the upload URL with another size, or used to read: refused, nothing changed
      const wrong = await fetch(put.url, { method: 'PUT', body: body.subarray(1) });
      expect(wrong.status).toBe(400);
      expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe(
        'INTEGRITY_FAILED',
      );
      expect((await fetch(put.url)).status).toBe(403);
      expect((await hashObject(store, 'sub/v1/video.mp4')).sha256).toBe(sha256(body));
    } finally {
      server.close();
    }
  });

  it('checks a bundle against its manifest: a tampered or missing file is refused', async () => {
    const store = new FolderObjectStore({
      dir: path.join(tmp, 'f4', 'objects'),
      secret: newSigningSecret(),
    });
    await bundleChecks(store, 'sub-7/v1');
  });

  it('a full disk (a 1 MiB tmpfs) → STORAGE_FULL, and no partial file is left', async () => {
    const mnt = path.join(tmp, 'full');
    await mkdir(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    try {
      const store = await openHubStorage({ data: mnt, baseUrl: 'http://127.0.0.1:9' });
      await store.put('small', randomBytes(1000));
      await expect(store.put('big', randomBytes(2 * 1024 * 1024))).rejects.toMatchObject({
        code: 'STORAGE_FULL',
        fix: expect.stringMatching(/Free space/),
      });
      expect(await store.stat('big')).toBeNull();
      expect(await readdir(path.join(mnt, '.objects-tmp'))).toEqual([]);
      expect((await store.stat('small'))?.sizeBytes).toBe(1000);
      // the same through a presigned upload: the app is told 507 STORAGE_FULL
      expect(store).toBeInstanceOf(FolderObjectStore);
      const folder = store as FolderObjectStore;
      const server = http.createServer((req, res) => void handleObjectRequest(folder, req, res));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      try {
        folder.setBaseUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
        const body = randomBytes(2 * 1024 * 1024);
        const put = await folder.presignPut('big', { sizeBytes: body.length });
        const res = await fetch(put.url, { method: 'PUT', body, headers: put.headers });
        expect(res.status).toBe(507);
        expect(await res.json()).toMatchObject({ ok: false, error: { code: 'STORAGE_FULL' } });
      } finally {
        server.close();
      }
      expect(await store.stat('big')).toBeNull();
      expect(await readdir(path.join(mnt, '.objects-tmp'))).toEqual([]);
    } finally {
      execFileSync('umount', [mnt]);
    }
    expect(existsSync(path.join(mnt, 'objects'))).toBe(false);
  });
});

describe('S3 object store (Swift s3api)', () => {
  const open = async (prefix: string) =>
    await openHubStorage({
      url: `s3://${BUCKET}/${prefix}`,
      endpoint: swift.endpoint,
      region: swift.region,
      pathStyle: true,
      auth: { kind: 'static', credentials: swift.credentials },
    });

  it('presigned PUT then GET with fetch; the store refuses another size', async () => {
    const store = await open('team/one');
    try {
      const body = randomBytes(300_000);
      const put = await store.presignPut('sub-1/v1/video.mp4', {
        sizeBytes: body.length,
        expiresInSec: 300,
      });
      expect(put.url).toContain(`${swift.endpoint}/${BUCKET}/team/one/sub-1/v1/video.mp4?`);
      const res = await fetch(put.url, { method: 'PUT', body, headers: put.headers });
      expect(res.status).toBe(200);
      // the ETag of a single PUT is the body's MD5: the store gives it
      expect(await store.stat('sub-1/v1/video.mp4')).toEqual({
        key: 'sub-1/v1/video.mp4',
        sizeBytes: body.length,
        md5: createHash('md5').update(body).digest('hex'),
      });
      const get = await store.presignGet('sub-1/v1/video.mp4');
      const got = Buffer.from(await (await fetch(get.url)).arrayBuffer());
      expect(sha256(got)).toBe(sha256(body));
      // the signature covers Content-Length: a shorter body is refused by Swift itself
      const other = await fetch(put.url, { method: 'PUT', body: body.subarray(10) });
      expect(other.status).toBe(403);
      expect((await hashObject(store, 'sub-1/v1/video.mp4')).sha256).toBe(sha256(body));
      // a GET URL does not upload
      expect((await fetch(get.url, { method: 'PUT', body: Buffer.from('x') })).status).toBe(403);
      const keys = [];
      for await (const o of store.list('sub-1/')) {
        keys.push(o.key);
      }
      expect(keys).toEqual(['sub-1/v1/video.mp4']);
    } finally {
      await store.close();
    }
  });

  it('checks a bundle against its manifest: a tampered or missing file is refused', async () => {
    const store = await open('team/two');
    try {
      await bundleChecks(store, 'sub-9/v1');
    } finally {
      await store.close();
    }
  });

  it('an unreachable store or missing bucket → STORAGE_UNREACHABLE; 507 / EntityTooLarge / quota → STORAGE_FULL', async () => {
    const auth = { kind: 'static' as const, credentials: swift.credentials };
    await expect(
      openHubStorage({
        url: 's3://no-such-bucket-x/p',
        endpoint: swift.endpoint,
        pathStyle: true,
        auth,
      }),
    ).rejects.toMatchObject({
      code: 'STORAGE_UNREACHABLE',
      fix: expect.stringMatching(/Create the bucket/),
    });
    await expect(
      openHubStorage({
        url: `s3://${BUCKET}/p`,
        endpoint: 'http://127.0.0.1:9',
        pathStyle: true,
        auth,
      }),
    ).rejects.toMatchObject({ code: 'STORAGE_UNREACHABLE' });
    const ctx = { operation: 'PutObject', key: 'k', where: 's3://b', auth: 'test' };
    const sdk = (name: string, status: number) => ({ name, $metadata: { httpStatusCode: status } });
    for (const [e, code] of [
      [sdk('InsufficientStorage', 507), 'STORAGE_FULL'],
      [sdk('EntityTooLarge', 400), 'STORAGE_FULL'],
      [sdk('QuotaExceeded', 403), 'STORAGE_FULL'],
      [sdk('XMinioStorageFull', 507), 'STORAGE_FULL'],
      [sdk('ServiceUnavailable', 503), 'STORAGE_UNREACHABLE'],
      [sdk('AccessDenied', 403), 'STORAGE_UNREACHABLE'],
      [{ name: 'Error', code: 'ECONNREFUSED' }, 'STORAGE_UNREACHABLE'],
    ] as const) {
      expect(storageErrorFromS3(toStoreError(e, ctx), 's3://b').code, e.name).toBe(code);
    }
  });
});
