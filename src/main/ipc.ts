// The IPC binding of the service contract (docs/architecture.md §3): one ipcMain.handle per
// contract method on the channel `cua:<method>`, each answering the services' Result envelope
// (never a throw), and one push channel `cua:event` carrying `{ event, payload }` to every window.
// Before dispatching, the sender frame is checked: it must be the top frame of one of our
// windows and show the app's own origin; anything else gets FORBIDDEN without reaching the
// services. Payloads are checked by the dispatcher against the contract's schemas
// (METHOD_VALIDATORS), which answers INVALID_PAYLOAD naming the field.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { ApiEvent, ApiEvents, ApiMethod } from '../shared/contract';
import { EVENT_CHANNEL, IPC_CHANNELS } from '../shared/contract/ipc';
import { err, type Result } from '../shared/result';
import { isAppUrl } from './window-security';

// The channel names (`cua:<method>`, `cua:event`) come from the contract, as the preload's do.
export { EVENT_CHANNEL, IPC_CHANNELS, type MethodChannel } from '../shared/contract/ipc';

/** What a push over {@link EVENT_CHANNEL} carries. */
export type EventMessage<E extends ApiEvent = ApiEvent> = { event: E; payload: ApiEvents[E] };

/** What the IPC binding needs of the services: their one dispatcher. */
export type Dispatcher = {
  dispatch(method: string, payload: unknown): Promise<Result<unknown>>;
};

/** What a sender check looks at: the sending WebContents and frame. */
export type IpcSender = Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>;

/** Options of {@link registerIpc}. */
export type RegisterIpcOptions = {
  /** True when the call may reach the services (see {@link createSenderCheck}). */
  isTrustedSender: (event: IpcSender) => boolean;
  /** Told about each refused call (for the log); default: nothing. */
  onRefused?: (method: ApiMethod, reason: string) => void;
  /**
   * The methods a trusted sender may call (the HUD: src/shared/contract/hud.ts), or null for
   * every method of the contract (the main window); default: every method for every sender.
   */
  methodsOf?: (event: IpcSender) => ReadonlySet<string> | null;
};

/** Options of {@link createSenderCheck}. */
export type SenderCheckOptions = {
  /** The app's origin (`cua-app://app`, or the dev server's). */
  appOrigin: string;
  /** True for the WebContents of one of the app's own windows. */
  isOwnWebContents: (contents: WebContents) => boolean;
};

// The sender check of the app: the frame exists (not navigated away or destroyed), is the top
// frame of its page (no iframe), shows the app's origin, and belongs to one of our windows.
export function createSenderCheck(options: SenderCheckOptions): (event: IpcSender) => boolean {
  return (event) => {
    try {
      const frame = event.senderFrame;
      if (frame === null || frame.isDestroyed() || frame.detached || frame.parent !== null) {
        return false;
      }
      if (!isAppUrl(frame.url, options.appOrigin)) {
        return false;
      }
      if (!options.isOwnWebContents(event.sender)) {
        return false;
      }
      const top = event.sender.mainFrame;
      return top.processId === frame.processId && top.routingId === frame.routingId;
    } catch {
      // a frame torn down while we look at it throws: it is not trusted
      return false;
    }
  };
}

/** The FORBIDDEN envelope of a refused call. */
function forbidden(method: ApiMethod): Result<unknown> {
  return err({
    code: 'FORBIDDEN',
    message: `${method} refused: the call did not come from the top frame of an app window.`,
    details: { method },
  });
}

/** The FORBIDDEN envelope of a method outside the sending window's allow-list. */
function notForThisWindow(method: ApiMethod): Result<unknown> {
  return err({
    code: 'FORBIDDEN',
    message: `${method} refused: this window (the recording HUD) may not call it.`,
    details: { method },
  });
}

// Registers one handler per contract method; returns a function removing them again.
export function registerIpc(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>,
  services: Dispatcher,
  options: RegisterIpcOptions,
): () => void {
  const refused = options.onRefused ?? (() => undefined);
  const methods = Object.keys(IPC_CHANNELS) as ApiMethod[];
  for (const method of methods) {
    ipcMain.handle(
      IPC_CHANNELS[method],
      async (event: IpcMainInvokeEvent, payload: unknown): Promise<Result<unknown>> => {
        if (!options.isTrustedSender(event)) {
          refused(method, 'untrusted sender frame');
          return forbidden(method);
        }
        const allowed = options.methodsOf?.(event) ?? null;
        if (allowed !== null && !allowed.has(method)) {
          refused(method, "outside the sending window's methods");
          return notForThisWindow(method);
        }
        try {
          return await services.dispatch(method, payload);
        } catch (e) {
          // dispatch never throws; this guards the binding against a broken dispatcher anyway
          return err({
            code: 'INTERNAL',
            message: `${method} failed inside the app: ${e instanceof Error ? e.message : String(e)}`,
          });
        }
      },
    );
  }
  return () => {
    for (const method of methods) {
      ipcMain.removeHandler(IPC_CHANNELS[method]);
    }
  };
}

/** A window that can receive pushes. */
export type EventTarget = { webContents: Pick<WebContents, 'send' | 'isDestroyed'> };

// Sends a contract event to every live window.
export function broadcastEvent<E extends ApiEvent>(
  windows: readonly EventTarget[],
  event: E,
  payload: ApiEvents[E],
): void {
  const message: EventMessage<E> = { event, payload };
  for (const win of windows) {
    if (!win.webContents.isDestroyed()) {
      win.webContents.send(EVENT_CHANNEL, message);
    }
  }
}
