// The HTTP binding of the service contract (`cua-annotator serve`): loopback + per-launch token by
// default, Host-header guard, no CORS, POST-only API, SSE events, media with ranges, the renderer.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Services } from '../services/create-services';
import { LOCAL_ONLY_METHODS } from '../shared/contract';
import { AppError } from '../shared/errors';
import { DEFAULT_BODY_LIMIT_BYTES, serveApiCall } from './api';
import { createSseStreams, DEFAULT_HEARTBEAT_MS, type EventHub } from './events';
import { serveMedia } from './media';
import { remoteExportRefusal } from './remote-export';
import { sendError, sendHtml, setSecurityHeaders } from './respond';
import {
  allowedHosts,
  bindPolicyError,
  createSessionPath,
  createToken,
  isLoopbackAddress,
  isSessionPath,
  isLoopbackHost,
  readBasicPassword,
  readBearer,
  readCookie,
  secretEquals,
  TOKEN_COOKIE,
} from './security';
import { defaultRendererDir, serveStatic } from './static';

/** Default interface: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';
/** How long close() lets in-flight requests finish before cutting connections, ms. */
export const CLOSE_GRACE_MS = 2_000;
/**
 * How long an idle keep-alive connection stays open, ms. Longer than browsers' and Node's own
 * client idle times, so the server is not the side that closes a connection a client is about
 * to reuse (Node's 5 s default made clients see ECONNRESET when the server was busy).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Pending connections the kernel queues for accept() (Node's default is 511). */
const LISTEN_BACKLOG = 2048;

/** Options of {@link createServer}. */
export type ServerOptions = {
  /** The services (createServices) the API dispatches to; `services.lib` is the library media is
   * served from. The host closes them after the server. */
  services: Services;
  /** Hub the services' `emit` publishes to; every SSE client subscribes to it. */
  events: EventHub;
  /** Interface to bind; default 127.0.0.1. A non-loopback one needs allowRemote + password. */
  host?: string;
  /** TCP port; default 0 (an ephemeral port chosen by the OS). */
  port?: number;
  /** Allow a non-loopback `host` (also lifts the Host-header check); default false. */
  allowRemote?: boolean;
  /** Password every request must carry as HTTP Basic when `allowRemote` (any user name). */
  password?: string;
  /**
   * Per-launch path the browser UI is served under (`/s/<random>`, see createSessionPath); the
   * token cookie is limited to it. Pass the one the services' mediaUrl prefixes; default: a
   * fresh one.
   */
  basePath?: string;
  /**
   * The folder remote clients (any client unless both it and the server are on loopback) may
   * export under with `exports:run`; undefined: remote clients may not export at all.
   */
  exportRoot?: string;
  /** Folder of the built renderer (index.html + assets/); default: defaultRendererDir(). */
  staticDir?: string;
  /** Largest accepted request body, bytes; default 1 MiB. */
  bodyLimitBytes?: number;
  /** Interval of SSE heartbeat comments, ms; default 15 000. */
  heartbeatMs?: number;
  /** Receives one line per unexpected server-side error; default: ignored. */
  log?: (line: string) => void;
};

/** A running server. */
export type ServerHandle = {
  /** URL to open: `http://<host>:<port>/s/<random>/?token=<token>` (sets the cookie, then
   * redirects to the UI without the token). */
  url: string;
  /** Origin of the server, e.g. `http://127.0.0.1:41234` (Bearer clients call `/api/` here). */
  origin: string;
  /** Where the browser UI lives: origin + session path, e.g. `http://127.0.0.1:41234/s/AbC…`. */
  base: string;
  /** The per-launch session path, e.g. `/s/AbC…` (no trailing slash). */
  basePath: string;
  /** The per-launch token (base64url of 32 random bytes). */
  token: string;
  /** Bound TCP port. */
  port: number;
  /** Ends SSE streams, stops listening, and resolves once every connection is closed. */
  close: () => Promise<void>;
};

function urlHost(address: string, family: string): string {
  if (address === '0.0.0.0') {
    return '127.0.0.1';
  }
  if (address === '::') {
    return '[::1]';
  }
  return family === 'IPv6' ? `[${address}]` : address;
}

