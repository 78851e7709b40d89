// Payload digests on their own: the SHA-256 every request carries and the MD5 that Content-MD5
// and the expected ETag use (known vectors), the content types, and reading a file's byte range.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contentTypeOf,
  digests,
  payloadWithMd5,
  readRange,
} from '../../../../src/services/upload/engine/payload';
import { isAppError } from '../../../../src/shared/errors';

const ABC_SHA256 = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const ABC_MD5 = '900150983cd24fb0d6963f7d28e17f72';
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const EMPTY_MD5 = 'd41d8cd98f00b204e9800998ecf8427e';

describe('payload digests', () => {
  it('computes SHA-256 and MD5 (hex and base64) of a body', () => {
    const p = payloadWithMd5(Buffer.from('abc'));
    expect(p).toEqual({
      body: Buffer.from('abc'),
      sha256Hex: ABC_SHA256,
      md5Hex: ABC_MD5,
      md5Base64: Buffer.from(ABC_MD5, 'hex').toString('base64'),
    });
    expect(p.md5Base64).toBe('kAFQmDzST7DWlj99KOF/cg==');
  });

  it('leaves the MD5 out unless asked for, and digests an empty body', () => {
    expect(digests(Buffer.from('abc'), false)).toEqual({
      body: Buffer.from('abc'),
      sha256Hex: ABC_SHA256,
      md5Hex: null,
    });
    const empty = digests(Buffer.alloc(0), true);
    expect([empty.sha256Hex, empty.md5Hex]).toEqual([EMPTY_SHA256, EMPTY_MD5]);
  });

  it('types objects by extension, case-insensitively, octet-stream otherwise', () => {
    expect(contentTypeOf('a/video.MP4')).toBe('video/mp4');
    expect(contentTypeOf('manifest.json')).toBe('application/json');
    expect(contentTypeOf('steps.jsonl')).toBe('application/x-ndjson');
    expect(contentTypeOf('kf/0001.png')).toBe('image/png');
    expect(contentTypeOf('extra/blob.bin')).toBe('application/octet-stream');
    expect(contentTypeOf('README')).toBe('application/octet-stream');
  });
});

describe('readRange', () => {
  let dir = '';
  let file = '';
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'payload-'));
    file = path.join(dir, 'ten.bin');
    await writeFile(file, Buffer.from('0123456789'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads exactly the bytes of a range, and nothing for size 0', async () => {
    expect((await readRange(file, 3, 4)).toString()).toBe('3456');
    expect((await readRange(file, 0, 10)).toString()).toBe('0123456789');
    expect((await readRange(file, 10, 0)).length).toBe(0);
  });

  it('refuses a range past the end (a file that became shorter) instead of padding it', async () => {
    const caught = await readRange(file, 8, 4).catch((e: unknown) => e);
    expect(isAppError(caught, 'UPLOAD_VERIFY_FAILED'), String(caught)).toBe(true);
    expect((caught as Error).message).toMatch(/became shorter/);
  });
});
