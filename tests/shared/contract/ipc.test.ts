// The IPC channels derived from the contract: one per method of API_METHODS, the main process
// registers exactly those and the preload calls exactly those (electron is not loaded: the
// bridge and the binding take a fake ipcRenderer / ipcMain).
import { describe, expect, it, vi } from 'vitest';
import { registerIpc } from '../../../src/main/ipc';
import { createBridge } from '../../../src/preload/bridge';
import { API_EVENTS, API_METHODS } from '../../../src/shared/contract';
import { HUD_EVENTS, HUD_METHODS } from '../../../src/shared/contract/hud';
import { EVENT_CHANNEL, IPC_CHANNELS, methodChannel } from '../../../src/shared/contract/ipc';
import { ok } from '../../../src/shared/result';

/** A fake ipcRenderer recording the channels invoked. */
function fakeIpcRenderer() {
  const invoked: string[] = [];
  return {
    invoked,
    invoke: vi.fn((channel: string) => {
      invoked.push(channel);
      return Promise.resolve(ok(null));
    }),
    on: vi.fn(),
    removeListener: vi.fn(),
  };
}

describe('IPC channels derived from the contract', () => {
  it('name every method of API_METHODS, in its order, as cua:<method>', () => {
    expect(Object.keys(IPC_CHANNELS)).toEqual([...API_METHODS]);
    expect(Object.values(IPC_CHANNELS)).toEqual(API_METHODS.map((m) => `cua:${m}`));
    expect(new Set(Object.values(IPC_CHANNELS)).size).toBe(API_METHODS.length);
    for (const method of API_METHODS) {
      expect(IPC_CHANNELS[method]).toBe(methodChannel(method));
    }
    expect(Object.isFrozen(IPC_CHANNELS)).toBe(true);
    // the event channel is no method's channel
    expect(Object.values(IPC_CHANNELS)).not.toContain(EVENT_CHANNEL);
    expect(API_EVENTS.length).toBeGreaterThan(0);
  });

  it('the main process registers exactly these channels', () => {
    const handled: string[] = [];
    const removed: string[] = [];
    const dispose = registerIpc(
      {
        handle: (channel: string) => void handled.push(channel),
        removeHandler: (channel: string) => void removed.push(channel),
      },
      { dispatch: () => Promise.resolve(ok(null)) },
      { isTrustedSender: () => true },
    );
    expect(handled).toEqual(Object.values(IPC_CHANNELS));
    dispose();
    expect(removed).toEqual(Object.values(IPC_CHANNELS));
  });

  it('the preload invokes exactly these channels and nothing for other names', async () => {
    const ipc = fakeIpcRenderer();
    const bridge = createBridge(ipc);
    for (const method of API_METHODS) {
      await expect(bridge.invoke(method, {})).resolves.toEqual(ok(null));
    }
    for (const name of ['recordings:nuke', 'cua:recordings:list', 'event', 'toString', '']) {
      await expect(bridge.invoke(name, {})).resolves.toMatchObject({
        ok: false,
        error: { code: 'UNKNOWN_METHOD' },
      });
    }
    expect(ipc.invoked).toEqual(Object.values(IPC_CHANNELS));
  });

  it("the HUD's preload invokes only the HUD methods' channels", async () => {
    const ipc = fakeIpcRenderer();
    const bridge = createBridge(ipc, { methods: HUD_METHODS, events: HUD_EVENTS });
    for (const method of API_METHODS) {
      await bridge.invoke(method, {});
    }
    const hud: readonly string[] = HUD_METHODS;
    expect(ipc.invoked).toEqual(
      API_METHODS.filter((m) => hud.includes(m)).map((m) => IPC_CHANNELS[m]),
    );
    expect(ipc.invoked).toHaveLength(HUD_METHODS.length);
  });
});
