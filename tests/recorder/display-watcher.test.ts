import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DisplayInfo } from '../../src/recorder/display-info';
import {
  PollingDisplayWatcher,
  RandrEventWatcher,
  SignalDisplayWatcher,
} from '../../src/recorder/display-watcher';

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

describe('RandrEventWatcher', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-xev-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // a stand-in for `xev -root -event randr`: a burst of RandR lines after 100 ms, then quiet
  function fakeXev(): string {
    const file = path.join(dir, 'xev');
    fs.writeFileSync(
      file,
      [
        '#!/bin/sh',
        'sleep 0.1',
        'echo "RRScreenChangeNotify event, serial 18, synthetic NO, window 0x1e1,"',
        'echo "    width 1024, height 768, mwidth 270, mheight 203"',
        'echo "RRNotify event, serial 18, synthetic NO, window 0x1e1,"',
        'echo "    subtype XRROutputChangeNotifyEvent"',
        'exec sleep 30',
      ].join('\n'),
      { mode: 0o755 },
    );
    return file;
  }

  it('reads the display once per burst of RandR events and reports the change', async () => {
    let reads = 0;
    const watcher = new RandrEventWatcher({
      read: () => {
        reads += 1;
        return Promise.resolve(info({ width: 1024, height: 768 }));
      },
      env: process.env,
      xevPath: fakeXev(),
      settleMs: 50,
    });
    const seen: DisplayInfo[] = [];
    watcher.onChange((d) => seen.push(d));
    watcher.start(info());
    for (let i = 0; i < 100 && seen.length === 0; i += 1) {
      await sleep(20);
    }
    await sleep(200);
    expect(seen.map((d) => [d.width, d.height])).toEqual([[1024, 768]]);
    expect(reads).toBe(1); // two notify lines, one read
    const started = Date.now();
    await watcher.stop();
    expect(Date.now() - started).toBeLessThan(1500); // xev gone after SIGTERM
  });

  it('falls back to polling, and says so, when xev cannot run', async () => {
    let reads = 0;
    const errors: string[] = [];
    const watcher = new RandrEventWatcher({
      read: () => {
        reads += 1;
        return Promise.resolve(info({ width: 800, height: 600 }));
      },
      env: process.env,
      xevPath: path.join(dir, 'no-such-xev'),
      fallbackPollMs: 30,
      onError: (e) => errors.push(e.message),
    });
    const seen: DisplayInfo[] = [];
    watcher.onChange((d) => seen.push(d));
    watcher.start(info());
    for (let i = 0; i < 100 && seen.length === 0; i += 1) {
      await sleep(20);
    }
    await watcher.stop();
    expect(errors[0]).toMatch(/xev -root -event randr ended .*polled every 0\.03 s/);
    expect(seen.map((d) => d.width)).toEqual([800]);
    const after = reads;
    await sleep(100);
    expect(reads).toBe(after); // stopped: no more reads
  });
});

describe('SignalDisplayWatcher (the port helper displays events drive)', () => {
  it('reads again after each burst of signals and reports a moved display, until stopped', async () => {
    let signal: (() => void) | null = null;
    let next = info({ width: 1920, height: 1080, origin: { x: 0, y: 0 } });
    let reads = 0;
    const watcher = new SignalDisplayWatcher({
      read: () => {
        reads += 1;
        return Promise.resolve(next);
      },
      subscribe: (s) => {
        signal = s;
        return () => {
          signal = null;
        };
      },
      settleMs: 20,
    });
    const seen: DisplayInfo[] = [];
    watcher.onChange((d) => seen.push(d));
    watcher.start(next);
    // the monitor was moved left of the primary one: two events in a row, one read
    next = info({ width: 1920, height: 1080, origin: { x: -1920, y: 0 } });
    signal!();
    signal!();
    await sleep(100);
    expect(reads).toBe(1);
    expect(seen.map((d) => d.origin)).toEqual([{ x: -1920, y: 0 }]);
    watcher.stop();
    expect(signal).toBeNull(); // unsubscribed
  });
});
