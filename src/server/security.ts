// Launch token, Host/Origin checks, cookie and Basic-auth parsing: the guards every request passes
// (docs/architecture.md §3 HTTP binding; docs/peer-lessons.md: never AgentNetTool's open local API).
import crypto from 'node:crypto';
import { isLoopbackHost } from '../infra/http/guards';

// the guards the hub shares live in infra (src/infra/http/guards.ts): server and hub may both
// import it, neither may import the other
export {
  allowedHosts,
  isLoopbackAddress,
  isLoopbackHost,
  readBearer,
  readCookie,
  secretEquals,
} from '../infra/http/guards';

/**
 * Name of the cookie that carries the launch token for the browser (media, SSE, API). Its Path is
 * the launch's session path ({@link createSessionPath}): cookies are scoped by host, not port, so
 * with Path=/ every other web server on 127.0.0.1 would receive it.
 */
export const TOKEN_COOKIE = 'cua_token';
/** First segment of every session path: `/s/<random>`. */
export const SESSION_PATH_PREFIX = '/s/';
const SESSION_PATH_RE = /^\/s\/[A-Za-z0-9_-]{16,}$/;
/** Environment variable holding the password required for a non-loopback bind. */
export const PASSWORD_ENV = 'CUA_SERVE_PASSWORD';
/** Shortest password accepted for a non-loopback bind. */
export const MIN_PASSWORD_LENGTH = 8;

// Creates a fresh random per-launch token: 32 random bytes, base64url (43 characters).
export function createToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

// Creates a fresh per-launch session path, `/s/<22 base64url characters>` (16 random bytes): the
// browser UI, its API calls and media live under it, and the token cookie is limited to it, so
// the browser sends the cookie to no other server on the machine (they cannot guess the path).
export function createSessionPath(): string {
  return `${SESSION_PATH_PREFIX}${crypto.randomBytes(16).toString('base64url')}`;
}

// True for a path createSessionPath could have made (no trailing slash).
export function isSessionPath(value: string): boolean {
  return SESSION_PATH_RE.test(value);
}

// Reads the password of an `Authorization: Basic …` header (the user name is ignored).
export function readBasicPassword(header: string | undefined): string | undefined {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m?.[1]) {
    return undefined;
  }
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

/** Inputs of {@link bindPolicyError}. */
export type BindPolicyInput = {
  /** Interface to bind (`--host`). */
  host: string;
  /** `--allow-remote` given. */
  allowRemote: boolean;
  /** Password from CUA_SERVE_PASSWORD (undefined when unset). */
  password: string | undefined;
};

// Says why a bind must be refused (null when allowed): a non-loopback interface needs both
// --allow-remote and a password, so the API is never open to the network by accident.
export function bindPolicyError(input: BindPolicyInput): string | null {
  if (isLoopbackHost(input.host)) {
    return null;
  }
  if (!input.allowRemote) {
    return (
      `--host ${input.host} is not a loopback address: the review API would be reachable from ` +
      `other machines. Pass --allow-remote and set ${PASSWORD_ENV} to do that on purpose, or ` +
      'keep the default 127.0.0.1 and use an SSH tunnel (ssh -L 8080:127.0.0.1:<port> host).'
    );
  }
  if (!input.password) {
    return (
      `--allow-remote needs a password: set ${PASSWORD_ENV} (at least ${MIN_PASSWORD_LENGTH} ` +
      'characters); browsers will ask for it (HTTP Basic, any user name).'
    );
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    return `${PASSWORD_ENV} is too short (${input.password.length} characters; at least ${MIN_PASSWORD_LENGTH}).`;
  }
  return null;
}
