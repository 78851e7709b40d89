// The hub's HTTP server (`cua-annotator hub`): `POST /api/<method>` with JSON, answered with the
// Result envelope. Every request passes, in order: the Host guard (DNS rebinding, on a loopback
// bind), POST + JSON + size, the method's existence (404), the Origin guard, the caller (a
// session cookie or `Authorization: Bearer cuah_…`; a bad one is 401, never anonymous), the one
// role table HUB_ROLE_TABLE (401 / 403), the one-time-password gate, the input schema, and only
// then the handler. TLS with node:https, or plain HTTP behind a reverse proxy (--trust-proxy).
// docs/team-mode.md §12.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { allowedHosts, isLoopbackHost, readBearer, readCookie } from '../../infra/http/guards';
import {
  HUB_BEFORE_PASSWORD_CHANGE,
  HUB_METHOD_SCHEMAS,
  HUB_PAGE_META,
  HUB_ROLE_TABLE,
  HUB_TASKS_IMPORT_MAX_BYTES,
  isHubMethod,
  type HubMethod,
} from '../../shared/contract/hub';
import { validateWith } from '../../shared/contract/validators';
import { AppError, isAppError } from '../../shared/errors';
import type { Result } from '../../shared/result';
import { requireRole } from '../auth/roles';
import { DEFAULT_SESSION_TTL_MS, verifySession } from '../auth/sessions';
import { verifyApiToken } from '../auth/tokens';
import { dbUnreachableError, type AuditActor, type HubRootDb } from '../db';
import {
  FolderObjectStore,
  handleObjectRequest,
  OBJECT_URL_PATH,
  type HubObjectStore,
} from '../storage';
import { HUB_HANDLERS, type HubCallContext, type HubCallerInfo } from './methods';
import { createLoginLimiter, type LoginLimits } from './rate-limit';
import { sendHubError, sendResult, setHubSecurityHeaders } from './respond';
import { readBody } from '../../infra/http/read-body';
import { defaultRendererDir, serveStatic } from '../../infra/http/static-files';

/** The session cookie's name over plain HTTP. */
export const HUB_SESSION_COOKIE = 'cua_hub_session';
/** Over HTTPS: the `__Host-` prefix makes browsers refuse it without Secure, Path=/ and with a
 * Domain, so no other host or plain-HTTP page can set or shadow it. */
export const HUB_SESSION_COOKIE_SECURE = `__Host-${HUB_SESSION_COOKIE}`;
/** Largest request body, bytes. */
export const HUB_BODY_LIMIT_BYTES = 256 * 1024;
/** How long close() lets requests finish before cutting connections, ms. */
export const HUB_CLOSE_GRACE_MS = 2_000;

/** Options of {@link createHubServer}. */
export type HubServerOptions = {
  db: HubRootDb;
  /** Where submission bundles live (docs/team-mode.md §9). A folder store's signed URLs are
   * served under /objects/ and its base URL is set to this server's once it listens. */
  store?: HubObjectStore;
  /** The job layer (docs/jobs.md): the jobs:* methods and the intake on registration. */
  jobs?: HubCallContext['jobs'];
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** TCP port (default 0: any free one). */
  port?: number;
  /** PEM certificate chain and key: serve HTTPS. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Behind a reverse proxy: trust X-Forwarded-Proto and X-Forwarded-For (its last entry). */
  trustProxy?: boolean;
  sessionTtlMs?: number;
  loginLimits?: Partial<LoginLimits>;
  /** Clock of the sign-in limiter (tests). */
  now?: () => number;
  /** One line per unexpected failure. */
  log?: (line: string) => void;
  /** Folder of the built renderer served at / (the team pages, §15); default:
   * defaultRendererDir(), the same build `serve` uses. */
  staticDir?: string;
};

/** A running hub server. */
export type HubServerHandle = {
  /** `http(s)://host:port` */
  url: string;
  port: number;
  /** Stops listening, lets requests finish (up to a grace period) and resolves when closed. */
  close: () => Promise<void>;
};

const KNOWN_CLIENTS = new Set(['cli', 'app', 'web']);

// The renderer's index.html marked as the hub's: the page shows the team pages and calls this
// hub's API (src/renderer/main.tsx reads the marker).
function markHubIndex(html: string): string {
  const meta = `<meta name="${HUB_PAGE_META.name}" content="${HUB_PAGE_META.content}" />`;
  return html.includes('</head>') ? html.replace('</head>', `    ${meta}\n  </head>`) : meta + html;
}

function errorResult(caught: unknown): Result<never> | null {
  // a database that went away while the hub runs is a coded 503, not an internal error
  const e = dbUnreachableError(caught) ?? caught;
  if (!isAppError(e)) {
    return null;
  }
  return {
    ok: false,
    error: {
      code: e.code,
      message: e.message,
      ...(e.details ? { details: e.details } : {}),
      ...(e.fix ? { fix: e.fix } : {}),
    },
  };
}

