// The Electron IPC channels of the contract (docs/architecture.md §3, IPC binding): each method
// on its own invoke channel `cua:<method>`, derived from API_METHODS, and one push channel for
// every event. The main process (src/main/ipc.ts) registers these channels and the preload
// (src/preload/bridge.ts) calls them, so both sides name the same channels and a method added
// to the contract has its channel without another list to keep.
import { API_METHODS, type ApiMethod } from './methods';

/** The push channel of contract events (`{ event, payload }`). */
export const EVENT_CHANNEL = 'cua:event';

/** The invoke channel of a method. */
export type MethodChannel<M extends string> = `cua:${M}`;

/** The invoke channel of a method name (the preload builds it for every allow-listed name). */
export function methodChannel<M extends string>(method: M): MethodChannel<M> {
  return `cua:${method}`;
}

/** The invoke channel of every contract method, in the order of API_METHODS. */
export const IPC_CHANNELS: { readonly [M in ApiMethod]: MethodChannel<M> } = Object.freeze(
  Object.fromEntries(API_METHODS.map((method) => [method, methodChannel(method)])) as {
    [M in ApiMethod]: MethodChannel<M>;
  },
);
