// A scripted api client for store tests: handlers per method, every call recorded, events
// emitted by hand, and answers that can be held back to test ordering.
import type { ApiEvent, ApiMethod } from '../../../src/shared/contract';
import { createApiClient, setApiClient, type ApiClient } from '../../../src/renderer/api';
import type { Transport, WireResult } from '../../../src/renderer/api';

type Handler = (payload: unknown) => unknown;

/** One recorded call. */
export type RecordedCall = { method: ApiMethod; payload: unknown };

/** The fake and its controls. */
export type FakeApi = {
  client: ApiClient;
  calls: RecordedCall[];
  /** Answers `method` with the handler's value (a thrown `{code,message}` becomes an error). */
  on: (method: ApiMethod, handler: Handler) => void;
  /** Holds every answer until `release()` is called (calls are still recorded). */
  hold: () => void;
  /** Releases held answers in order (or newest first); returns once they settled. */
  release: (order?: 'sent' | 'reversed') => Promise<void>;
  /** Pushes an event to subscribers. */
  emit: (event: ApiEvent, payload: unknown) => void;
  /** Methods called, in order. */
  methods: () => ApiMethod[];
};

/** Thrown by handlers to answer `{ ok: false, error }`. */
export class FakeFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly fix?: string,
  ) {
    super(message);
  }
}

// Installs a fake api client for the current test (setApiClient) and returns its controls.
export function installFakeApi(): FakeApi {
  const handlers = new Map<ApiMethod, Handler>();
  const calls: RecordedCall[] = [];
  const listeners = new Map<ApiEvent, Set<(p: unknown) => void>>();
  let held: (() => void)[] | null = null;
  const answer = (method: ApiMethod, payload: unknown): WireResult => {
    const h = handlers.get(method);
    if (!h) {
      return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `no fake for ${method}` } };
    }
    try {
      return { ok: true, value: h(payload) };
    } catch (e) {
      if (e instanceof FakeFailure) {
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
      throw e;
    }
  };
  const transport: Transport = {
    kind: 'fake',
    invoke: (method, payload) => {
      calls.push({ method, payload });
      // answer from the state at call time, like a server would
      const result = answer(method, payload);
      if (held) {
        const queue = held;
        return new Promise((resolve) => queue.push(() => resolve(result)));
      }
      return Promise.resolve(result);
    },
    subscribe: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
  };
  const client = createApiClient(transport);
  setApiClient(client);
  return {
    client,
    calls,
    on: (method, handler) => handlers.set(method, handler),
    hold: () => {
      held = [];
    },
    release: async (order = 'sent') => {
      const queue = order === 'reversed' ? [...(held ?? [])].reverse() : (held ?? []);
      held = null;
      for (const r of queue) {
        r();
        await flush();
      }
      await flush();
    },
    emit: (event, payload) => {
      for (const l of listeners.get(event) ?? []) {
        l(payload);
      }
    },
    methods: () => calls.map((c) => c.method),
  };
}

// Lets pending promise callbacks run.
export async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await Promise.resolve();
  }
}
