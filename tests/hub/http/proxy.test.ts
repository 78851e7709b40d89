// The hub behind a reverse proxy, with the nginx block of docs/team-mode.md §12 as written (read
// from the doc, only its ports and certificate paths replaced): nginx terminates TLS (a
// self-signed certificate made by openssl req here) and forwards to the hub on loopback with
// --trust-proxy. The hub then sees HTTPS (Secure __Host- cookie, the browser's https Origin
// accepted) and the client's real address even when the client forges X-Forwarded-For. The
// same forged headers sent straight to a hub without trustProxy change nothing.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../../src/hub/db';
import { createHubServer, type HubServerHandle } from '../../../src/hub/http';
import { REPO_ROOT } from '../../helpers/paths';
import { cookieOf, request, startHubFixture, type HubFixture } from './hub-fixture';

const NGINX = '/usr/sbin/nginx';

let hub: HubFixture;
let proxied: HubServerHandle;
let dir: string;
let cert: Buffer;
let nginx: ChildProcess | null = null;
let nginxPort = 0;
let nginxLog = '';

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

async function untilListening(port: number): Promise<void> {
  // nginx is ready when its port accepts; bounded by the test's own timeout, not a fixed sleep
  for (;;) {
    if (nginx?.exitCode !== null) {
      throw new Error(`nginx exited: ${nginxLog}`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hub-proxy-'));
  // nginx's workers (nobody, when the tests run as root) write their temp files here
  await chmod(dir, 0o777);
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  cert = await readFile(certFile);
  hub = await startHubFixture();
  // the team pages it serves (§15): a stand-in build
  await mkdir(path.join(dir, 'renderer'));
  await writeFile(
    path.join(dir, 'renderer', 'index.html'),
    '<!doctype html><html><head><title>t</title></head><body></body></html>',
  );
  proxied = await createHubServer({
    db: hub.hub.db,
    trustProxy: true,
    staticDir: path.join(dir, 'renderer'),
  });

  const doc = await readFile(path.join(REPO_ROOT, 'docs', 'team-mode.md'), 'utf8');
  const block = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1];
  expect(block, 'docs/team-mode.md has an nginx block').toBeDefined();
  nginxPort = await freePort();
  const server = block!
    .replace('listen 443 ssl;', `listen 127.0.0.1:${nginxPort} ssl;`)
    .replace('/etc/ssl/cua-hub/fullchain.pem', certFile)
    .replace('/etc/ssl/cua-hub/privkey.pem', keyFile)
    .replace('http://127.0.0.1:8470', proxied.url);
  expect(server).toContain(proxied.url);
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `daemon off;\nworker_processes 1;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\n` +
      `events { worker_connections 64; }\nhttp {\n  access_log off;\n` +
      `  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n` +
      `  fastcgi_temp_path ${dir}/fcgi;\n  uwsgi_temp_path ${dir}/uwsgi;\n` +
      `  scgi_temp_path ${dir}/scgi;\n${server}}\n`,
  );
  nginx = spawn(NGINX, ['-p', dir, '-c', conf, '-e', `${dir}/error.log`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  nginx.stderr?.on('data', (d: Buffer) => (nginxLog += d.toString()));
  await untilListening(nginxPort);
}, 120_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const gone = new Promise((r) => nginx!.once('exit', r));
    nginx.kill('SIGQUIT');
    await gone;
  }
  await proxied?.close();
  await hub?.close();
  if (dir) {
    await rm(dir, { recursive: true, force: true });
  }
});

describe('hub behind nginx (docs/team-mode.md §12)', () => {
  it('through the documented nginx block: https Origin accepted, Secure __Host- cookie, the real client address despite a forged X-Forwarded-For', async () => {
    const url = `https://127.0.0.1:${nginxPort}`;
    const login = await request(
      url,
      'auth:login',
      { user: 'adm', password: hub.passwords.adm },
      { ca: cert, origin: url, headers: { 'x-forwarded-for': '6.6.6.6' } },
    );
    expect(login.status).toBe(200);
    const setCookie = login.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/^__Host-cua_hub_session=cuas_/);
    expect(setCookie).toContain('; Secure');
    const me = await request(
      url,
      'auth:whoami',
      {},
      {
        ca: cert,
        origin: url,
        cookie: cookieOf(login),
      },
    );
    expect(me.body.value).toMatchObject({ user: 'adm', via: 'session' });
    // a page elsewhere is still refused through the proxy
    const foreign = await request(
      url,
      'auth:whoami',
      {},
      {
        ca: cert,
        origin: 'https://evil.example',
        cookie: cookieOf(login),
      },
    );
    expect(foreign.status).toBe(403);
    const row = (await listAudit(hub.hub.db, { limit: 20 })).find(
      (a) => a.action === 'auth.login' && a.actor === 'adm',
    );
    expect(row?.details.address).toBe('127.0.0.1');
    // the team pages come through the same block, marked as the hub's, with HSTS (https)
    const page = await new Promise<{ status: number; hsts: unknown; text: string }>(
      (resolve, reject) => {
        https
          .get(`${url}/`, { ca: cert, agent: false }, (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                hsts: res.headers['strict-transport-security'],
                text,
              }),
            );
          })
          .on('error', reject);
      },
    );
    expect(page.status).toBe(200);
    expect(page.text).toContain('<meta name="cua-annotator-host" content="hub" />');
    expect(page.hsts).toBe('max-age=31536000');
  });

  it('without trustProxy the forwarded headers are ignored: no Secure cookie, the peer address', async () => {
    const login = await hub.call(
      'auth:login',
      { user: 'rev', password: hub.passwords.rev },
      { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '6.6.6.6' } },
    );
    expect(login.status).toBe(200);
    const setCookie = login.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/^cua_hub_session=/);
    expect(setCookie).not.toContain('Secure');
    // a browser on that plain-HTTP hub claiming an https Origin is refused
    const https = await hub.call(
      'auth:whoami',
      {},
      {
        cookie: cookieOf(login),
        origin: hub.server.url.replace('http:', 'https:'),
      },
    );
    expect(https.status).toBe(403);
    const row = (await listAudit(hub.hub.db, { limit: 20 })).find(
      (a) => a.action === 'auth.login' && a.actor === 'rev',
    );
    expect(String(row?.details.address)).toMatch(/127\.0\.0\.1$/);
    expect(JSON.stringify(row?.details)).not.toContain('6.6.6.6');
  });
});
