// The IPC binding: one handler per contract method, envelopes for bad payloads, refused senders.
import type { IpcMainInvokeEvent, WebContents, WebFrameMain } from 'electron';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createServices } from '../../src/services/create-services';
import { API_EVENTS, API_METHODS } from '../../src/shared/contract';
import {
  broadcastEvent,
  createSenderCheck,
  EVENT_CHANNEL,
  IPC_CHANNELS,
  registerIpc,
  type Dispatcher,
  type IpcSender,
} from '../../src/main/ipc';
import { EVENT_CHANNEL as PRELOAD_EVENT_CHANNEL, methodChannel } from '../../src/preload/bridge';
import { tempLibrary } from '../helpers/library';

type Handler = (event: IpcMainInvokeEvent, ...args: unknown[]) => Promise<unknown>;

/** A fake ipcMain recording its handlers. */
function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    handle: (channel: string, handler: Handler) => {
      if (handlers.has(channel)) {
        throw new Error(`second handler for ${channel}`);
      }
      handlers.set(channel, handler);
    },
    removeHandler: (channel: string) => {
      handlers.delete(channel);
    },
  };
}

type FakeFrame = {
  url: string;
  parent: FakeFrame | null;
  processId: number;
  routingId: number;
  detached: boolean;
  isDestroyed: () => boolean;
};

function frame(url: string, ids = { processId: 4, routingId: 1 }, parent: FakeFrame | null = null) {
  const f: FakeFrame = { url, parent, ...ids, detached: false, isDestroyed: () => false };
  return f;
}

/** One app window's contents, showing `url` in its top frame. */
function contents(url = 'cua-app://app/index.html', ids = { processId: 4, routingId: 1 }) {
  const mainFrame = frame(url, ids);
  return { mainFrame } as unknown as WebContents & { mainFrame: FakeFrame };
}

function invokeEvent(sender: WebContents, senderFrame: FakeFrame | null): IpcMainInvokeEvent {
  return { sender, senderFrame: senderFrame as unknown as WebFrameMain } as IpcMainInvokeEvent;
}

const ours = contents();
const check = createSenderCheck({
  appOrigin: 'cua-app://app',
  isOwnWebContents: (c) => c === ours,
});
const trusted = invokeEvent(ours, ours.mainFrame);

const t = tempLibrary();
const services = createServices(t.lib, { appVersion: '0.0.0-test' });
afterAll(async () => {
  await services.close();
  t.cleanup();
});

