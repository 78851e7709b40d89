// A hub for HTTP tests: one database (PGlite in a temp folder, one per test file, or a
// PostgreSQL URL), three accounts (ann: annotator, rev: reviewer, adm: admin), the server on
// 127.0.0.1, and a raw HTTP(S) client that can set any header (Host, Origin, Cookie).
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { addUser, localActor } from '../../../src/hub/accounts/accounts';
import { createApiToken } from '../../../src/hub/auth/tokens';
import { findUserByName, openHubDb, type HubDatabase, type HubDbTarget } from '../../../src/hub/db';
import {
  createHubServer,
  type HubServerHandle,
  type HubServerOptions,
} from '../../../src/hub/http';
import type { HubRole } from '../../../src/shared/contract/hub';

export type Reply = {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test replies are read freely
  body: { ok: boolean; value?: any; error?: { code: string; message: string; details?: any } };
  headers: http.IncomingHttpHeaders;
};

export type CallOptions = {
  token?: string;
  cookie?: string;
  origin?: string;
  host?: string;
  contentType?: string;
  headers?: Record<string, string>;
  method?: string;
  rawBody?: string;
};

export const ACCOUNTS: Record<HubRole, string> = {
  annotator: 'ann',
  reviewer: 'rev',
  admin: 'adm',
};

export type HubFixture = {
  hub: HubDatabase;
  server: HubServerHandle;
  /** One-time passwords of ann, rev, adm. */
  passwords: Record<string, string>;
  /** A fresh API token of the account holding `role`. */
  token: (role: HubRole) => Promise<string>;
  call: (method: string, body?: unknown, options?: CallOptions) => Promise<Reply>;
  close: () => Promise<void>;
};

/** Sends one request; resolves with status, parsed JSON body and headers. */
export function request(
  url: string,
  method: string,
  body: unknown,
  options: CallOptions & { ca?: string | Buffer } = {},
): Promise<Reply> {
  const u = new URL(`/api/${method}`, url);
  const text = options.rawBody ?? JSON.stringify(body ?? {});
  const headers: Record<string, string> = {
    'content-type': options.contentType ?? 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    ...(options.cookie ? { cookie: options.cookie } : {}),
    ...(options.origin ? { origin: options.origin } : {}),
    ...(options.host ? { host: options.host } : {}),
    ...options.headers,
  };
  const lib = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      u,
      { method: options.method ?? 'POST', headers, ca: options.ca, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: Reply['body'];
          try {
            parsed = JSON.parse(raw) as Reply['body'];
          } catch {
            parsed = { ok: false, error: { code: 'NOT_JSON', message: raw } };
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** The `name=value` part of a Set-Cookie header (for sending it back). */
export function cookieOf(reply: Reply): string {
  const set = reply.headers['set-cookie']?.[0] ?? '';
  return set.split(';')[0] ?? '';
}

/** Starts a hub on `target` (default: PGlite in a new temp folder). */
export async function startHubFixture(
  options: Partial<HubServerOptions> & { target?: HubDbTarget } = {},
): Promise<HubFixture> {
  let dir: string | null = null;
  let target = options.target;
  if (!target) {
    dir = await mkdtemp(path.join(os.tmpdir(), 'hub-http-'));
    target = { data: dir };
  }
  const hub = await openHubDb(target, { holder: 'hub http test', purpose: 'hub' });
  const by = localActor('cli');
  const passwords: Record<string, string> = {};
  for (const [role, name] of Object.entries(ACCOUNTS)) {
    passwords[name] = (await addUser(hub.db, { name, roles: [role], by })).password;
  }
  const server = await createHubServer({ ...options, db: hub.db });
  return {
    hub,
    server,
    passwords,
    token: async (role) => {
      const name = ACCOUNTS[role];
      const user = await findUserByName(hub.db, name);
      return (await createApiToken(hub.db, { userId: user!.id, userName: name, name: 'test', by }))
        .token;
    },
    call: (method, body, callOptions) => request(server.url, method, body, callOptions),
    close: async () => {
      await server.close();
      await hub.close();
      if (dir) {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
