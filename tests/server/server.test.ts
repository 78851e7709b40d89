import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventHub, createServer, mediaPath, type ServerHandle } from '../../src/server';
import { createServices } from '../../src/services/create-services';
import { resolveMedia } from '../../src/services/media';
import { exampleLibrary } from '../helpers/example-library';
import { callApi, json, rawRequest } from './http-client';

const t = await exampleLibrary({ keyframes: false });
const events = createEventHub();
const services = createServices(t.lib, {
  appVersion: '0.0.0-test',
  emit: events.emit,
  mediaUrl: mediaPath,
});
const rendererDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-renderer-'));
// a file next to the library that no request may ever return
const SECRET = `secret-${crypto.randomUUID()}`;
const outsideFile = path.join(path.dirname(t.dir), `${path.basename(t.dir)}-outside.png`);
let server: ServerHandle;
let id = '';
let videoFile = '';
let port = 0;
let token = '';

beforeAll(async () => {
  id = t.id;
  videoFile = resolveMedia(t.lib, id, 'video') ?? '';
  fs.writeFileSync(outsideFile, SECRET);
  fs.writeFileSync(path.join(t.dir, 'recordings', id, 'secret.png'), SECRET);
  fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>UI</title>');
  fs.mkdirSync(path.join(rendererDir, 'assets'));
  fs.writeFileSync(path.join(rendererDir, 'assets', 'app-1234.js'), 'console.log(1);');
  server = await createServer({ services, events, staticDir: rendererDir, heartbeatMs: 50 });
  port = server.port;
  token = server.token;
});

afterAll(async () => {
  await server.close();
  t.cleanup();
  fs.rmSync(rendererDir, { recursive: true, force: true });
  fs.rmSync(outsideFile, { force: true });
});

const bearer = () => ({ Authorization: `Bearer ${token}` });

