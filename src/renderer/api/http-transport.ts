// Transport over the HTTP binding (`cua-annotator serve`): POST /api/<method> with a JSON body,
// Server-Sent Events on GET /api/events. Auth is the HttpOnly session cookie the server sets when
// the page is first loaded with `?token=…`, so requests only need same-origin credentials. The
// cookie is limited to the per-launch path the page is served under (`/s/<random>/`), so by
// default the calls go to paths relative to the page (`api/<method>`), which stay under it.
import { API_EVENTS, type ApiEvent } from '../../shared/contract';
import type { Transport, WireResult } from './transport';
import { isWireResult } from './transport';

/** The EventSource surface the transport uses (injectable for tests). */
export type EventSourceLike = {
  addEventListener: (type: string, listener: (e: { data?: unknown }) => void) => void;
  close: () => void;
  onerror: ((e: unknown) => void) | null;
};

/** Options of {@link httpTransport}. */
export type HttpTransportOptions = {
  /** Origin + path prefix of the server; default: relative to the page (`api/…` beside it). */
  baseUrl?: string;
  /** fetch implementation; default the global fetch. */
  fetchImpl?: typeof fetch;
  /** EventSource factory; default `new EventSource(url)`; null disables events. */
  openEvents?: ((url: string) => EventSourceLike) | null;
};

/** Bodies up to this size are sent with `keepalive`, so a call made as the page closes (the
 * exit flush of typed text) still reaches the server; browsers cap keepalive bodies at 64 KiB
 * in all. */
export const KEEPALIVE_MAX_BODY = 32 * 1024;

function failure(code: string, message: string): WireResult {
  return { ok: false, error: { code, message } };
}

// One event message → [name, payload] (named SSE events, or `{event|type, payload|data}` JSON).
export function parseEventMessage(
  name: string,
  data: unknown,
): { event: ApiEvent; payload: unknown } | null {
  if (typeof data !== 'string') {
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  const known = (n: unknown): n is ApiEvent =>
    typeof n === 'string' && (API_EVENTS as readonly string[]).includes(n);
  if (known(name)) {
    return { event: name, payload: parsed };
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const o = parsed as Record<string, unknown>;
    const n = o.event ?? o.type ?? o.name;
    if (known(n)) {
      return { event: n, payload: 'payload' in o ? o.payload : o.data };
    }
  }
  return null;
}

// A transport over fetch + EventSource.
export function httpTransport(options: HttpTransportOptions = {}): Transport {
  // `${prefix}api/…`: relative to the page unless a base was given
  const prefix = options.baseUrl === undefined ? '' : `${options.baseUrl.replace(/\/$/, '')}/`;
  const doFetch = options.fetchImpl ?? ((input, init) => fetch(input, init));
  const openEvents =
    options.openEvents === undefined
      ? (url: string): EventSourceLike => new EventSource(url) as unknown as EventSourceLike
      : options.openEvents;
  const listeners = new Map<ApiEvent, Set<(payload: unknown) => void>>();
  let source: EventSourceLike | null = null;

  const dispatch = (name: string, data: unknown) => {
    const msg = parseEventMessage(name, data);
    if (!msg) {
      return;
    }
    for (const l of listeners.get(msg.event) ?? []) {
      l(msg.payload);
    }
  };
  const ensureSource = () => {
    if (source || !openEvents) {
      return;
    }
    source = openEvents(`${prefix}api/events`);
    for (const name of API_EVENTS) {
      source.addEventListener(name, (e) => dispatch(name, e.data));
    }
    source.addEventListener('message', (e) => dispatch('message', e.data));
  };
  const maybeClose = () => {
    const active = [...listeners.values()].some((s) => s.size > 0);
    if (!active && source) {
      source.close();
      source = null;
    }
  };

  return {
    kind: 'http',
    invoke: async (method, payload): Promise<WireResult> => {
      let response: Response;
      const body = JSON.stringify(payload ?? {});
      try {
        response = await doFetch(`${prefix}api/${method}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body,
          keepalive: body.length <= KEEPALIVE_MAX_BODY,
        });
      } catch (e) {
        return failure(
          'NETWORK',
          `Cannot reach the server (${e instanceof Error ? e.message : String(e)}). Is \`cua-annotator serve\` still running?`,
        );
      }
      let answer: unknown;
      try {
        answer = await response.json();
      } catch {
        answer = null;
      }
      if (isWireResult(answer)) {
        return answer;
      }
      if (response.status === 401 || response.status === 403) {
        return failure(
          'UNAUTHORIZED',
          'This page is not signed in to the server. Open the URL printed by `cua-annotator serve` again.',
        );
      }
      return failure(
        'BAD_RESPONSE',
        `${method}: unexpected HTTP ${response.status} from the server.`,
      );
    },
    subscribe: (event, listener) => {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      set.add(listener);
      ensureSource();
      return () => {
        set.delete(listener);
        maybeClose();
      };
    },
  };
}
