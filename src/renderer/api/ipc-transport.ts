// Transport over the preload bridge (`window.api`) in the Electron app.
import type { Transport, WireResult } from './transport';
import { isWireResult } from './transport';

/** What the preload exposes as `window.api` (docs/architecture.md §3). */
export type WindowApi = {
  invoke: (method: string, payload: unknown) => Promise<unknown>;
  on: (event: string, listener: (payload: unknown) => void) => () => void;
};

// The preload bridge when the page runs inside the app, else undefined.
export function findWindowApi(): WindowApi | undefined {
  if (typeof window === 'undefined') {
    return undefined;
  }
  const api = (window as unknown as { api?: unknown }).api;
  if (
    typeof api === 'object' &&
    api !== null &&
    typeof (api as WindowApi).invoke === 'function' &&
    typeof (api as WindowApi).on === 'function'
  ) {
    return api as WindowApi;
  }
  return undefined;
}

// A transport over `window.api.invoke` / `window.api.on`.
export function ipcTransport(bridge: WindowApi): Transport {
  return {
    kind: 'ipc',
    invoke: async (method, payload): Promise<WireResult> => {
      try {
        const result = await bridge.invoke(method, payload);
        if (isWireResult(result)) {
          return result;
        }
        return {
          ok: false,
          error: { code: 'BAD_RESPONSE', message: `${method}: the app answered without a Result.` },
        };
      } catch (e) {
        return {
          ok: false,
          error: {
            code: 'NETWORK',
            message: `${method}: ${e instanceof Error ? e.message : String(e)}`,
          },
        };
      }
    },
    subscribe: (event, listener) => bridge.on(event, listener),
  };
}