describe('HTTP server: binding and token', () => {
  it('binds 127.0.0.1 on an ephemeral port and prints a token URL', () => {
    expect(server.port).toBeGreaterThan(0);
    // the UI lives under a per-launch path (the cookie's Path): /s/<16 random bytes>
    expect(server.basePath).toMatch(/^\/s\/[A-Za-z0-9_-]{22}$/);
    expect(server.base).toBe(`http://127.0.0.1:${server.port}${server.basePath}`);
    expect(server.url).toBe(`${server.base}/?token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(videoFile).not.toBe('');
  });

  it('refuses /api and /media without the token or with a wrong one (401 JSON)', async () => {
    const targets = [
      { method: 'POST', path: '/api/recordings:list' },
      { method: 'GET', path: '/api/events' },
      { method: 'GET', path: mediaPath(id, 'video') },
    ];
    for (const target of targets) {
      const variants: Record<string, string>[] = [
        {},
        { Authorization: 'Bearer wrong-token' },
        { Authorization: `Bearer ${token}x` },
        { Cookie: 'cua_token=wrong-token' },
        { Authorization: `Basic ${Buffer.from(`u:${token}`).toString('base64')}` },
      ];
      for (const headers of variants) {
        const res = await rawRequest(port, {
          ...target,
          headers: { 'Content-Type': 'application/json', ...headers },
          body: target.method === 'POST' ? '{}' : undefined,
        });
        expect(res.status, `${target.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(json(res)).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
      }
    }
  });

  it('accepts the token as a Bearer header and as the cua_token cookie', async () => {
    const viaHeader = await callApi(port, token, 'recordings:list', {});
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.json.ok).toBe(true);
    expect(viaHeader.json.value.total).toBe(1);
    expect(viaHeader.json.value.items[0].id).toBe(id);
    const viaCookie = await rawRequest(port, {
      method: 'POST',
      path: '/api/recordings:list',
      headers: { Cookie: `other=1; cua_token=${token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(viaCookie.status).toBe(200);
    expect(json(viaCookie).value.total).toBe(1);
  });

  it('?token= sets an HttpOnly SameSite=Strict cookie for the session path only and redirects there', async () => {
    for (const launch of [`${server.basePath}/?token=${token}`, `/?token=${token}`]) {
      const res = await rawRequest(port, { path: launch });
      expect(res.status, launch).toBe(303);
      expect(res.headers.location, launch).toBe(`${server.basePath}/`);
      const cookie = res.headers['set-cookie']?.[0] ?? '';
      expect(cookie).toMatch(new RegExp(`^cua_token=${token};`));
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      // never Path=/: cookies ignore ports, every other server on 127.0.0.1 would get it
      expect(cookie).toContain(`; Path=${server.basePath}/;`);
    }
    const res = await rawRequest(port, { path: `/?token=${token}` });
    const cookie = res.headers['set-cookie']?.[0] ?? '';
    const jar = cookie.split(';')[0] ?? '';
    const media = await rawRequest(port, {
      method: 'HEAD',
      path: mediaPath(id, 'video'),
      headers: { Cookie: jar },
    });
    expect(media.status).toBe(200);

    const inSession = await rawRequest(port, {
      method: 'HEAD',
      path: `${server.basePath}${mediaPath(id, 'video')}`,
      headers: { Cookie: jar },
    });
    expect(inSession.status).toBe(200);
    // the session path without its trailing slash leads to the UI
    const bare = await rawRequest(port, { path: server.basePath });
    expect(bare.status).toBe(308);
    expect(bare.headers.location).toBe(`${server.basePath}/`);

    const wrong = await rawRequest(port, { path: `/?token=not-${token}` });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.body.toString()).toContain('cua-annotator serve');
  });

  it('answers only Host 127.0.0.1/localhost/[::1] with our port (403 otherwise)', async () => {
    for (const host of [`localhost:${port}`, `[::1]:${port}`, `127.0.0.1:${port}`]) {
      const res = await rawRequest(port, {
        method: 'POST',
        path: '/api/recordings:list',
        host,
        headers: { ...bearer(), 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status, host).toBe(200);
    }
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${port + 1}`]) {
      const res = await rawRequest(port, {
        method: 'POST',
        path: '/api/recordings:list',
        host,
        headers: { ...bearer(), 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(res.status, host).toBe(403);
      expect(json(res).error.code).toBe('FORBIDDEN');
      const page = await rawRequest(port, { path: '/', host });
      expect(page.status, host).toBe(403);
    }
  });

  it('refuses a request without a Host header (HTTP/1.0)', async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET /?token=${token} HTTP/1.0\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.[01] 403 /);
    expect(answer).not.toContain('Set-Cookie');
  });

  it('refuses calls from another Origin and never sends CORS headers', async () => {
    const res = await rawRequest(port, {
      method: 'POST',
      path: '/api/recordings:list',
      headers: { ...bearer(), 'Content-Type': 'application/json', Origin: 'http://evil.example' },
      body: '{}',
    });
    expect(res.status).toBe(403);
    const same = await rawRequest(port, {
      method: 'POST',
      path: '/api/recordings:list',
      headers: {
        ...bearer(),
        'Content-Type': 'application/json',
        Origin: `http://127.0.0.1:${port}`,
      },
      body: '{}',
    });
    expect(same.status).toBe(200);
    const preflight = await rawRequest(port, {
      method: 'OPTIONS',
      path: '/api/recordings:delete',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    for (const r of [res, same, preflight]) {
      expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    expect(preflight.status).not.toBe(204);
    expect(preflight.status).not.toBe(200);
  });
});

describe('HTTP server: API calls', () => {
  it('GET never mutates: a delete over GET is 405 and the recording is still there', async () => {
    const res = await rawRequest(port, {
      path: `/api/recordings:delete?id=${id}`,
      headers: bearer(),
    });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(json(res).error.code).toBe('METHOD_NOT_ALLOWED');
    const list = await callApi(port, token, 'recordings:list', {});
    expect(list.json.value.total).toBe(1);
  });

  it('needs Content-Type application/json (415 otherwise)', async () => {
    const res = await rawRequest(port, {
      method: 'POST',
      path: '/api/recordings:list',
      headers: { ...bearer(), 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(res.status).toBe(415);
    expect(json(res).error.code).toBe('INVALID_PAYLOAD');
  });

  it('refuses a body over 1 MiB with 413 (declared length and chunked)', async () => {
    const big = JSON.stringify({ search: 'x'.repeat(1024 * 1024 + 10) });
    const declared = await rawRequest(port, {
      method: 'POST',
      path: '/api/recordings:list',
      headers: { ...bearer(), 'Content-Type': 'application/json' },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(json(declared).error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      details: { limitBytes: 1024 * 1024 },
    });
    const chunked = await rawRequest(port, {
      method: 'POST',
      path: '/api/recordings:list',
      headers: { ...bearer(), 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
    // the server still answers afterwards
    expect((await callApi(port, token, 'recordings:list', {})).status).toBe(200);
  });

  it('malformed or empty JSON is 400 INVALID_PAYLOAD', async () => {
    for (const body of ['{"id": ', '', 'nope']) {
      const res = await rawRequest(port, {
        method: 'POST',
        path: '/api/recordings:get',
        headers: { ...bearer(), 'Content-Type': 'application/json' },
        body,
      });
      expect(res.status, body).toBe(400);
      expect(json(res)).toMatchObject({ ok: false, error: { code: 'INVALID_PAYLOAD' } });
    }
  });

  it('an unknown method is 404 UNKNOWN_METHOD', async () => {
    for (const method of ['recordings:frobnicate', 'events:x', '__proto__', 'recordings%3Alist2']) {
      const res = await callApi(port, token, method, {});
      expect(res.status, method).toBe(404);
      expect(res.json.error.code, method).toBe('UNKNOWN_METHOD');
    }
  });

  it('an invalid payload is 400 INVALID_PAYLOAD naming the field', async () => {
    const res = await callApi(port, token, 'recordings:get', { id: 5 });
    expect(res.status).toBe(400);
    expect(res.json.ok).toBe(false);
    expect(res.json.error.code).toBe('INVALID_PAYLOAD');
    expect(JSON.stringify(res.json.error)).toMatch(/\bid\b/);
  });

  it('a method name may be percent-encoded; a missing recording is 404 NOT_FOUND', async () => {
    const got = await callApi(port, token, 'recordings%3Aget', { id });
    expect(got.status).toBe(200);
    expect(got.json.value.id).toBe(id);
    expect(got.json.value.video.url).toBe(`/media/${id}/video`);
    const missing = await callApi(port, token, 'recordings:get', { id: 'no-such-recording' });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOT_FOUND');
  });
});

describe('HTTP server: media', () => {
  const videoBytes = () => fs.readFileSync(videoFile);

  it('serves the video with ranges: 0-99, open end, suffix, and 416', async () => {
    const file = videoBytes();
    const size = file.length;
    const first = await rawRequest(port, {
      path: mediaPath(id, 'video'),
      headers: { ...bearer(), Range: 'bytes=0-99' },
    });
    expect(first.status).toBe(206);
    expect(first.headers['content-type']).toBe('video/mp4');
    expect(first.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(first.headers['accept-ranges']).toBe('bytes');
    expect(first.headers['cache-control']).toMatch(/private/);
    expect(first.body.length).toBe(100);
    expect(first.body.equals(file.subarray(0, 100))).toBe(true);

    const tail = await rawRequest(port, {
      path: mediaPath(id, 'video'),
      headers: { ...bearer(), Range: 'bytes=-500' },
    });
    expect(tail.status).toBe(206);
    expect(tail.headers['content-range']).toBe(`bytes ${size - 500}-${size - 1}/${size}`);
    expect(tail.body.equals(file.subarray(size - 500))).toBe(true);

    const open = await rawRequest(port, {
      path: mediaPath(id, 'video'),
      headers: { ...bearer(), Range: `bytes=${size - 10}-` },
    });
    expect(open.status).toBe(206);
    expect(open.body.equals(file.subarray(size - 10))).toBe(true);

    const beyond = await rawRequest(port, {
      path: mediaPath(id, 'video'),
      headers: { ...bearer(), Range: `bytes=${size}-` },
    });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${size}`);
  });

  it('serves the whole video (200) and HEAD without a body', async () => {
    const file = videoBytes();
    const full = await rawRequest(port, { path: mediaPath(id, 'video'), headers: bearer() });
    expect(full.status).toBe(200);
    expect(full.headers['content-length']).toBe(String(file.length));
    expect(full.body.equals(file)).toBe(true);
    const head = await rawRequest(port, {
      method: 'HEAD',
      path: mediaPath(id, 'video'),
      headers: bearer(),
    });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(file.length));
    expect(head.headers['content-type']).toBe('video/mp4');
    expect(head.body.length).toBe(0);
    const post = await rawRequest(port, {
      method: 'POST',
      path: mediaPath(id, 'video'),
      headers: bearer(),
    });
    expect(post.status).toBe(405);
  });

  it('refuses path traversal and unknown ids; never serves a file outside the library', async () => {
    const attempts = [
      '/media/../../etc/passwd',
      '/media/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/media/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd/video',
      `/media/${id}/keyframe/..%2f..%2f..%2f${path.basename(outsideFile)}`,
      `/media/${id}/keyframe/..%2F..%2Flibrary.sqlite`,
      `/media/${id}/keyframe/..%5c..%5c${path.basename(outsideFile)}`,
      `/media/${id}/keyframe/..`,
      `/media/${id}/keyframe/../../../${path.basename(outsideFile)}`,
      `/media/${id}/keyframe/secret.png`,
      `/media/${id}%2f..%2f..%2f..%2f${path.basename(outsideFile)}/video`,
      `/media/..%2f${path.basename(t.dir)}-outside.png/video`,
      '/media//etc/passwd',
      `/media/${id}/video/../../../../etc/passwd`,
      '/media/no-such-recording/video',
      '/media/00000000-0000-0000-0000-000000000000/video',
      `/media/${id}/keyframe/missing.png`,
      '/media/%00/video',
    ];
    for (const attempt of attempts) {
      const res = await rawRequest(port, { path: attempt, headers: bearer() });
      expect([400, 404], attempt).toContain(res.status);
      expect(res.headers['content-type'], attempt).toMatch(/^application\/json/);
      const text = res.body.toString('utf8');
      expect(text, attempt).not.toContain(SECRET);
      expect(text, attempt).not.toContain('root:');
    }
  });
});

describe('HTTP server: renderer files', () => {
  it('serves index.html with a strict CSP and nosniff, and falls back to it for routes', async () => {
    // not at the root: the UI is only served under the per-launch session path
    const root = await rawRequest(port, { path: '/' });
    expect(root.status).toBe(404);
    expect(root.body.toString()).toContain('cua-annotator serve');
    expect(root.body.toString()).not.toContain('<title>UI</title>');
    for (const p of ['/', '/recordings/abc', '/library'].map((r) => `${server.basePath}${r}`)) {
      const res = await rawRequest(port, { path: p });
      expect(res.status, p).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body.toString()).toContain('<title>UI</title>');
      expect(res.headers['content-security-policy']).toContain(
        "default-src 'self'; media-src 'self' blob:; img-src 'self' data: blob:; " +
          "style-src 'self' 'unsafe-inline'",
      );
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    const asset = await rawRequest(port, { path: `${server.basePath}/assets/app-1234.js` });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/^text\/javascript/);
    expect(asset.headers['cache-control']).toMatch(/immutable/);
    expect((await rawRequest(port, { path: `${server.basePath}/assets/missing.js` })).status).toBe(
      404,
    );
    expect((await rawRequest(port, { method: 'POST', path: `${server.basePath}/` })).status).toBe(
      405,
    );
  });

  it('never serves a file outside the renderer folder', async () => {
    fs.writeFileSync(path.join(path.dirname(rendererDir), 'cua-outside-secret.txt'), SECRET);
    try {
      for (const attempt of [
        '/../cua-outside-secret.txt',
        '/%2e%2e/cua-outside-secret.txt',
        '/..%2fcua-outside-secret.txt',
        '/assets/..%2f..%2fcua-outside-secret.txt',
        '/..%5ccua-outside-secret.txt',
        '/../../../../etc/passwd',
      ]) {
        for (const at of [attempt, `${server.basePath}${attempt}`]) {
          const res = await rawRequest(port, { path: at });
          expect([400, 404], at).toContain(res.status);
          expect(res.body.toString(), at).not.toContain(SECRET);
          expect(res.body.toString(), at).not.toContain('root:');
        }
        const res = await rawRequest(port, { path: attempt });
        expect(res.body.toString(), attempt).not.toContain(SECRET);
        expect(res.body.toString(), attempt).not.toContain('root:');
      }
    } finally {
      fs.rmSync(path.join(path.dirname(rendererDir), 'cua-outside-secret.txt'), { force: true });
    }
  });
});

describe('HTTP server: events', () => {
  it('streams an emitted event as SSE, with heartbeats', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        path: '/api/events',
        headers: { ...bearer(), Host: `127.0.0.1:${port}` },
        agent: false,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
        let text = '';
        let emitted = false;
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
          if (!emitted && text.includes(': connected')) {
            emitted = true;
            services.context.emit('recordings:changed', { id });
          }
          if (
            text.includes('\n\n', text.indexOf('event: recordings:changed')) &&
            text.includes(': ping')
          ) {
            req.destroy();
            resolve(text);
          }
        });
      });
      req.end();
    });
    expect(received).toContain(`event: recordings:changed\ndata: ${JSON.stringify({ id })}\n\n`);
    expect(received).toContain(': ping\n\n');
  });

  it('close() ends open SSE streams and stops listening', async () => {
    const hub = createEventHub();
    const other = await createServer({
      services: createServices(t.lib, { appVersion: '0.0.0-test', emit: hub.emit }),
      events: hub,
    });
    const ended = new Promise<string>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port: other.port,
        path: '/api/events',
        headers: { Authorization: `Bearer ${other.token}`, Host: `127.0.0.1:${other.port}` },
        agent: false,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.includes(': connected')) {
            hub.emit('exports:progress', { done: 1, total: 2, recordingId: id, phase: 'video' });
            void other.close();
          }
        });
        res.on('end', () => resolve(text));
      });
      req.end();
    });
    const text = await ended;
    expect(text).toContain('event: exports:progress');
    await expect(rawRequest(other.port, { path: '/' })).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('HTTP server: remote binding', () => {
  it('refuses a non-loopback host without --allow-remote and a password', async () => {
    const base = { services, events };
    await expect(createServer({ ...base, host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/--allow-remote/),
    });
    await expect(
      createServer({ ...base, host: '0.0.0.0', password: 'long-enough-pw' }),
    ).rejects.toMatchObject({ code: 'USAGE' });
    await expect(
      createServer({ ...base, host: '0.0.0.0', allowRemote: true }),
    ).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(/CUA_SERVE_PASSWORD/),
    });
  });

  it('with --allow-remote and a password, every request needs the password (HTTP Basic)', async () => {
    const password = 'correct horse battery';
    const remote = await createServer({
      services,
      events,
      host: '0.0.0.0',
      allowRemote: true,
      password,
      staticDir: rendererDir,
    });
    try {
      const basic = (pw: string) => `Basic ${Buffer.from(`reviewer:${pw}`).toString('base64')}`;
      const none = await rawRequest(remote.port, { path: '/', host: `10.0.0.2:${remote.port}` });
      expect(none.status).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Basic realm=/);
      const wrong = await rawRequest(remote.port, {
        path: '/',
        headers: { Authorization: basic('wrong') },
      });
      expect(wrong.status).toBe(401);
      const page = await rawRequest(remote.port, {
        path: `${remote.basePath}/`,
        host: `review-box.lan:${remote.port}`,
        headers: { Authorization: basic(password) },
      });
      expect(page.status).toBe(200);
      // password alone does not open the API: the token is still needed (cookie for scripts)
      const noToken = await rawRequest(remote.port, {
        method: 'POST',
        path: '/api/recordings:list',
        headers: { Authorization: basic(password), 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(noToken.status).toBe(401);
      const api = await rawRequest(remote.port, {
        method: 'POST',
        path: '/api/recordings:list',
        headers: {
          Authorization: basic(password),
          Cookie: `cua_token=${remote.token}`,
          'Content-Type': 'application/json',
        },
        body: '{}',
      });
      expect(api.status).toBe(200);
      expect(json(api).value.total).toBe(1);
    } finally {
      await remote.close();
    }
  });
});

describe('HTTP server: renderer not built', () => {
  it('answers / with how to build the renderer', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-no-renderer-'));
    const hub = createEventHub();
    const bare = await createServer({ services, events: hub, staticDir: empty });
    try {
      const res = await rawRequest(bare.port, { path: `${bare.basePath}/` });
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body.toString()).toContain('npm run build:renderer');
      // the API works without the renderer
      expect((await callApi(bare.port, bare.token, 'recordings:list', {})).status).toBe(200);
    } finally {
      await bare.close();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('HTTP server: through the services', () => {
  it('a mutation over POST reaches SSE clients as recordings:changed', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        path: '/api/events',
        headers: { Cookie: `cua_token=${token}`, Host: `127.0.0.1:${port}` },
        agent: false,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let buf = '';
        let called = false;
        res.on('data', (c: Buffer) => {
          buf += c.toString();
          if (!called && buf.includes(': connected')) {
            called = true;
            void callApi(port, token, 'recordings:update-task', { id, task: 'Renamed task' });
          }
          const at = buf.indexOf('event: recordings:changed');
          if (at >= 0 && buf.indexOf('\n\n', at) > 0) {
            req.destroy();
            resolve(buf);
          }
        });
      });
      req.end();
    });
    expect(text).toContain(`event: recordings:changed\ndata: {"id":"${id}"}`);
    const got = await callApi(port, token, 'recordings:get', { id });
    expect(got.json.value.task).toBe('Renamed task');
  });

  it('computed keyframes are served as PNG from their URLs', async () => {
    const computed = await callApi(port, token, 'keyframes:compute', { id });
    expect(computed.status, JSON.stringify(computed.json.error)).toBe(200);
    const urls: string[] = computed.json.value.steps
      .map((s: { keyframeUrl: string | null }) => s.keyframeUrl)
      .filter((u: string | null) => u !== null);
    expect(urls.length).toBeGreaterThan(0);
    expect(urls[0]).toMatch(new RegExp(`^/media/${id}/keyframe/[^/]+\\.png$`));
    const res = await rawRequest(port, {
      path: urls[0]!,
      headers: { Cookie: `cua_token=${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.body.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]))).toBe(
      true,
    );
    const unauthorised = await rawRequest(port, { path: urls[0]! });
    expect(unauthorised.status).toBe(401);
  }, 120_000);
});
