// The IPC binding of the service contract (docs/architecture.md §3): one ipcMain.handle per
// contract method on the channel `cua:<method>`, each answering the services' Result envelope
// (never a throw), and one push channel `cua:event` carrying `{ event, payload }` to every window.
// Before dispatching, the sender frame is checked: it must be the top frame of one of our
// windows and show the app's own origin; anything else gets FORBIDDEN without reaching the
// services. Payloads are checked by the dispatcher against the contract's schemas
// (METHOD_VALIDATORS), which answers INVALID_PAYLOAD naming the field.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import type { ApiEvent, ApiEvents, ApiMethod } from '../shared/contract';
import { err, type Result } from '../shared/result';
import { isAppUrl } from './window-security';

/** The push channel of contract events. */
export const EVENT_CHANNEL = 'cua:event';

/** The invoke channel of a method (the preload builds the same name, src/preload/bridge.ts). */
export type MethodChannel<M extends ApiMethod> = `cua:${M}`;

/**
 * The IPC channel of every contract method. Keyed by the contract's method names with each value
 * forced to `cua:<method>`: a method added to the contract without its channel here, or a
 * misspelt one, fails to compile.
 */
export const IPC_CHANNELS: { readonly [M in ApiMethod]: MethodChannel<M> } = {
  'recordings:list': 'cua:recordings:list',
  'recordings:get': 'cua:recordings:get',
  'recordings:update-task': 'cua:recordings:update-task',
  'recordings:delete': 'cua:recordings:delete',
  'recordings:check': 'cua:recordings:check',
  'edits:apply': 'cua:edits:apply',
  'edits:undo': 'cua:edits:undo',
  'edits:redo': 'cua:edits:redo',
  'labels:save': 'cua:labels:save',
  'reviews:set-status': 'cua:reviews:set-status',
  'keyframes:compute': 'cua:keyframes:compute',
  'axtree:get': 'cua:axtree:get',
  'exports:run': 'cua:exports:run',
  'privacy:scan': 'cua:privacy:scan',
  'privacy:redact': 'cua:privacy:redact',
  'privacy:redactions': 'cua:privacy:redactions',
  'uploads:defaults': 'cua:uploads:defaults',
  'uploads:enqueue': 'cua:uploads:enqueue',
  'uploads:list': 'cua:uploads:list',
  'uploads:retry': 'cua:uploads:retry',
  'uploads:cancel': 'cua:uploads:cancel',
  'replay:start': 'cua:replay:start',
  'replay:status': 'cua:replay:status',
  'replay:cancel': 'cua:replay:cancel',
  'recorder:start': 'cua:recorder:start',
  'recorder:pause': 'cua:recorder:pause',
  'recorder:resume': 'cua:recorder:resume',
  'recorder:stop': 'cua:recorder:stop',
  'recorder:discard': 'cua:recorder:discard',
  'recorder:get-status': 'cua:recorder:get-status',
  'system:health': 'cua:system:health',
  'settings:get': 'cua:settings:get',
  'settings:set': 'cua:settings:set',
  'team:status': 'cua:team:status',
  'team:sign-in': 'cua:team:sign-in',
  'team:change-password': 'cua:team:change-password',
  'team:sign-out': 'cua:team:sign-out',
  'team:submit': 'cua:team:submit',
  'team:cancel-pending': 'cua:team:cancel-pending',
  'team:submissions': 'cua:team:submissions',
  'team:review-next': 'cua:team:review-next',
  'team:verdict': 'cua:team:verdict',
  'team:tasks': 'cua:team:tasks',
  'team:claim-task': 'cua:team:claim-task',
  'cot:get': 'cua:cot:get',
  'cot:edit-step': 'cua:cot:edit-step',
  'cot:edit-summary': 'cua:cot:edit-summary',
};

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
