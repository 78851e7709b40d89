import { describe, expect, it } from 'vitest';
import type { DisplayInfo } from '../../src/recorder/display-info';
import { PollingDisplayWatcher } from '../../src/recorder/display-watcher';

function info(over: Partial<DisplayInfo> = {}): DisplayInfo {
  return { display: ':9', width: 1280, height: 800, scale: 1, monitors: [], vendor: null, ...over };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PollingDisplayWatcher', () => {
  it('reports a change of size, origin or scale once, and nothing for the same geometry', async () => {
    const readings = [
      info({ vendor: 'other vendor' }), // same geometry: not a change
      info({ width: 1024, height: 768 }),
      info({ width: 1024, height: 768 }),
      info({ width: 1024, height: 768, origin: { x: -1024, y: 0 } }),
      info({ width: 1024, height: 768, origin: { x: -1024, y: 0 }, scale: 2 }),
    ];
    let reads = 0;
    const watcher = new PollingDisplayWatcher({
      read: () => Promise.resolve(readings[Math.min(reads++, readings.length - 1)]!),
      intervalMs: 10,
    });
    const seen: DisplayInfo[] = [];
    watcher.onChange((next) => seen.push(next));
    watcher.start(info());
    for (let i = 0; i < 100 && reads < readings.length + 2; i += 1) {
      await sleep(10);
    }
    watcher.stop();
    expect(seen.map((d) => [d.width, d.height, d.origin?.x ?? 0, d.scale])).toEqual([
      [1024, 768, 0, 1],
      [1024, 768, -1024, 1],
      [1024, 768, -1024, 2],
    ]);
    // nothing is read after stop()
    const after = reads;
    await sleep(50);
    expect(reads).toBe(after);
  });

  it('check() reads at once and says whether the display changed; a failed read is no change', async () => {
    let next: DisplayInfo | Error = info();
    const errors: string[] = [];
    const watcher = new PollingDisplayWatcher({
      read: () => (next instanceof Error ? Promise.reject(next) : Promise.resolve(next)),
      intervalMs: 60_000,
      onError: (e) => errors.push(e.message),
    });
    const seen: DisplayInfo[] = [];
    const off = watcher.onChange((d) => seen.push(d));
    watcher.start(info());
    expect(await watcher.check()).toBe(false);
    next = new Error('xdpyinfo: unable to open display');
    expect(await watcher.check()).toBe(false);
    expect(errors).toEqual(['xdpyinfo: unable to open display']);
    next = info({ width: 800, height: 600 });
    expect(await watcher.check()).toBe(true);
    expect(seen).toHaveLength(1);
    off();
    next = info({ width: 640, height: 480 });
    expect(await watcher.check()).toBe(true);
    expect(seen).toHaveLength(1); // unsubscribed
    watcher.stop();
    expect(await watcher.check()).toBe(false); // stopped: no change is reported
  });
});