function listen(server: http.Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      reject(
        new AppError(
          'USAGE',
          e.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is already in use; choose another --port (0 = any free port).`
            : `Cannot listen on ${host}:${port} (${e.code ?? e.message}).`,
          { host, port, errno: e.code ?? null },
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, LISTEN_BACKLOG, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

// Starts the server and resolves once it listens. Throws AppError USAGE when the bind policy
// refuses the host (non-loopback without allowRemote and a password) or the port is taken.
export async function createServer(options: ServerOptions): Promise<ServerHandle> {
  const host = options.host ?? DEFAULT_HOST;
  const allowRemote = options.allowRemote ?? false;
  const policy = bindPolicyError({ host, allowRemote, password: options.password });
  if (policy) {
    throw new AppError('USAGE', policy, { host });
  }
  // a password is only enforced when remote access was asked for and configured
  const password = allowRemote ? options.password : undefined;
  const token = createToken();
  const basePath = options.basePath ?? createSessionPath();
  if (!isSessionPath(basePath)) {
    throw new AppError('USAGE', `basePath "${basePath}" is not a session path (/s/<random>)`, {
      basePath,
    });
  }
  const staticDir = options.staticDir ?? defaultRendererDir();
  const limitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const sse = createSseStreams(options.events, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
  const log = options.log ?? (() => undefined);
  let hosts = new Set<string>();

  const hasToken = (req: http.IncomingMessage): boolean => {
    const given =
      readBearer(req.headers.authorization) ?? readCookie(req.headers.cookie, TOKEN_COOKIE);
    return given !== undefined && secretEquals(given, token);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    setSecurityHeaders(res);
    const target = req.url ?? '';
    if (!target.startsWith('/')) {
      sendError(res, 400, 'INVALID_PAYLOAD', 'Only origin-form request targets are accepted');
      return;
    }
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    if (!allowRemote && !hosts.has(hostHeader)) {
      // DNS rebinding: a page on evil.example resolving to 127.0.0.1 still sends its own Host
      sendError(res, 403, 'FORBIDDEN', `Host "${req.headers.host ?? ''}" is not served here`);
      return;
    }
    if (password !== undefined) {
      const given = readBasicPassword(req.headers.authorization);
      if (given === undefined || !secretEquals(given, password)) {
        sendError(res, 401, 'UNAUTHORIZED', 'Password required', undefined, {
          'WWW-Authenticate': 'Basic realm="cua-annotator", charset="UTF-8"',
        });
        return;
      }
    }
    const queryAt = target.indexOf('?');
    const fullPath = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
    if (fullPath === basePath) {
      // the UI's relative URLs need the trailing slash
      res.writeHead(308, {
        Location: `${basePath}/${queryAt < 0 ? '' : target.slice(queryAt)}`,
        'Content-Length': 0,
      });
      res.end();
      return;
    }
    // the browser UI and its API and media calls live under the session path (the only path the
    // cookie is sent to); Bearer clients may call /api and /media at the root as well
    const inSession = fullPath.startsWith(`${basePath}/`);
    const rawPath = inSession ? fullPath.slice(basePath.length) : fullPath;
    const isApi = rawPath === '/api' || rawPath.startsWith('/api/');
    const isMedia = rawPath === '/media' || rawPath.startsWith('/media/');

    if (isApi || isMedia) {
      if (!hasToken(req)) {
        sendError(
          res,
          401,
          'UNAUTHORIZED',
          'Missing or wrong token: open the URL printed by `cua-annotator serve`',
        );
        return;
      }
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) {
        sendError(res, 403, 'FORBIDDEN', `Origin ${origin} may not call this server`);
        return;
      }
      if (isMedia) {
        await serveMedia(options.services, rawPath, req, res);
        return;
      }
      if (rawPath === '/api/events') {
        if (req.method !== 'GET') {
          sendError(res, 405, 'METHOD_NOT_ALLOWED', 'Use GET for /api/events', undefined, {
            Allow: 'GET',
          });
          return;
        }
        sse.open(req, res);
        return;
      }
      let method: string;
      try {
        method = decodeURIComponent(rawPath.slice('/api/'.length));
      } catch {
        sendError(res, 400, 'INVALID_PAYLOAD', 'Malformed method name in the path');
        return;
      }
      // recording this machine, reading its health and changing the app's settings are for the
      // annotator at this machine: a loopback client of a loopback server only
      const local = isLoopbackHost(host) && isLoopbackAddress(req.socket.remoteAddress);
      const localOnly: readonly string[] = LOCAL_ONLY_METHODS;
      if (localOnly.includes(method) && !local) {
        sendError(
          res,
          403,
          'FORBIDDEN',
          `${method} is only served to a browser on this machine (a loopback client of a server ` +
            'bound to loopback), not through serve --host.',
          { method },
        );
        return;
      }
      // a remote client exports only under the configured folder, never wherever we can write
      const refuse =
        method === 'exports:run' && !local
          ? (payload: unknown) => remoteExportRefusal(payload, options.exportRoot)
          : undefined;
      await serveApiCall(options.services, method, req, res, limitBytes, refuse);
      return;
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(
        res,
        405,
        'METHOD_NOT_ALLOWED',
        `${req.method ?? ''} is not allowed here`,
        undefined,
        {
          Allow: 'GET, HEAD',
        },
      );
      return;
    }
    const launchToken = query.get('token');
    if (launchToken !== null) {
      if (!secretEquals(launchToken, token)) {
        sendHtml(
          res,
          401,
          'This link has expired',
          '<p>The token in this link is not the current one (the server restarts with a new ' +
            'token each time). Open the URL that <code>cua-annotator serve</code> printed last.</p>',
        );
        return;
      }
      // move the token into an HttpOnly cookie and drop it from the address bar and history;
      // always to the UI's fixed address (echoing the path could redirect to `//elsewhere`). The
      // cookie's Path is the session path: cookies ignore ports, so with Path=/ every other web
      // server on this host would receive it
      res.writeHead(303, {
        Location: `${basePath}/`,
        'Set-Cookie': `${TOKEN_COOKIE}=${token}; Path=${basePath}/; HttpOnly; SameSite=Strict`,
        'Cache-Control': 'no-store',
        'Content-Length': 0,
      });
      res.end();
      return;
    }
    if (!inSession) {
      // the UI is only served under the session path: a page loaded elsewhere would have no
      // cookie for its API calls (and the address would not say which launch it belongs to)
      sendHtml(
        res,
        404,
        'Open the address printed by cua-annotator serve',
        '<p>The review UI of this server lives at a per-launch address (<code>/s/…/</code>). ' +
          'Open the URL that <code>cua-annotator serve</code> printed (it signs this browser in), ' +
          'or the address a signed-in tab shows.</p>',
      );
      return;
    }
    await serveStatic(staticDir, rawPath, res);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        await handle(req, res);
      } catch (e) {
        log(
          `server: ${req.method ?? ''} ${req.url ?? ''} failed: ${(e as Error).stack ?? String(e)}`,
        );
        if (!res.headersSent) {
          sendError(res, 500, 'INTERNAL', 'Internal server error');
        } else {
          res.destroy();
        }
      }
    })();
  });

  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // must exceed keepAliveTimeout, or a slow first header on a reused connection is cut
  server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 5_000;
  const address = await listen(server, options.port ?? 0, host);
  const shownHost = urlHost(address.address, address.family);
  hosts = allowedHosts(address.port);
  hosts.add(`${shownHost}:${address.port}`.toLowerCase());
  const origin = `http://${shownHost}:${address.port}`;
  const base = `${origin}${basePath}`;

  let closing: Promise<void> | null = null;
  return {
    url: `${base}/?token=${token}`,
    origin,
    base,
    basePath,
    token,
    port: address.port,
    close: () => {
      if (!closing) {
        closing = new Promise<void>((resolve) => {
          sse.closeAll();
          server.close(() => resolve());
          server.closeIdleConnections();
          const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
          cut.unref();
        });
      }
      return closing;
    },
  };
}
