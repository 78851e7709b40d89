// The preload exposes only `invoke` and `on`, over the contract's allow-lists, through
// contextBridge (electron mocked: no Electron runs here).
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { API_EVENTS, API_METHODS } from '../../src/shared/contract';

const electron = vi.hoisted(() => {
  const listeners = new Map<string, Set<(event: unknown, message: unknown) => void>>();
  return {
    listeners,
    contextBridge: { exposeInMainWorld: vi.fn() },
    ipcRenderer: {
      invoke: vi.fn((channel: string, payload: unknown) =>
        Promise.resolve({ ok: true, value: { channel, payload } }),
      ),
      on: vi.fn((channel: string, listener: (event: unknown, message: unknown) => void) => {
        let set = listeners.get(channel);
        if (!set) {
          set = new Set();
          listeners.set(channel, set);
        }
        set.add(listener);
      }),
      removeListener: vi.fn(
        (channel: string, listener: (event: unknown, message: unknown) => void) => {
          listeners.get(channel)?.delete(listener);
        },
      ),
      send: vi.fn(),
      sendSync: vi.fn(),
    },
  };
});
vi.mock('electron', () => ({
  contextBridge: electron.contextBridge,
  ipcRenderer: electron.ipcRenderer,
}));

type Bridge = {
  invoke: (method: string, payload?: unknown) => Promise<unknown>;
  on: (event: string, listener: (payload: unknown) => void) => () => void;
};

async function loadPreload(): Promise<{ name: string; api: Bridge }> {
  vi.resetModules();
  electron.contextBridge.exposeInMainWorld.mockClear();
  await import('../../src/preload/index');
  expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
  const [name, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as [string, Bridge];
  return { name, api };
}

function push(message: unknown): void {
  for (const listener of electron.listeners.get('cua:event') ?? []) {
    listener({ sender: 'ipc-event-object' }, message);
  }
}

beforeEach(() => {
  electron.ipcRenderer.invoke.mockClear();
  electron.ipcRenderer.on.mockClear();
  electron.ipcRenderer.removeListener.mockClear();
  electron.listeners.clear();
});

describe('preload', () => {
  it('exposes window.api with exactly invoke and on (no ipcRenderer)', async () => {
    const { name, api } = await loadPreload();
    expect(name).toBe('api');
    expect(Object.keys(api).sort()).toEqual(['invoke', 'on']);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.values(api).every((v) => typeof v === 'function')).toBe(true);
    expect(JSON.stringify(Object.getOwnPropertyNames(api))).not.toMatch(/ipc|send/i);
  });

  it('invokes every contract method on its own channel', async () => {
    const { api } = await loadPreload();
    for (const method of API_METHODS) {
      await expect(api.invoke(method, { a: 1 })).resolves.toEqual({
        ok: true,
        value: { channel: `cua:${method}`, payload: { a: 1 } },
      });
    }
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledTimes(API_METHODS.length);
  });

  it('refuses names outside the allow-list without sending IPC', async () => {
    const { api } = await loadPreload();
    const names = [
      'recordings:nuke',
      'event',
      'cua:recordings:list',
      '__proto__',
      'constructor',
      '',
      'RECORDINGS:LIST',
      'recordings:list ',
    ];
    for (const method of names) {
      await expect(api.invoke(method, {})).resolves.toMatchObject({
        ok: false,
        error: { code: 'UNKNOWN_METHOD' },
      });
    }
    await expect(api.invoke(42 as unknown as string)).resolves.toMatchObject({ ok: false });
    expect(electron.ipcRenderer.invoke).not.toHaveBeenCalled();
    for (const event of ['recordings:list', 'cua:event', 'anything', 'toString']) {
      expect(() => api.on(event, () => undefined)).toThrow(/Unknown event/);
    }
    expect(() => api.on('recordings:changed', 'x' as unknown as () => void)).toThrow(/function/);
    expect(electron.ipcRenderer.on).not.toHaveBeenCalled();
  });

  it('delivers allow-listed events to their subscribers only, payload only', async () => {
    const { api } = await loadPreload();
    const changed: unknown[] = [];
    const status: unknown[] = [];
    const offChanged = api.on('recordings:changed', (p) => changed.push(p));
    const offStatus = api.on('recorder:status-changed', (p) => status.push(p));
    expect(electron.ipcRenderer.on).toHaveBeenCalledTimes(1);
    push({ event: 'recordings:changed', payload: { id: 'a' } });
    push({ event: 'recorder:status-changed', payload: { state: 'idle' } });
    push({ event: 'not-an-event', payload: 1 });
    push('garbage');
    push(null);
    expect(changed).toEqual([{ id: 'a' }]);
    expect(status).toEqual([{ state: 'idle' }]);
    offChanged();
    offChanged();
    push({ event: 'recordings:changed', payload: { id: 'b' } });
    expect(changed).toHaveLength(1);
    expect(electron.ipcRenderer.removeListener).not.toHaveBeenCalled();
    offStatus();
    expect(electron.ipcRenderer.removeListener).toHaveBeenCalledTimes(1);
    expect(electron.listeners.get('cua:event')?.size).toBe(0);
    for (const event of API_EVENTS) {
      api.on(event, () => undefined)();
    }
  });
});

describe('item 37: the HUD preload', () => {
  async function loadHudPreload(): Promise<{ name: string; api: Bridge }> {
    vi.resetModules();
    electron.contextBridge.exposeInMainWorld.mockClear();
    await import('../../src/preload/hud');
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [name, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as [string, Bridge];
    return { name, api };
  }

  it('item 37: exposes window.api over the HUD page calls only (its status, pause, resume, stop)', async () => {
    const { name, api } = await loadHudPreload();
    expect(name).toBe('api');
    expect(Object.keys(api).sort()).toEqual(['invoke', 'on']);
    const hudMethods = [
      'recorder:get-status',
      'recorder:pause',
      'recorder:resume',
      'recorder:stop',
    ];
    for (const method of hudMethods) {
      await expect(api.invoke(method, {})).resolves.toMatchObject({ ok: true });
    }
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledTimes(hudMethods.length);
    // every other contract method is refused without any IPC
    for (const method of API_METHODS.filter((m) => !hudMethods.includes(m))) {
      await expect(api.invoke(method, {}), method).resolves.toMatchObject({
        ok: false,
        error: { code: 'UNKNOWN_METHOD' },
      });
    }
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledTimes(hudMethods.length);
    const status: unknown[] = [];
    api.on('recorder:status-changed', (p) => status.push(p));
    push({ event: 'recorder:status-changed', payload: { state: 'paused' } });
    push({ event: 'uploads:progress', payload: { id: 'x' } });
    expect(status).toEqual([{ state: 'paused' }]);
    for (const event of API_EVENTS.filter((e) => e !== 'recorder:status-changed')) {
      expect(() => api.on(event, () => undefined), event).toThrow(/Unknown event/);
    }
  });
});
