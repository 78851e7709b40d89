// The macOS helper end to end over the protocol (docs/helper-protocol.md), with the in-memory AX
// world: hello capabilities, the permission rule, requests, focus and display events.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { PollTimers } from '../../../src/helpers/darwin/helper';
import { startDarwinHelper } from '../../../src/helpers/darwin/helper';
import { el, FakeAx, FakeClock, FakeSystem } from './fake-ax';

/** Interval timers fired by hand. */
class ManualTimers implements PollTimers {
  readonly running = new Map<number, { run: () => void; ms: number }>();
  private next = 0;
  setInterval = (run: () => void, ms: number): unknown => {
    this.running.set(++this.next, { run, ms });
    return this.next;
  };
  clearInterval = (handle: unknown): void => {
    this.running.delete(handle as number);
  };
  fire(ms: number): void {
    for (const t of this.running.values()) {
      if (t.ms === ms) {
        t.run();
      }
    }
  }
}

function start(trusted = true): {
  ax: FakeAx;
  system: FakeSystem;
  timers: ManualTimers;
  input: PassThrough;
  lines: () => Record<string, unknown>[];
  request: (id: number, method: string, params?: unknown) => Promise<Record<string, unknown>>;
  done: Promise<'shutdown' | 'eof'>;
} {
  const clock = new FakeClock();
  const ax = new FakeAx(clock);
  ax.trusted = trusted;
  const system = new FakeSystem();
  const timers = new ManualTimers();
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const lines = (): Record<string, unknown>[] =>
    text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const { served } = startDarwinHelper({
    backend: ax,
    system,
    nowMs: clock.now,
    hostApp: 'Terminal',
    input,
    output,
    clockSec: () => 12.5,
    pid: 4242,
    timers,
  });
  const request = async (
    id: number,
    method: string,
    params: unknown = {},
  ): Promise<Record<string, unknown>> => {
    input.write(`${JSON.stringify({ id, method, params })}\n`);
    for (let i = 0; i < 100; i++) {
      const answer = lines().find((l) => l.id === id);
      if (answer) {
        return answer;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`no answer to ${id}`);
  };
  return { ax, system, timers, input, lines, request, done: served.done };
}

function addSafari(ax: FakeAx): void {
  ax.addApp(42, 'Safari', [
    el(
      'AXWindow',
      { title: 'Sign in', position: { x: 0, y: 0 }, size: { width: 500, height: 300 } },
      [
        el('AXTextField', {
          title: 'User',
          position: { x: 10, y: 10 },
          size: { width: 100, height: 20 },
        }),
        el('AXSecureTextField', {
          title: 'Password',
          value: 'hunter2',
          position: { x: 10, y: 40 },
          size: { width: 100, height: 20 },
        }),
      ],
    ),
  ]);
  ax.focusedPid = 42;
}

describe('darwin helper over the protocol', () => {
  it('announces every capability with the accessibility permission', async () => {
    const h = start();
    expect(h.lines()[0]).toEqual({
      type: 'hello',
      protocol: 2,
      capabilities: [
        'elementAt',
        'snapshot',
        'secure',
        'focusEvents',
        'activeWindow',
        'displays',
        'permissions',
      ],
      helper: { name: 'ax-helper', os: 'darwin', pid: 4242 },
    });
    h.input.end();
    expect(await h.done).toBe('eof');
    // polling stopped and the reader let go of its elements
    expect(h.timers.running.size).toBe(0);
    expect(h.ax.live.size).toBe(0);
  });

  it('without the permission announces no AX capability and says where to grant it', async () => {
    const h = start(false);
    addSafari(h.ax);
    expect(h.lines()[0]?.capabilities).toEqual(['activeWindow', 'displays', 'permissions']);
    for (const [id, method, params] of [
      [1, 'elementAt', { x: 20, y: 20 }],
      [2, 'snapshotFocusedWindow', { maxNodes: 10, maxMs: 100, maxChildrenPerNode: 5 }],
      [3, 'focusedIsSecure', {}],
    ] as const) {
      const answer = await h.request(id, method, params);
      expect(answer).toMatchObject({ id, ok: false, error: { code: 'PERMISSION_DENIED' } });
      expect((answer.error as { message: string }).message).toContain(
        'System Settings › Privacy & Security › Accessibility: allow Terminal',
      );
    }
    expect(h.ax.callsOf('copyAttributes')).toHaveLength(0);
    // focus polling stays quiet, the other methods work
    h.timers.fire(250);
    expect(h.lines().some((l) => l.event === 'focus')).toBe(false);
    expect(await h.request(4, 'permissions')).toEqual({
      id: 4,
      ok: true,
      result: { accessibility: 'denied', screenRecording: 'granted', inputMonitoring: 'denied' },
    });
    h.input.write('{"type":"shutdown"}\n');
    expect(await h.done).toBe('shutdown');
  });

  it('answers elementAt, snapshotFocusedWindow and focusedIsSecure', async () => {
    const h = start();
    addSafari(h.ax);
    const at = await h.request(1, 'elementAt', { x: 30, y: 90 });
    expect(at).toMatchObject({
      ok: true,
      result: { app: 'Safari', pid: 42, isSecure: true },
    });
    const path = (at.result as { path: { role: string; name: string }[] }).path;
    expect(path.map((n) => `${n.role}:${n.name}`)).toEqual([
      'AXSecureTextField:',
      'AXWindow:Sign in',
      'AXApplication:Safari',
    ]);
    const snap = await h.request(2, 'snapshotFocusedWindow', {
      maxNodes: 2,
      maxMs: 1000,
      maxChildrenPerNode: 10,
      elementTimeoutMs: 100,
    });
    expect(snap).toMatchObject({
      ok: true,
      result: { nodeCount: 2, truncated: true, app: 'Safari' },
    });
    expect(h.ax.callsOf('setMessagingTimeout').some((c) => c.seconds === 0.1)).toBe(true);
    h.ax.focusedElement = h.ax.apps.get(42)!.children![0]!.children![1]!;
    expect(await h.request(3, 'focusedIsSecure')).toEqual({ id: 3, ok: true, result: true });
    expect(JSON.stringify(h.lines())).not.toContain('hunter2');
    const bad = await h.request(4, 'elementAt', { x: 'left' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'HELPER_REQUEST_FAILED' } });
    h.input.end();
    await h.done;
  });

  it('emits focus events on change only, secure ones with a blank name', async () => {
    const h = start();
    addSafari(h.ax);
    const window = h.ax.apps.get(42)!.children![0]!;
    h.ax.focusedElement = window.children![0]!;
    h.timers.fire(250);
    h.timers.fire(250);
    h.ax.focusedElement = window.children![1]!;
    h.timers.fire(250);
    const focus = h.lines().filter((l) => l.event === 'focus');
    expect(focus).toEqual([
      {
        type: 'event',
        event: 'focus',
        t: 12.5,
        role: 'AXTextField',
        name: 'User',
        isSecure: false,
        app: 'Safari',
        pid: 42,
      },
      {
        type: 'event',
        event: 'focus',
        t: 12.5,
        role: 'AXSecureTextField',
        name: '',
        isSecure: true,
        app: 'Safari',
        pid: 42,
      },
    ]);
    h.input.end();
    await h.done;
  });

  it('reports displays in pixels and emits an event when the layout changes', async () => {
    const h = start();
    expect(await h.request(1, 'displays')).toEqual({
      id: 1,
      ok: true,
      result: [
        {
          id: '1',
          bounds: { x: 0, y: 0, width: 2880, height: 1800 },
          scale: 2,
          primary: true,
          listIndex: 0,
        },
      ],
    });
    h.timers.fire(1000);
    expect(h.lines().some((l) => l.event === 'displays')).toBe(false);
    h.system.displayList = [
      ...h.system.displayList,
      { id: 5, bounds: { x: -1920, y: 0, width: 1920, height: 1080 }, scale: 1, primary: false },
    ];
    h.timers.fire(1000);
    h.timers.fire(1000);
    const events = h.lines().filter((l) => l.event === 'displays');
    expect(events).toHaveLength(1);
    expect(events[0]?.displays).toEqual([
      {
        id: '1',
        bounds: { x: 0, y: 0, width: 2880, height: 1800 },
        scale: 2,
        primary: true,
        listIndex: 0,
      },
      {
        id: '5',
        bounds: { x: -3840, y: 0, width: 1920, height: 1080 },
        scale: 1,
        primary: false,
        listIndex: 1,
      },
    ]);
    h.input.end();
    await h.done;
  });

  it('answers activeWindow with the frontmost app’s front layer-0 window, in pixels', async () => {
    const h = start();
    addSafari(h.ax);
    h.system.windowList = [
      {
        number: 1,
        pid: 99,
        ownerName: 'Dock',
        name: null,
        layer: 20,
        bounds: { x: 0, y: 0, width: 1440, height: 900 },
      },
      {
        number: 7,
        pid: 55,
        ownerName: 'Notes',
        name: 'Shopping',
        layer: 0,
        bounds: { x: 5, y: 5, width: 100, height: 100 },
      },
      {
        number: 9,
        pid: 42,
        ownerName: 'Safari',
        name: 'Sign in',
        layer: 0,
        bounds: { x: 10, y: 20, width: 500, height: 300 },
      },
    ];
    expect(await h.request(1, 'activeWindow')).toEqual({
      id: 1,
      ok: true,
      result: {
        title: 'Sign in',
        app: 'Safari',
        pid: 42,
        bounds: { x: 20, y: 40, width: 1000, height: 600 },
        windowId: '9',
      },
    });
    // without the permission: the front ordinary window of any app, title blank without a name
    h.ax.trusted = false;
    h.system.windowList[1]!.name = null;
    expect(await h.request(2, 'activeWindow')).toMatchObject({
      result: { title: '', app: 'Notes', pid: 55, windowId: '7' },
    });
    h.system.windowList = [];
    expect(await h.request(3, 'activeWindow')).toEqual({ id: 3, ok: true, result: null });
    h.input.end();
    await h.done;
  });
});
