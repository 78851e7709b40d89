// The parts of one recording share one helper process: leases start it once, the last stop ends
// it, a failed start leaves nothing held, and a stopped part's subscriptions end with it.
import { describe, expect, it } from 'vitest';
import type { AxFocusEvent } from '../../../src/axtree/model';
import {
  sharedHelperFactory,
  type HelperClient,
} from '../../../src/recorder/platform/shared-helper';

type Counts = { made: number; started: number; stopped: number };

function fakeClients(counts: Counts, failStart = false) {
  return (): HelperClient => {
    counts.made += 1;
    const focusListeners = new Set<(event: AxFocusEvent) => void>();
    return {
      start: () => {
        counts.started += 1;
        return failStart
          ? Promise.reject(new Error('no hello'))
          : Promise.resolve({ backend: 'native-helper', capabilities: ['displays'] });
      },
      stop: () => {
        counts.stopped += 1;
        return Promise.resolve();
      },
      elementAt: () => Promise.resolve(null),
      snapshotFocusedWindow: () =>
        Promise.resolve({ tMs: 0, durationMs: 0, root: null, nodeCount: 0, truncated: false }),
      focusedIsSecure: () => Promise.resolve(false),
      displays: () => Promise.resolve([]),
      activeWindow: () => Promise.resolve(null),
      permissions: () =>
        Promise.resolve({
          accessibility: 'granted' as const,
          screenRecording: 'granted' as const,
          inputMonitoring: 'granted' as const,
        }),
      onFocusChanged: (listener) => {
        focusListeners.add(listener);
        return () => focusListeners.delete(listener);
      },
      // the test reads the live listener count through this
      onGap: () => () => focusListeners.size,
      listenerCount: () => focusListeners.size,
    } as HelperClient & { listenerCount: () => number };
  };
}

const part = { env: {}, now: () => 0 };

describe('sharedHelperFactory', () => {
  it('starts one client for all parts and stops it with the last', async () => {
    const counts: Counts = { made: 0, started: 0, stopped: 0 };
    const make = sharedHelperFactory(fakeClients(counts));
    const [accessibility, windows, displays] = [make(part), make(part), make(part)];
    await Promise.all([accessibility.start(), windows.start(), displays.start()]);
    expect(counts).toEqual({ made: 1, started: 1, stopped: 0 });
    await accessibility.stop();
    await accessibility.stop();
    await windows.stop();
    expect(counts.stopped).toBe(0);
    expect(await displays.displays()).toEqual([]);
    await displays.stop();
    expect(counts).toEqual({ made: 1, started: 1, stopped: 1 });

    // the next recording gets a fresh process
    const next = make(part);
    await next.start();
    expect(counts).toEqual({ made: 2, started: 2, stopped: 1 });
    await next.stop();
    expect(counts.stopped).toBe(2);
  });

  it('holds nothing after a failed start, and the next start tries a new client', async () => {
    const counts: Counts = { made: 0, started: 0, stopped: 0 };
    const make = sharedHelperFactory(fakeClients(counts, true));
    const first = make(part);
    await expect(first.start()).rejects.toThrow('no hello');
    expect(counts).toEqual({ made: 1, started: 1, stopped: 1 });
    await first.stop();
    expect(counts.stopped).toBe(1);
    await expect(make(part).start()).rejects.toThrow('no hello');
    expect(counts.made).toBe(2);
  });

  it("ends a stopped part's subscriptions, not the others'", async () => {
    const counts: Counts = { made: 0, started: 0, stopped: 0 };
    const clients: (HelperClient & { listenerCount: () => number })[] = [];
    const makeFake = fakeClients(counts);
    const make = sharedHelperFactory((options) => {
      const client = makeFake() as HelperClient & { listenerCount: () => number };
      clients.push(client);
      void options;
      return client;
    });
    const a = make(part);
    const b = make(part);
    await a.start();
    await b.start();
    a.onFocusChanged(() => undefined);
    b.onFocusChanged(() => undefined);
    expect(clients[0]?.listenerCount()).toBe(2);
    await a.stop();
    expect(clients[0]?.listenerCount()).toBe(1);
    await b.stop();
    expect(clients[0]?.listenerCount()).toBe(0);
  });
});
