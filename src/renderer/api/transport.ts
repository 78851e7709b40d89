// What the api client needs from a transport: invoke a method, subscribe to an event.
import type { ApiEvent, ApiMethod } from '../../shared/contract';

/** A Result envelope as it arrives over the wire (codes are checked by the client). */
export type WireResult =
  | { ok: true; value: unknown }
  | {
      ok: false;
      error: { code: string; message: string; details?: Record<string, unknown>; fix?: string };
    };

/** A way to reach the services (Electron IPC or HTTP). */
export type Transport = {
  /** Human name for diagnostics (`ipc`, `http`). */
  kind: 'ipc' | 'http' | 'fake';
  /** Calls one method; never throws for service errors (they come back as `ok: false`). */
  invoke: (method: ApiMethod, payload: unknown) => Promise<WireResult>;
  /** Subscribes to one push event; returns the unsubscribe function. */
  subscribe: (event: ApiEvent, listener: (payload: unknown) => void) => () => void;
};

// True when a parsed JSON body has the shape of a Result envelope.
export function isWireResult(body: unknown): body is WireResult {
  if (typeof body !== 'object' || body === null) {
    return false;
  }
  const b = body as Record<string, unknown>;
  if (b.ok === true) {
    return 'value' in b;
  }
  if (b.ok === false) {
    const e = b.error as Record<string, unknown> | null | undefined;
    return typeof e === 'object' && e !== null && typeof e.code === 'string';
  }
  return false;
}
