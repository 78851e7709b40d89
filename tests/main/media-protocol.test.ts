// The cua-media:// and cua-app:// handlers: real files inside a real temp library are served
// (with ranges), anything outside (../, encoded separators, absolute paths, symlinks) is not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppHandler } from '../../src/main/app-protocol';
import { createMediaHandler, mediaUrl, parseMediaUrl } from '../../src/main/media-protocol';
import { APP_CONTENT_SECURITY_POLICY } from '../../src/main/window-security';
import { createServices } from '../../src/services/create-services';
import { tempLibrary } from '../helpers/library';
import { makeRecording } from '../helpers/store';

const t = tempLibrary();
const services = createServices(t.lib, { appVersion: '0.0.0-test' });
const { id } = makeRecording(t.lib.db);
const keyframes = path.join(t.dir, 'recordings', id, 'keyframes');
fs.mkdirSync(keyframes, { recursive: true });
const PNG = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(92, 7)]);
fs.writeFileSync(path.join(keyframes, 'step-1.png'), PNG);
// a secret outside the library, and ways of pointing at it from inside
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-outside-'));
const secret = path.join(outside, 'secret.png');
fs.writeFileSync(secret, 'SECRET');
fs.symlinkSync(secret, path.join(keyframes, 'link.png'));
fs.symlinkSync(outside, path.join(t.dir, 'recordings', id, 'escape'));

const handle = createMediaHandler({
  libraryDir: t.lib.dir,
  resolveMedia: services.resolveMedia,
});
const get = (url: string, headers: Record<string, string> = {}) =>
  handle(new Request(url, { headers }));

afterAll(async () => {
  await services.close();
  t.cleanup();
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('media protocol', () => {
  it('serves a keyframe of a recording in the library, whole and by range', async () => {
    const url = mediaUrl(id, 'keyframe', 'step-1.png');
    expect(url).toBe(`cua-media://media/${id}/keyframe/step-1.png`);
    const res = await get(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG);
    const part = await get(url, { Range: 'bytes=2-9' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 2-9/${PNG.length}`);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(PNG.subarray(2, 10));
    const tail = await get(url, { Range: 'bytes=-4' });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(PNG.subarray(PNG.length - 4));
    expect((await get(url, { Range: 'bytes=500-' })).status).toBe(416);
    const head = await handle(new Request(url, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));
  });

  it('refuses paths outside the library: ../, encoded separators, absolute, symlinks', async () => {
    const base = `cua-media://media/${id}`;
    const refused = [
      `${base}/keyframe/..%2f..%2f..%2f..%2fsecret.png`,
      `${base}/keyframe/..%2F..%2Flibrary.sqlite`,
      `${base}/keyframe/..%5c..%5csecret.png`,
      `${base}/keyframe/%2e%2e`,
      `${base}/keyframe/link.png`,
      `${base}/escape/secret.png`,
      `${base}/keyframe/..%2f..%2fescape%2fsecret.png`,
      `cua-media://media/%2Fetc%2Fpasswd/video`,
      `cua-media://media/${encodeURIComponent(secret)}/video`,
      `cua-media://media/..%2f..%2f..${encodeURIComponent(outside)}/keyframe/secret.png`,
      `cua-media:///etc/passwd`,
      `cua-media://media/${id}%2f..%2f..%2f/video`,
      `cua-media://media/%00/video`,
      `cua-media://media/${id}/keyframe/missing.png`,
      `cua-media://media/${id}/keyframe/step-1.png?x=1`,
      `cua-media://other/${id}/keyframe/step-1.png`,
      `cua-media://media/00000000-0000-0000-0000-000000000000/video`,
    ];
    for (const url of refused) {
      const res = await get(url);
      expect([400, 404], url).toContain(res.status);
      expect(await res.text(), url).not.toContain('SECRET');
    }
    // dot segments are also normalised away by the URL parser before we see them
    for (const url of [`${base}/keyframe/../../../secret.png`, `${base}/../../etc/passwd`]) {
      expect((await get(url)).status, url).not.toBe(200);
    }
    expect((await handle(new Request(mediaUrl(id, 'video'), { method: 'POST' }))).status).toBe(405);
  });

  it('never serves a file outside the library even when the resolver returns one', async () => {
    const lying = createMediaHandler({ libraryDir: t.lib.dir, resolveMedia: () => secret });
    const res = await lying(new Request(mediaUrl(id, 'keyframe', 'step-1.png')));
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('SECRET');
  });

  it('parses media URLs like the server parses /media paths', () => {
    expect(parseMediaUrl(mediaUrl('r 1', 'video', 'a b.mp4'))).toEqual({
      recordingId: 'r 1',
      kind: 'video',
      name: 'a b.mp4',
    });
    expect(parseMediaUrl(mediaUrl('r1', 'video'))).toEqual({ recordingId: 'r1', kind: 'video' });
    expect(parseMediaUrl('cua-media://media/r1/keyframe/x.jpg')).toBe('missing');
    expect(parseMediaUrl('cua-media://media/r1/audio/x')).toBe('missing');
    expect(parseMediaUrl('https://media/r1/video')).toBe('bad');
    expect(parseMediaUrl('not a url')).toBe('bad');
  });
});

describe('app protocol', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-renderer-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>app</title>');
  fs.writeFileSync(path.join(root, 'assets', 'app.js'), 'console.log(1)');
  fs.symlinkSync(secret, path.join(root, 'assets', 'leak.js'));
  const app = createAppHandler(root);
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('serves the renderer with the CSP, and nothing outside its folder', async () => {
    const index = await app(new Request('cua-app://app/'));
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('content-security-policy')).toBe(APP_CONTENT_SECURITY_POLICY);
    expect(await index.text()).toContain('<title>app</title>');
    const js = await app(new Request('cua-app://app/assets/app.js'));
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    for (const url of [
      'cua-app://app/assets/leak.js',
      'cua-app://app/..%2f..%2fetc%2fpasswd',
      `cua-app://app/${encodeURIComponent(secret)}`,
      'cua-app://evil/index.html',
      'cua-app://app/missing.html',
    ]) {
      const res = await app(new Request(url));
      expect(res.status, url).toBe(404);
      expect(await res.text()).not.toContain('SECRET');
    }
    expect((await app(new Request('cua-app://app/index.html', { method: 'POST' }))).status).toBe(
      405,
    );
  });
});