function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      reject(
        new AppError(
          'USAGE',
          e.code === 'EADDRINUSE'
            ? `port ${port} on ${host} is already in use`
            : `cannot listen on ${host}:${port} (${e.code ?? e.message})`,
          { host, port },
          'Choose another --port (0: any free port) or --host.',
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts the hub's HTTP(S) server; resolves once it listens. */
export async function createHubServer(options: HubServerOptions): Promise<HubServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const tls = options.tls !== undefined;
  const trustProxy = options.trustProxy ?? false;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const limiter = createLoginLimiter(options.loginLimits, options.now);
  const log = options.log ?? (() => undefined);
  const staticDir = options.staticDir ?? defaultRendererDir();
  // the Host guard applies to a loopback bind without a proxy in front: there every legitimate
  // Host names this machine, and anything else is a DNS-rebinding page
  const guardHost = isLoopbackHost(host) && !trustProxy;
  let hosts = new Set<string>();

  const schemeOf = (req: http.IncomingMessage): 'http' | 'https' => {
    if (tls) {
      return 'https';
    }
    const forwarded = req.headers['x-forwarded-proto'];
    const proto = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    return trustProxy && proto === 'https' ? 'https' : 'http';
  };
  const addressOf = (req: http.IncomingMessage): string => {
    const peer = req.socket.remoteAddress ?? 'unknown';
    if (!trustProxy) {
      return peer;
    }
    // the proxy appends the address it saw: the last entry is the one a client cannot forge
    const xff = req.headers['x-forwarded-for'];
    const last = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').pop()?.trim();
    return last || peer;
  };

  const authenticate = async (
    req: http.IncomingMessage,
    secure: boolean,
  ): Promise<HubCallerInfo | null> => {
    const bearer = readBearer(req.headers.authorization);
    if (bearer !== undefined) {
      const found = await verifyApiToken(options.db, bearer);
      return { user: found.user, via: 'token', credentialId: found.tokenId };
    }
    const cookie = readCookie(
      req.headers.cookie,
      secure ? HUB_SESSION_COOKIE_SECURE : HUB_SESSION_COOKIE,
    );
    if (cookie !== undefined && cookie !== '') {
      const found = await verifySession(options.db, cookie);
      return { user: found.user, via: 'session', credentialId: found.sessionId };
    }
    return null;
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const scheme = schemeOf(req);
    setHubSecurityHeaders(res, scheme === 'https');
    const target = req.url ?? '';
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (guardHost && !hosts.has(hostHeader)) {
      sendHubError(res, 'FORBIDDEN', `Host "${req.headers.host ?? ''}" is not served here`);
      return;
    }
    const pathOnly = target.split('?')[0] ?? '';
    if (options.store instanceof FolderObjectStore && pathOnly.startsWith(OBJECT_URL_PATH)) {
      // the folder store's presigned URLs: the URL's HMAC is the authorisation (§9)
      await handleObjectRequest(options.store, req, res);
      return;
    }
    if (!pathOnly.startsWith('/api/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendHubError(
          res,
          'METHOD_NOT_ALLOWED',
          `use GET for ${pathOnly || '/'}`,
          {
            fix: 'The hub answers POST /api/<method> and serves its pages with GET (§12, §15).',
          },
          { Allow: 'GET, HEAD' },
        );
        return;
      }
      // the team pages: the built renderer, its index.html marked as the hub's (§15)
      await serveStatic(staticDir, pathOnly || '/', res, { transformIndex: markHubIndex });
      return;
    }
    if (req.method !== 'POST') {
      sendHubError(res, 'METHOD_NOT_ALLOWED', `use POST for ${pathOnly}`, {}, { Allow: 'POST' });
      return;
    }
    let name: string;
    try {
      name = decodeURIComponent(pathOnly.slice('/api/'.length));
    } catch {
      sendHubError(res, 'INVALID_PAYLOAD', 'malformed method name in the path');
      return;
    }
    if (!isHubMethod(name)) {
      sendHubError(res, 'UNKNOWN_METHOD', `the hub has no method "${name}"`, {
        details: { method: name },
      });
      return;
    }
    const method: HubMethod = name;
    // CSRF: a browser names the page's origin; only this hub's own pages may call it
    const selfOrigin = `${scheme}://${req.headers.host ?? ''}`;
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== selfOrigin) {
      sendHubError(res, 'FORBIDDEN', `Origin ${origin} may not call this hub`, {
        details: { origin },
      });
      return;
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      // a form or a simple cross-site request cannot send application/json without a preflight,
      // which this hub never answers
      sendHubError(res, 'INVALID_PAYLOAD', 'send the payload as Content-Type: application/json');
      return;
    }
    // a task file may be larger than any other request (docs/team-mode.md §16)
    const bodyLimit = method === 'tasks:import' ? HUB_TASKS_IMPORT_MAX_BYTES : HUB_BODY_LIMIT_BYTES;
    const body = await readBody(req, bodyLimit);
    if (body.kind === 'aborted') {
      res.destroy();
      return;
    }
    if (body.kind === 'too-large') {
      sendHubError(
        res,
        'PAYLOAD_TOO_LARGE',
        `the request body is larger than ${bodyLimit} bytes`,
        {},
        { Connection: 'close' },
      );
      res.on('finish', () => req.socket.destroySoon());
      return;
    }
    let payload: unknown;
    try {
      payload = body.text.trim() === '' ? {} : JSON.parse(body.text);
    } catch (e) {
      sendHubError(res, 'INVALID_PAYLOAD', 'the request body is not valid JSON', {
        details: { reason: (e as Error).message },
      });
      return;
    }

    const secure = scheme === 'https';
    const address = addressOf(req);
    const userAgent = req.headers['user-agent'] ?? null;
    const cookies: string[] = [];
    try {
      const caller = await authenticate(req, secure);
      if (caller?.via === 'session' && origin === undefined) {
        // a cookie travels with any request the browser makes; demand the proof a browser
        // always adds to a same-origin POST (non-browser clients use a Bearer token)
        throw new AppError(
          'FORBIDDEN',
          'a call signed in by cookie must carry this hub’s Origin header',
          undefined,
          'Call the hub from its own pages, or with Authorization: Bearer <API token>.',
        );
      }
      const rule = HUB_ROLE_TABLE[method];
      if (rule === 'any-signed-in' && !caller) {
        requireRole(null, [], method);
      } else if (rule !== 'public' && rule !== 'any-signed-in') {
        requireRole(caller?.user ?? null, rule, method);
      }
      if (
        caller?.via === 'session' &&
        caller.user.mustChangePassword &&
        !HUB_BEFORE_PASSWORD_CHANGE.includes(method)
      ) {
        throw new AppError(
          'PASSWORD_CHANGE_REQUIRED',
          `${caller.user.name} signed in with a one-time password: change it first`,
          { user: caller.user.name },
          'Change the password (auth:change-password, or cua-annotator login … --new-password).',
        );
      }
      const checked = validateWith(HUB_METHOD_SCHEMAS[method].input, payload);
      if (!checked.ok) {
        throw new AppError('INVALID_PAYLOAD', `${checked.field} ${checked.message}`, {
          field: checked.field,
        });
      }
      const clientHeader = req.headers['x-cua-client'];
      const client =
        typeof clientHeader === 'string' && KNOWN_CLIENTS.has(clientHeader)
          ? clientHeader
          : caller?.via === 'token'
            ? 'api'
            : 'web';
      const actor: AuditActor = caller
        ? { actor: caller.user.name, actorUserId: caller.user.id, client, address, userAgent }
        : {
            actor: `anonymous@${address}`,
            actorUserId: null,
            client,
            address,
            userAgent,
          };
      const ctx: HubCallContext = {
        db: options.db,
        store: options.store ?? null,
        ...(options.jobs ? { jobs: options.jobs } : {}),
        caller,
        actor,
        address,
        limiter,
        sessionTtlMs,
        setCookie: (c) => cookies.push(c),
        sessionCookie: (value, maxAge) =>
          `${secure ? HUB_SESSION_COOKIE_SECURE : HUB_SESSION_COOKIE}=${value ?? ''}; Path=/; ` +
          `Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
      };
      const handler = HUB_HANDLERS[method] as (c: HubCallContext, i: unknown) => Promise<unknown>;
      const value = await handler(ctx, checked.value);
      sendResult(res, { ok: true, value }, cookies.length ? { 'Set-Cookie': cookies } : {});
    } catch (e) {
      const result = errorResult(e);
      if (!result) {
        throw e;
      }
      const retry = result.ok ? undefined : result.error.details?.retryAfterSeconds;
      const headers: Record<string, string | string[]> =
        typeof retry === 'number' ? { 'Retry-After': String(retry) } : {};
      if (cookies.length) {
        headers['Set-Cookie'] = cookies;
      }
      sendResult(res, result, headers);
    }
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void (async () => {
      try {
        await handle(req, res);
      } catch (e) {
        log(`hub: ${req.method ?? ''} ${req.url ?? ''} failed: ${(e as Error).stack ?? String(e)}`);
        if (!res.headersSent) {
          sendHubError(res, 'INTERNAL', 'internal hub error');
        } else {
          res.destroy();
        }
      }
    })();
  };
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
    : http.createServer(onRequest);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 70_000;
  const address = await listen(server, options.port ?? 0, host);
  const shown =
    address.address === '0.0.0.0'
      ? '127.0.0.1'
      : address.address === '::'
        ? '[::1]'
        : address.family === 'IPv6'
          ? `[${address.address}]`
          : address.address;
  hosts = allowedHosts(address.port, tls ? 443 : 80);
  hosts.add(`${shown}:${address.port}`.toLowerCase());
  let closing: Promise<void> | null = null;
  const url = `${tls ? 'https' : 'http'}://${shown}:${address.port}`;
  if (options.store instanceof FolderObjectStore) {
    options.store.setBaseUrl(url);
  }
  return {
    url,
    port: address.port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        const cut = setTimeout(() => server.closeAllConnections(), HUB_CLOSE_GRACE_MS);
        cut.unref();
      });
      return closing;
    },
  };
}
