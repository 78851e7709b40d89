// The hub over TLS (node:https, a self-signed certificate made by `openssl req` here) and on a
// real PostgreSQL (Debian's, tests/helpers/postgres.ts): sign-in, the __Host- Secure cookie, a
// token's round trip, the role table's refusals and a revoked token, on the server backend.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliRun } from '../../helpers/cli';
import { REPO_ROOT } from '../../helpers/paths';
import { startPostgres, type Postgres } from '../../helpers/postgres';
import { cookieOf, request, startHubFixture, type HubFixture } from './hub-fixture';

let pg: Postgres;
let hub: HubFixture;
let certDir: string;
let cert: Buffer;
let certFile: string;

beforeAll(async () => {
  certDir = await mkdtemp(path.join(os.tmpdir(), 'hub-tls-'));
  certFile = path.join(certDir, 'cert.pem');
  const keyFile = path.join(certDir, 'key.pem');
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
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'pipe' },
  );
  cert = await readFile(certFile);
  pg = await startPostgres();
  hub = await startHubFixture({
    target: { url: await pg.createDatabase() },
    tls: { cert, key: await readFile(keyFile) },
  });
}, 120_000);

afterAll(async () => {
  await hub?.close();
  await pg?.stop();
  if (certDir) {
    await rm(certDir, { recursive: true, force: true });
  }
});

describe('hub over TLS on PostgreSQL', () => {
  it('serves https with the given certificate; the cookie is __Host-, Secure, HttpOnly, SameSite=Strict', async () => {
    expect(hub.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const origin = hub.server.url;
    const login = await request(
      hub.server.url,
      'auth:login',
      { user: 'adm', password: hub.passwords.adm },
      { ca: cert, origin },
    );
    expect(login.status).toBe(200);
    expect(login.headers['strict-transport-security']).toBe('max-age=31536000');
    const setCookie = login.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(/^__Host-cua_hub_session=cuas_/);
    expect(setCookie).toContain('; Secure');
    expect(setCookie).toContain('; HttpOnly');
    expect(setCookie).toContain('; SameSite=Strict');
    const me = await request(
      hub.server.url,
      'auth:whoami',
      {},
      {
        ca: cert,
        origin,
        cookie: cookieOf(login),
      },
    );
    expect(me.body.value).toMatchObject({ user: 'adm', via: 'session' });
    // a client that does not trust the certificate is refused by TLS itself
    await expect(request(hub.server.url, 'auth:whoami', {})).rejects.toThrow(
      /self-signed|certificate/,
    );
    // plain HTTP to the TLS port gets no API answer
    const plain = await new Promise<string>((resolve) => {
      const req = http.request(
        hub.server.url.replace('https:', 'http:') + '/api/auth:whoami',
        { method: 'POST' },
        (res) => resolve(String(res.statusCode)),
      );
      req.on('error', (e) => resolve(e.message));
      req.end('{}');
    });
    expect(plain).not.toBe('200');
  });

  it('on PostgreSQL: tokens work, the role table refuses, a revoked token stops at once', async () => {
    const annotator = await hub.token('annotator');
    const admin = await hub.token('admin');
    const call = (method: string, body: unknown, token?: string) =>
      request(hub.server.url, method, body, { ca: cert, token });
    expect((await call('users:list', {}, annotator)).status).toBe(403);
    expect((await call('users:list', {})).status).toBe(401);
    const users = await call('users:list', {}, admin);
    expect((users.body.value.users as { user: string }[]).map((u) => u.user)).toEqual([
      'adm',
      'ann',
      'rev',
    ]);
    const added = await call('users:add', { user: 'bea', roles: ['reviewer'] }, admin);
    expect(added.body.value).toMatchObject({ user: 'bea', roles: ['reviewer'] });
    const audit = await call('audit:list', { limit: 5 }, admin);
    const row = (
      audit.body.value.entries as {
        action: string;
        actor: string;
        client: string;
        details: Record<string, unknown>;
      }[]
    )[0]!;
    expect(row).toMatchObject({ action: 'user.add', actor: 'adm', client: 'api' });
    expect(row.details.address).toMatch(/127\.0\.0\.1/);

    const own = await call('tokens:list', {}, annotator);
    const id = (own.body.value.tokens as { id: number }[])[0]!.id;
    expect((await call('tokens:revoke', { id }, annotator)).body.value).toEqual({
      id,
      revoked: true,
    });
    const after = await call('auth:whoami', {}, annotator);
    expect([after.status, after.body.error?.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('the CLI signs in over HTTPS with NODE_EXTRA_CA_CERTS (and is refused without it), whoami, logout', async () => {
    const library = path.join(certDir, 'lib');
    const cli = (args: string[], input: string, env: NodeJS.ProcessEnv = {}) =>
      new Promise<CliRun>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [path.join(REPO_ROOT, 'bin', 'cua-annotator.mjs'), ...args],
          {
            env: { ...process.env, ...env },
            stdio: ['pipe', 'pipe', 'pipe'],
          },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
        child.stdin.end(input);
      });
    const login = ['login', hub.server.url, '--user', 'rev', '--password-stdin', '--new-password'];
    const input = `${hub.passwords.rev}\nanother long password 7\n`;
    const untrusted = await cli([...login, '--library', library], input);
    expect(untrusted.code).toBe(2);
    expect(untrusted.stderr).toContain('HUB_UNREACHABLE');
    expect(untrusted.stderr).toContain('NODE_EXTRA_CA_CERTS');
    const trusted = { NODE_EXTRA_CA_CERTS: certFile };
    const ok = await cli([...login, '--library', library], input, trusted);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const me = await cli(['whoami', '--library', library, '--json'], '', trusted);
    expect(JSON.parse(me.stdout)).toEqual({
      url: hub.server.url,
      user: 'rev',
      roles: ['reviewer'],
    });
    const out = await cli(['logout', '--library', library, '--json'], '', trusted);
    expect(JSON.parse(out.stdout)).toMatchObject({ user: 'rev', revoked: true });
  }, 120_000);
});
