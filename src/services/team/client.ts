// The team client: a typed HTTP client of the hub's contract (src/shared/contract/hub.ts) for the
// app and the CLI. It talks HTTP only (services never import src/hub): every answer is the
// Result envelope, a failure becomes the hub's coded AppError, and a value is checked against the
// method's output schema. docs/team-mode.md §12.
import {
  HUB_METHOD_SCHEMAS,
  type HubInput,
  type HubMethod,
  type HubOutput,
} from '../../shared/contract/hub';
import { validateWith } from '../../shared/contract/validators';
import { AppError, ERROR_CODES, type ErrorCode } from '../../shared/errors';

/** Options of {@link createHubClient}. */
export type HubClientOptions = {
  /** The hub's address, `http(s)://host:port` (a path prefix is kept: behind a proxy). */
  url: string;
  /** An API token (`cuah_…`) sent as Bearer. */
  token?: string;
  /** Which client this is, for the hub's audit log. */
  client?: 'cli' | 'app';
  /** Time limit of one call, ms (default 30 s). */
  timeoutMs?: number;
};

/** A hub client; `session` holds the cookie of a password sign-in until logout. */
export type HubClient = {
  url: string;
  call: <M extends HubMethod>(method: M, input: HubInput<M>) => Promise<HubOutput<M>>;
};

/** The normalised hub address (no trailing slash), or USAGE for anything but http(s). */
export function normaliseHubUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AppError(
      'USAGE',
      `"${url}" is not a hub address`,
      { url },
      'Give the address the hub printed, e.g. https://hub.example.org or http://127.0.0.1:8470.',
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new AppError(
      'USAGE',
      `a hub address starts with https:// or http:// (got "${url}")`,
      { url },
      'Give the address the hub printed.',
    );
  }
  if (u.username || u.password || u.search || u.hash) {
    throw new AppError(
      'USAGE',
      `a hub address carries no user, password, query or fragment (got "${url}")`,
      { url },
      'Give only the scheme, host, port (and path, behind a proxy); the user goes in --user.',
    );
  }
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

/** A client of the hub at `options.url`. A password sign-in (auth:login) keeps its session
 * cookie inside this client for the calls that follow (a CLI login needs it only briefly). */
export function createHubClient(options: HubClientOptions): HubClient {
  const url = normaliseHubUrl(options.url);
  const origin = new URL(url).origin;
  let sessionCookie: string | undefined;
  return {
    url,
    call: async (method, input) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-cua-client': options.client ?? 'cli',
      };
      if (options.token) {
        headers.authorization = `Bearer ${options.token}`;
      } else if (sessionCookie) {
        // a cookie call must name the hub's origin (its CSRF guard)
        headers.cookie = sessionCookie;
        headers.origin = origin;
      }
      let res: Response;
      try {
        res = await fetch(`${url}/api/${method}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(input),
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
          redirect: 'error',
        });
      } catch (e) {
        const cause = (e as Error & { cause?: Error & { code?: string } }).cause;
        const reason = cause?.code ?? cause?.message ?? (e as Error).message;
        throw new AppError(
          'HUB_UNREACHABLE',
          `cannot reach the hub at ${url}: ${reason}`,
          { url, reason },
          /CERT|certificate|self.signed/i.test(reason)
            ? 'The hub’s certificate is not trusted here: use one a public CA signed, or ' +
                'point NODE_EXTRA_CA_CERTS at its CA certificate (PEM).'
            : 'Check the address and that the hub runs (cua-annotator hub); behind a proxy, ' +
                'that the proxy forwards to it.',
        );
      }
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new AppError(
          'HUB_UNREACHABLE',
          `${url} answered ${res.status} with something other than the hub's JSON`,
          { url, status: res.status },
          'Check the address: it must be the hub (or the proxy in front of it), not another site.',
        );
      }
      const envelope = body as {
        ok?: unknown;
        value?: unknown;
        error?: { code?: unknown; message?: unknown; details?: unknown; fix?: unknown };
      };
      if (envelope.ok === true) {
        const checked = validateWith(HUB_METHOD_SCHEMAS[method].output, envelope.value);
        if (!checked.ok) {
          throw new AppError(
            'HUB_UNREACHABLE',
            `the hub's answer to ${method} does not fit this version: ${checked.field} ` +
              checked.message,
            { url, method },
            'Use the same cua-annotator version as the hub.',
          );
        }
        const cookie = res.headers.getSetCookie()[0]?.split(';')[0];
        if (cookie) {
          sessionCookie = cookie.endsWith('=') ? undefined : cookie;
        }
        return checked.value;
      }
      const error = envelope.error ?? {};
      throw new AppError(
        isErrorCode(error.code) ? error.code : 'INTERNAL',
        typeof error.message === 'string' ? error.message : `the hub answered ${res.status}`,
        typeof error.details === 'object' && error.details !== null
          ? (error.details as Record<string, unknown>)
          : undefined,
        typeof error.fix === 'string' ? error.fix : undefined,
      );
    },
  };
}
