// The hub serves the built renderer at / as its team pages (docs/team-mode.md §15): index.html
// marked as the hub's, with the same security headers and Content-Security-Policy as serve;
// assets from the build; client routes answered with index.html; paths that try to leave the
// build refused; anything but GET/HEAD outside /api/ is 405; the API is unchanged.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubServer } from '../../../src/hub/http';
import { CONTENT_SECURITY_POLICY } from '../../../src/infra/http/security-headers';
import { HUB_PAGE_META } from '../../../src/shared/contract/hub';
import { startHubFixture, type HubFixture } from './hub-fixture';

let hub: HubFixture;
let build: string;

const INDEX =
  '<!doctype html>\n<html lang="en">\n  <head>\n    <title>t</title>\n' +
  '    <script type="module" src="./assets/index-abc.js"></script>\n  </head>\n' +
  '  <body><div id="root"></div></body>\n</html>\n';

function get(
  urlPath: string,
  method = 'GET',
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    // the path as given (new URL() would resolve %2e%2e before it is sent)
    const { hostname, port } = new URL(hub.server.url);
    const req = http.request({ hostname, port, path: urlPath, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  build = await mkdtemp(path.join(os.tmpdir(), 'hub-pages-build-'));
  await mkdir(path.join(build, 'assets'));
  await writeFile(path.join(build, 'index.html'), INDEX);
  await writeFile(path.join(build, 'assets', 'index-abc.js'), 'console.log("hub pages");\n');
  await writeFile(path.join(build, '.secret'), 'no');
  hub = await startHubFixture({ staticDir: build });
}, 120_000);

afterAll(async () => {
  await hub?.close();
  await rm(build, { recursive: true, force: true });
});

describe('the hub serves its pages', () => {
  it('/ is the build’s index.html marked as the hub’s, with serve’s security headers', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    const meta = `<meta name="${HUB_PAGE_META.name}" content="${HUB_PAGE_META.content}" />`;
    expect(page.text).toContain(`${meta}\n  </head>`);
    expect(page.text).toContain('./assets/index-abc.js');
    expect(Number(page.headers['content-length'])).toBe(Buffer.byteLength(page.text));
    // asked for by name, or as a client route: the same marked page
    expect((await get('/index.html')).text).toContain(meta);
    expect((await get('/team')).text).toContain(meta);
    const head = await get('/', 'HEAD');
    expect([head.status, head.text]).toEqual([200, '']);
  });

  it('serves the build’s assets and refuses paths that leave it or name dotfiles', async () => {
    const js = await get('/assets/index-abc.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['cache-control']).toContain('immutable');
    expect(js.text).toBe('console.log("hub pages");\n');
    expect((await get('/assets/missing.js')).status).toBe(404);
    expect((await get('/.secret')).status).toBe(404);
    expect((await get('/%2e%2e/%2e%2e/etc/passwd')).status).toBe(400);
  });

  it('outside /api/ only GET and HEAD; the API answers as before', async () => {
    const post = await get('/', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const api = await hub.call('auth:whoami', {});
    expect([api.status, api.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(api.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    const getApi = await get('/api/auth:whoami');
    expect(getApi.status).toBe(405);
  });

  it('a hub whose renderer is not built says how to build it', async () => {
    const empty = await mkdtemp(path.join(os.tmpdir(), 'hub-pages-empty-'));
    // a second server on the same database
    const other = await createHubServer({ db: hub.hub.db, staticDir: empty });
    try {
      const res = await fetch(`${other.url}/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm run build:renderer');
    } finally {
      await other.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('audit:list for the Team page', () => {
  it('pages back with `before` (newest first) and filters by actor and action', async () => {
    const admin = await hub.token('admin');
    const call = async (payload: Record<string, unknown>) => {
      const reply = await hub.call('audit:list', payload, { token: admin });
      expect(reply.status).toBe(200);
      return reply.body.value.entries as { id: number; actor: string; action: string }[];
    };
    const all = await call({});
    // the fixture's three user.add rows and the tokens made for this test, at least
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const first = await call({ limit: 2 });
    const second = await call({ limit: 2, before: first[1]!.id });
    expect([...first, ...second].map((e) => e.id)).toEqual(all.slice(0, 4).map((e) => e.id));
    const adds = await call({ action: 'user.add' });
    expect(adds.map((e) => e.action)).toEqual(['user.add', 'user.add', 'user.add']);
    const olderAdds = await call({ action: 'user', before: adds[0]!.id });
    expect(olderAdds.map((e) => e.id)).toEqual(adds.slice(1).map((e) => e.id));
    expect(await call({ actor: 'nobody-at-all' })).toEqual([]);
  });
});
