// What the preload exposes to the renderer (docs/architecture.md §3, IPC binding): `invoke` and
// `on`, over the contract's allow-lists only (the HUD's preload: the HUD's part of them). A name outside them is refused here, without any
// IPC; the renderer never sees ipcRenderer, the IPC event object or the sender. The channel names
// (`cua:<method>`, `cua:event`) come from src/shared/contract/ipc.ts, as the main process's do.
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import { EVENT_CHANNEL, methodChannel } from '../shared/contract/ipc';
import { API_EVENTS, API_METHODS } from '../shared/contract/methods';
import { err, type Result } from '../shared/result';

/** The name the bridge is exposed under: `window.api` (src/renderer/api/ipc-transport.ts). */
export const BRIDGE_NAME = 'api';

// The channel names, shared with the main process (src/main/ipc.ts).
export { EVENT_CHANNEL, methodChannel } from '../shared/contract/ipc';

/** What `window.api` offers. */
export type Bridge = {
  /** Calls a contract method; resolves to its Result envelope. */
  invoke: (method: string, payload?: unknown) => Promise<unknown>;
  /** Subscribes to a contract event; returns the unsubscribe function. */
  on: (event: string, listener: (payload: unknown) => void) => () => void;
};

/** The methods and events a bridge lets through (a window's allow-lists). */
export type BridgeAllowList = { methods: readonly string[]; events: readonly string[] };

/** The main window's allow-lists: the whole contract. */
export const FULL_ALLOW_LIST: BridgeAllowList = { methods: API_METHODS, events: API_EVENTS };

/** The envelope of a method outside the allow-list (no IPC is sent for it). */
function unknownMethod(method: unknown): Result<never> {
  const name = String(method).slice(0, 120);
  return err({
    code: 'UNKNOWN_METHOD',
    message: `Unknown method ${JSON.stringify(name)}: the app answers only the contract's methods.`,
    details: { method: name },
  });
}

function isEventMessage(message: unknown): message is { event: string; payload: unknown } {
  return (
    typeof message === 'object' &&
    message !== null &&
    typeof (message as { event?: unknown }).event === 'string'
  );
}

// Builds the bridge over the renderer's IPC, letting through the names of `allow` only (default
// the whole contract); one 'cua:event' listener serves every subscriber and is removed when the
// last one unsubscribes.
export function createBridge(
  ipc: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>,
  allow: BridgeAllowList = FULL_ALLOW_LIST,
): Bridge {
  const METHODS: ReadonlySet<string> = new Set(allow.methods);
  const EVENTS: ReadonlySet<string> = new Set(allow.events);
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let count = 0;
  const onMessage = (_event: IpcRendererEvent, message: unknown): void => {
    if (!isEventMessage(message) || !EVENTS.has(message.event)) {
      return;
    }
    for (const listener of [...(listeners.get(message.event) ?? [])]) {
      try {
        listener(message.payload);
      } catch (e) {
        // one failing listener must not starve the others; the error still reaches the console
        setTimeout(() => {
          throw e;
        }, 0);
      }
    }
  };
  return Object.freeze({
    invoke: (method: string, payload?: unknown): Promise<unknown> => {
      if (typeof method !== 'string' || !METHODS.has(method)) {
        return Promise.resolve(unknownMethod(method));
      }
      return ipc.invoke(methodChannel(method), payload);
    },
    on: (event: string, listener: (payload: unknown) => void): (() => void) => {
      if (typeof event !== 'string' || !EVENTS.has(event)) {
        throw new TypeError(`Unknown event ${JSON.stringify(String(event).slice(0, 120))}`);
      }
      if (typeof listener !== 'function') {
        throw new TypeError(`The listener of ${event} must be a function`);
      }
      // a wrapper per subscription: subscribing the same function twice gives two subscriptions
      const subscription = (payload: unknown): void => listener(payload);
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      set.add(subscription);
      count += 1;
      if (count === 1) {
        ipc.on(EVENT_CHANNEL, onMessage);
      }
      let subscribed = true;
      return () => {
        if (!subscribed) {
          return;
        }
        subscribed = false;
        listeners.get(event)?.delete(subscription);
        count -= 1;
        if (count === 0) {
          ipc.removeListener(EVENT_CHANNEL, onMessage);
        }
      };
    },
  });
}