describe('IPC binding', () => {
  it('registers exactly one handler per contract method, on the channel the preload calls', () => {
    const ipc = fakeIpcMain();
    registerIpc(ipc, services, { isTrustedSender: check });
    expect([...ipc.handlers.keys()].sort()).toEqual(API_METHODS.map((m) => `cua:${m}`).sort());
    expect(Object.keys(IPC_CHANNELS).sort()).toEqual([...API_METHODS].sort());
    for (const method of API_METHODS) {
      expect(IPC_CHANNELS[method]).toBe(methodChannel(method));
    }
    expect(EVENT_CHANNEL).toBe(PRELOAD_EVENT_CHANNEL);
    // event names never collide with method channels
    expect(ipc.handlers.has(EVENT_CHANNEL)).toBe(false);
  });

  it('a method without its channel, or with a misspelt one, fails to compile', () => {
    const { 'recordings:list': dropped, ...partial } = IPC_CHANNELS;
    // @ts-expect-error a contract method is missing from the record
    const missing: typeof IPC_CHANNELS = partial;
    const typo = { 'recordings:get': 'cua:recording:get' } as const;
    // @ts-expect-error the channel must be `cua:<method>`
    const misspelt: typeof IPC_CHANNELS = { ...IPC_CHANNELS, ...typo };
    expect([dropped, Object.keys(missing).length, misspelt['recordings:get']]).toEqual([
      'cua:recordings:list',
      API_METHODS.length - 1,
      'cua:recording:get',
    ]);
  });

  it('the disposer removes every handler', () => {
    const ipc = fakeIpcMain();
    const dispose = registerIpc(ipc, services, { isTrustedSender: check });
    dispose();
    expect(ipc.handlers.size).toBe(0);
  });

  it('answers a valid call with the real services and an invalid payload with an envelope', async () => {
    const ipc = fakeIpcMain();
    registerIpc(ipc, services, { isTrustedSender: check });
    const list = ipc.handlers.get('cua:recordings:list')!;
    await expect(list(trusted, {})).resolves.toEqual({ ok: true, value: { total: 0, items: [] } });

    const get = ipc.handlers.get('cua:recordings:get')!;
    const bad = (await get(trusted, { id: 42 })) as {
      ok: boolean;
      error: { code: string; message: string; details: { field: string } };
    };
    expect(bad.ok).toBe(false);
    expect(bad.error.code).toBe('INVALID_PAYLOAD');
    expect(bad.error.details.field).toBe('id');
    // no payload at all, and a payload of the wrong type: envelopes, not throws
    await expect(get(trusted, undefined)).resolves.toMatchObject({
      ok: false,
      error: { code: 'INVALID_PAYLOAD' },
    });
    await expect(
      ipc.handlers.get('cua:recorder:start')!(trusted, { task: '   ' }),
    ).resolves.toMatchObject({ ok: false, error: { code: 'INVALID_PAYLOAD' } });
    await expect(get(trusted, 'recordings')).resolves.toMatchObject({ ok: false });
  });

  it('turns a throwing dispatcher into an INTERNAL envelope', async () => {
    const ipc = fakeIpcMain();
    const broken: Dispatcher = {
      dispatch: () => Promise.reject(new Error('boom')),
    };
    registerIpc(ipc, broken, { isTrustedSender: check });
    await expect(ipc.handlers.get('cua:uploads:list')!(trusted, {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'INTERNAL' },
    });
  });

  it('refuses foreign senders with FORBIDDEN before reaching the services', async () => {
    const ipc = fakeIpcMain();
    const dispatch = vi.fn((method: string, payload: unknown) =>
      services.dispatch(method, payload),
    );
    const refused: string[] = [];
    registerIpc(
      ipc,
      { dispatch },
      { isTrustedSender: check, onRefused: (method) => refused.push(method) },
    );
    const handler = ipc.handlers.get('cua:recordings:list')!;
    const sub = frame('cua-app://app/index.html', { processId: 4, routingId: 2 }, ours.mainFrame);
    const evilTop = contents('https://evil.example/');
    const strangerWindow = contents('cua-app://app/index.html', { processId: 9, routingId: 1 });
    const destroyed = { ...ours.mainFrame, isDestroyed: () => true };
    const foreign: [string, IpcMainInvokeEvent][] = [
      ['other origin', invokeEvent(ours, frame('https://evil.example/index.html'))],
      ['file URL', invokeEvent(ours, frame('file:///work/out/renderer/index.html'))],
      ['look-alike host', invokeEvent(ours, frame('cua-app://app.evil/index.html'))],
      ['media origin', invokeEvent(ours, frame('cua-media://media/x/video'))],
      ['subframe of our page', invokeEvent(ours, sub)],
      ['not one of our windows', invokeEvent(evilTop, evilTop.mainFrame)],
      ['app URL in a window not ours', invokeEvent(strangerWindow, strangerWindow.mainFrame)],
      ['no frame (navigated away)', invokeEvent(ours, null)],
      ['destroyed frame', invokeEvent(ours, destroyed)],
      [
        'a top frame that is not the window main frame',
        invokeEvent(ours, frame('cua-app://app/index.html', { processId: 4, routingId: 7 })),
      ],
    ];
    for (const [what, event] of foreign) {
      const result = await handler(event, {});
      expect(result, what).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    }
    expect(dispatch).not.toHaveBeenCalled();
    expect(refused).toHaveLength(foreign.length);
    // and the trusted frame gets through
    await expect(handler(trusted, {})).resolves.toMatchObject({ ok: true });
    expect(dispatch).toHaveBeenCalledTimes(1);
  });

  it('a frame whose URL throws on access is not trusted', () => {
    const event = {
      sender: ours,
      get senderFrame(): never {
        throw new Error('Render frame was disposed before WebFrameMain could be accessed');
      },
    } as unknown as IpcSender;
    expect(check(event)).toBe(false);
  });

  it('pushes events to every live window on one channel', () => {
    const live = { webContents: { send: vi.fn(), isDestroyed: () => false } };
    const gone = { webContents: { send: vi.fn(), isDestroyed: () => true } };
    broadcastEvent([live, gone], 'recordings:changed', { id: 'abc' });
    expect(live.webContents.send).toHaveBeenCalledWith(EVENT_CHANNEL, {
      event: 'recordings:changed',
      payload: { id: 'abc' },
    });
    expect(gone.webContents.send).not.toHaveBeenCalled();
    expect(API_EVENTS).toContain('recorder:status-changed');
  });
});

describe('item 37: windows limited to their own methods', () => {
  it('item 37: a window given a smaller allow-list (the HUD) gets FORBIDDEN for every other method', async () => {
    const hud = contents('cua-app://app/index.html#/hud', { processId: 5, routingId: 2 });
    const both = createSenderCheck({
      appOrigin: 'cua-app://app',
      isOwnWebContents: (c) => c === ours || c === hud,
    });
    const hudMethods = new Set(['recorder:get-status', 'recorder:stop']);
    const ipc = fakeIpcMain();
    registerIpc(ipc, services, {
      isTrustedSender: both,
      methodsOf: (event) => (event.sender === hud ? hudMethods : null),
    });
    const fromHud = invokeEvent(hud, hud.mainFrame);
    await expect(ipc.handlers.get('cua:recorder:get-status')!(fromHud, {})).resolves.toMatchObject({
      ok: true,
    });
    for (const method of ['recordings:list', 'settings:set', 'exports:run']) {
      await expect(ipc.handlers.get(`cua:${method}`)!(fromHud, {}), method).resolves.toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN' },
      });
    }
    // the main window keeps every method
    await expect(ipc.handlers.get('cua:recordings:list')!(trusted, {})).resolves.toMatchObject({
      ok: true,
    });
  });
});
