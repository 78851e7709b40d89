// The renderer's client of a team hub, when the hub serves this page (docs/team-mode.md §15):
// POST /api/<method> on the page's own origin with a JSON body; the session is the hub's
// HttpOnly cookie, sent by the browser (same-origin), never a token in JS. The browser adds the
// Origin header the hub's CSRF guard demands. Answers are the hub's Result envelope; values are
// checked against the contract's output schemas.
import * as v from 'valibot';
import {
  HUB_METHOD_SCHEMAS,
  HUB_PAGE_META,
  type HubInput,
  type HubMethod,
  type HubOutput,
} from '../../shared/contract/hub';
import { ApiError, apiErrorFromWire } from './api-error';
import { isWireResult, type WireResult } from './transport';

/** A way to call the hub's methods (HTTP on the page's origin, or a fake in tests). */
export type HubTransport = {
  kind: 'hub' | 'fake';
  /** Calls one method; never throws for the hub's errors (they come back as `ok: false`). */
  invoke: (method: HubMethod, payload: unknown) => Promise<WireResult>;
};

/** Typed calls of every hub method. */
export type HubClient = {
  transportKind: HubTransport['kind'];
  /** Calls a method; resolves with its output or rejects with an {@link ApiError}. */
  call: <M extends HubMethod>(method: M, input: HubInput<M>) => Promise<HubOutput<M>>;
};

// True when the page was served by a team hub (it adds HUB_PAGE_META to index.html).
export function isHubPage(doc: Document | undefined = globalThis.document): boolean {
  const meta = doc?.querySelector(`meta[name="${HUB_PAGE_META.name}"]`);
  return meta?.getAttribute('content') === HUB_PAGE_META.content;
}

function failure(code: string, message: string): WireResult {
  return { ok: false, error: { code, message } };
}

// The transport over fetch to the page's own hub.
export function hubTransport(fetchImpl: typeof fetch = (i, init) => fetch(i, init)): HubTransport {
  return {
    kind: 'hub',
    invoke: async (method, payload) => {
      let response: Response;
      try {
        response = await fetchImpl(`/api/${method}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'x-cua-client': 'web',
          },
          body: JSON.stringify(payload ?? {}),
        });
      } catch (e) {
        return failure(
          'NETWORK',
          `Cannot reach the hub (${e instanceof Error ? e.message : String(e)}). Check the ` +
            'network, or ask the admin whether the hub runs.',
        );
      }
      let answer: unknown;
      try {
        answer = await response.json();
      } catch {
        answer = null;
      }
      return isWireResult(answer)
        ? answer
        : failure('BAD_RESPONSE', `${method}: unexpected HTTP ${response.status} from the hub.`);
    },
  };
}

// A client over one transport.
export function createHubClient(transport: HubTransport): HubClient {
  return {
    transportKind: transport.kind,
    call: async <M extends HubMethod>(method: M, input: HubInput<M>) => {
      const result = await transport.invoke(method, input);
      if (!result.ok) {
        throw apiErrorFromWire(result.error);
      }
      const checked = v.safeParse(HUB_METHOD_SCHEMAS[method].output, result.value);
      if (!checked.success) {
        throw new ApiError(
          'BAD_RESPONSE',
          `${method}: the hub answered in a shape this page does not know ` +
            `(${checked.issues[0]?.message ?? 'invalid'}); reload the page.`,
        );
      }
      return checked.output;
    },
  };
}

let current: HubClient | null = null;

// The hub client of this page (created on first use).
export function getHubClient(): HubClient {
  current ??= createHubClient(hubTransport());
  return current;
}

// Replaces the hub client (tests); null goes back to the default.
export function setHubClient(client: HubClient | null): void {
  current = client;
}
