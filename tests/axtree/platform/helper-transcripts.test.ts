// Contract tests of the helper protocol v2 client (docs/helper-protocol.md): recorded exchanges of
// the macOS and Windows helpers (transcripts/*.jsonl, format in transcript-channel.ts) replayed
// through NativeHelperAdapter. What the client must keep: the platforms' role names (and what
// the exporters map them to), negative coordinates of displays left of or above the primary one,
// secure fields in element paths, snapshots and focus events, truncation, and a hung helper
// replaced by a fresh one with the gap reported.
import { afterEach, describe, expect, it } from 'vitest';
import type { AccessibilityGap } from '../../../src/axtree/adapter';
import type { AxFocusEvent, AxNode } from '../../../src/axtree/model';
import { flattenNodes } from '../../../src/axtree/model';
import type { HelperDisplay } from '../../../src/axtree/platform/helper-protocol';
import { NativeHelperAdapter } from '../../../src/axtree/platform/native-helper';
import type { RoleSystem } from '../../../src/pipeline/agentnet/role-map';
import { controlTypeOf } from '../../../src/pipeline/agentnet/role-map';
import { isAppError } from '../../../src/shared/errors';
import { loadTranscript, TranscriptChannel } from './transcript-channel';

let clockMs = 50_000;
const now = (): number => (clockMs += 1);
const adapters: NativeHelperAdapter[] = [];

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.stop()));
});

function replay(name: string): {
  adapter: NativeHelperAdapter;
  channel: TranscriptChannel;
  focus: AxFocusEvent[];
  displays: HelperDisplay[][];
} {
  const runs = loadTranscript(name);
  expect(runs).toHaveLength(1);
  const channel = new TranscriptChannel(runs[0] ?? [], name);
  const adapter = new NativeHelperAdapter(channel, { now, requestTimeoutMs: 1000 });
  adapters.push(adapter);
  const focus: AxFocusEvent[] = [];
  const displays: HelperDisplay[][] = [];
  adapter.onFocusChanged((e) => focus.push(e));
  adapter.onDisplaysChanged((d) => displays.push(d));
  return { adapter, channel, focus, displays };
}

const roles = (nodes: readonly AxNode[]): string[] => nodes.map((n) => n.role);
const mapped = (nodes: readonly AxNode[], system: RoleSystem): string[] =>
  nodes.map((n) => controlTypeOf(n.role, system));

describe('macOS helper transcript', () => {
  it('replays a session: AX roles, a display above-left of the primary, secure fields, truncation', async () => {
    const { adapter, channel, focus, displays } = replay('macos-session.jsonl');
    await expect(adapter.start()).resolves.toEqual({
      backend: 'native-helper',
      capabilities: [
        'elementAt',
        'snapshot',
        'secure',
        'focusEvents',
        'activeWindow',
        'displays',
        'permissions',
      ],
    });
    expect(adapter.helper).toEqual({ name: 'ax-helper', os: 'darwin', pid: 812 });

    await expect(adapter.permissions()).resolves.toEqual({
      accessibility: 'granted',
      screenRecording: 'granted',
      inputMonitoring: 'granted',
    });
    const layout = await adapter.displays();
    expect(layout.map((d) => [d.id, d.bounds, d.scale, d.primary])).toEqual([
      ['1', { x: 0, y: 0, width: 3024, height: 1964 }, 2, true],
      ['4', { x: -1920, y: -216, width: 1920, height: 1080 }, 1, false],
    ]);
    await expect(adapter.activeWindow()).resolves.toEqual({
      title: 'Untitled',
      app: 'TextEdit',
      pid: 901,
      bounds: { x: -1800, y: -150, width: 1200, height: 800 },
      windowId: '5123',
    });

    // a point on the left monitor, above the primary's top edge
    const save = await adapter.elementAt(-1500, -100);
    expect(save).toMatchObject({ x: -1500, y: -100, app: 'TextEdit', isSecure: false });
    expect(roles(save?.path ?? [])).toEqual(['AXButton', 'AXGroup', 'AXWindow', 'AXApplication']);
    expect(mapped(save?.path ?? [], 'ax')).toEqual([
      'ButtonControl',
      'GroupControl',
      'WindowControl',
      'PaneControl',
    ]);
    expect(save?.path[0]?.bounds).toEqual({ x: -1520, y: -110, width: 80, height: 24 });

    const password = await adapter.elementAt(800, 600);
    expect(password?.isSecure).toBe(true);
    expect(password?.path[0]).toMatchObject({ role: 'AXSecureTextField', name: '' });
    expect(mapped(password?.path ?? [], 'ax')).toEqual([
      'EditControl',
      'GroupControl',
      'DocumentControl',
      'PaneControl',
      'WindowControl',
      'PaneControl',
    ]);
    await expect(adapter.focusedIsSecure()).resolves.toBe(true);

    const snapshot = await adapter.snapshotFocusedWindow({ maxNodes: 6 });
    expect(snapshot).toMatchObject({
      truncated: true,
      note: 'node budget 6 reached',
      app: 'Safari',
      nodeCount: 6,
    });
    const nodes = flattenNodes(snapshot.root);
    expect(roles(nodes)).toEqual([
      'AXWindow',
      'AXToolbar',
      'AXButton',
      'AXWebArea',
      'AXStaticText',
      'AXSecureTextField',
    ]);
    expect(nodes.find((n) => n.role === 'AXWebArea')?.childCount).toBe(9);
    expect(nodes.filter((n) => n.role === 'AXSecureTextField').map((n) => n.name)).toEqual(['']);

    // the display layout changed: the left monitor was unplugged
    await expect(adapter.displays()).resolves.toHaveLength(1);
    expect(displays).toEqual([[layout[0]]]);
    expect(focus.map(({ role, name, isSecure }) => ({ role, name, isSecure }))).toEqual([
      { role: 'AXSecureTextField', name: '', isSecure: true },
      { role: 'AXTextField', name: 'Search', isSecure: false },
    ]);
    expect(channel.mismatches).toEqual([]);
    expect(channel.isFinished).toBe(true);
  });
});

describe('Windows helper transcript', () => {
  it('replays a session: UIA names kept, a monitor left of the primary, IsPassword fields secure', async () => {
    const { adapter, channel, focus, displays } = replay('windows-session.jsonl');
    await adapter.start();
    expect(adapter.helper).toEqual({
      name: 'uia-helper',
      os: 'win32',
      pid: 4242,
      version: '0.1.0',
    });
    await expect(adapter.permissions()).resolves.toEqual({
      accessibility: 'not-required',
      screenRecording: 'not-required',
      inputMonitoring: 'not-required',
    });
    const layout = await adapter.displays();
    expect(layout[1]).toEqual({
      id: '\\\\.\\DISPLAY2',
      bounds: { x: -1920, y: 0, width: 1920, height: 1080 },
      scale: 1,
      primary: false,
    });
    // the event right after the hello (in the same chunk) was not lost
    expect(displays).toEqual([layout]);
    await expect(adapter.activeWindow()).resolves.toMatchObject({
      app: 'SystemSettings.exe',
      bounds: { x: -1912, y: 8, width: 1280, height: 900 },
    });

    const apply = await adapter.elementAt(-1500, 400);
    expect(roles(apply?.path ?? [])).toEqual(['ButtonControl', 'PaneControl', 'WindowControl']);
    expect(mapped(apply?.path ?? [], 'uia')).toEqual(roles(apply?.path ?? []));
    expect(apply?.path[0]?.bounds?.x).toBe(-1540);
    expect(apply?.isSecure).toBe(false);

    // an EditControl: only the secure state (IsPassword) says it is a password box, and the
    // label this helper build leaked as its name is dropped
    const password = await adapter.elementAt(1200, 700);
    expect(password?.isSecure).toBe(true);
    expect(password?.path[0]).toMatchObject({ role: 'EditControl', name: '' });
    expect(password?.path[1]).toMatchObject({ role: 'GroupControl', name: 'Sign in' });
    await expect(adapter.focusedIsSecure()).resolves.toBe(true);
    expect(focus.map(({ role, name, isSecure }) => ({ role, name, isSecure }))).toEqual([
      { role: 'EditControl', name: '', isSecure: true },
    ]);

    const snapshot = await adapter.snapshotFocusedWindow({ maxMs: 300 });
    expect(snapshot).toMatchObject({
      truncated: true,
      note: 'time budget of 300 ms reached',
      nodeCount: 6,
    });
    const nodes = flattenNodes(snapshot.root);
    expect(mapped(nodes, 'uia')).toEqual(roles(nodes));
    expect(nodes.find((n) => n.role === 'ListControl')?.childCount).toBe(40);
    expect(snapshot.root?.bounds?.x).toBe(-1912);
    expect(nodes.filter((n) => n.states.includes('secure')).map((n) => n.name)).toEqual(['']);

    await expect(adapter.activeWindow()).resolves.toBeNull();
    await expect(adapter.elementAt(-5000, -5000)).resolves.toBeNull();
    expect(channel.mismatches).toEqual([]);
    expect(channel.isFinished).toBe(true);
  });
});

describe('hung helper transcript', () => {
  it('replaces a helper that answers nothing after 3 timeouts and reports the gap', async () => {
    const runs = loadTranscript('hung-helper.jsonl');
    expect(runs).toHaveLength(2);
    const channels: TranscriptChannel[] = [];
    const adapter = new NativeHelperAdapter(
      () => {
        const channel = new TranscriptChannel(
          runs[channels.length] ?? [],
          `run ${channels.length + 1}`,
        );
        channels.push(channel);
        return channel;
      },
      { now, requestTimeoutMs: 40 },
    );
    adapters.push(adapter);
    const gaps: AccessibilityGap[] = [];
    adapter.onGap((g) => gaps.push(g));
    await adapter.start();
    expect(adapter.helper?.pid).toBe(812);

    const beforeMs = clockMs;
    for (const call of [
      () => adapter.elementAt(10, 10),
      () => adapter.focusedIsSecure(),
      () => adapter.elementAt(12, 10),
    ]) {
      let error: unknown = null;
      try {
        await call();
      } catch (e) {
        error = e;
      }
      expect(isAppError(error, 'ACCESSIBILITY_TIMEOUT'), String(error)).toBe(true);
    }
    // the next calls wait for the replacement and are answered by it
    await expect(adapter.focusedIsSecure()).resolves.toBe(false);
    const ok = await adapter.elementAt(12, 10);
    expect(roles(ok?.path ?? [])).toEqual(['AXButton', 'AXWindow', 'AXApplication']);
    expect(ok?.path[1]?.bounds).toEqual({ x: -10, y: -30, width: 400, height: 300 });
    expect(adapter.helper?.pid).toBe(813);
    expect(adapter.restartCount).toBe(1);

    expect(gaps).toHaveLength(1);
    const gap = gaps[0] as AccessibilityGap;
    expect(gap.reason).toBe('helper-timeouts');
    expect(gap.startMs).toBeGreaterThan(beforeMs);
    expect(gap.endMs).toBeGreaterThan(gap.startMs);
    expect(gap.detail).toMatch(/^3 requests in a row got no answer \(the last: 'elementAt'/);
    for (const channel of channels) {
      expect(channel.mismatches).toEqual([]);
      expect(channel.isFinished).toBe(true);
    }
    await adapter.stop();
    expect(channels.map((c) => c.isOpened)).toEqual([true, true]);
  });
});
