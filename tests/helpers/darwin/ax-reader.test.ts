import { describe, expect, it } from 'vitest';
import { countNodes, flattenNodes } from '../../../src/axtree/model';
import type { AxNode } from '../../../src/axtree/model';
import type { CgDisplay } from '../../../src/helpers/darwin/ax-backend';
import { AxReader, LEAF_ROLES, NODE_ATTRIBUTES } from '../../../src/helpers/darwin/ax-reader';
import { layoutDisplays } from '../../../src/helpers/darwin/displays';
import type { FakeElement, FakeHandle } from './fake-ax';
import { el, FakeAx, FakeClock } from './fake-ax';

const RETINA: CgDisplay[] = [
  { id: 1, bounds: { x: 0, y: 0, width: 1440, height: 900 }, scale: 2, primary: true },
];

function setup(displays: CgDisplay[] = RETINA): {
  ax: FakeAx;
  clock: FakeClock;
  reader: AxReader<FakeHandle>;
} {
  const clock = new FakeClock();
  const ax = new FakeAx(clock);
  const layout = layoutDisplays(displays);
  const reader = new AxReader({ backend: ax, nowMs: clock.now, layout: () => layout });
  return { ax, clock, reader };
}

// A login window: a toolbar, a form with a secure field, a list of `rows` rows.
function loginWindow(rows = 3): FakeElement {
  return el(
    'AXWindow',
    { title: 'Sign in', position: { x: 100, y: 100 }, size: { width: 600, height: 400 } },
    [
      el('AXToolbar', { position: { x: 100, y: 100 }, size: { width: 600, height: 40 } }, [
        el('AXButton', {
          title: 'Back',
          enabled: true,
          position: { x: 110, y: 105 },
          size: { width: 30, height: 30 },
        }),
      ]),
      el('AXGroup', { position: { x: 100, y: 150 }, size: { width: 600, height: 200 } }, [
        el('AXStaticText', {
          value: 'Password:',
          position: { x: 110, y: 160 },
          size: { width: 80, height: 20 },
        }),
        el('AXTextField', {
          title: 'User',
          value: 'alice',
          position: { x: 200, y: 190 },
          size: { width: 200, height: 24 },
        }),
        el('AXTextField', {
          subrole: 'AXSecureTextField',
          title: 'Password',
          description: 'Your password',
          value: 'hunter2',
          focused: true,
          enabled: true,
          position: { x: 200, y: 160 },
          size: { width: 200, height: 24 },
        }),
      ]),
      el(
        'AXList',
        { position: { x: 100, y: 360 }, size: { width: 600, height: 140 } },
        Array.from({ length: rows }, (_, i) =>
          el('AXRow', { title: `row ${i}` }, [el('AXStaticText', { value: `cell ${i}` })]),
        ),
      ),
    ],
  );
}

function names(node: AxNode | null): string[] {
  return flattenNodes(node).map((n) => `${n.role}:${n.name}`);
}

describe('AxReader.snapshotFocusedWindow', () => {
  it('walks the focused window breadth first within a generous budget', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    ax.focusedPid = 42;
    const result = reader.snapshotFocusedWindow({ maxNodes: 100, maxMs: 1000 });
    expect(result.truncated).toBe(false);
    expect(result.note).toBeUndefined();
    expect(result.app).toBe('Safari');
    expect(result.nodeCount).toBe(14);
    expect(countNodes(result.root)).toBe(14);
    expect(names(result.root)).toEqual([
      'AXWindow:Sign in',
      'AXToolbar:',
      'AXButton:Back',
      'AXGroup:',
      'AXStaticText:Password:',
      'AXTextField:User',
      'AXTextField:',
      'AXList:',
      'AXRow:row 0',
      'AXStaticText:cell 0',
      'AXRow:row 1',
      'AXStaticText:cell 1',
      'AXRow:row 2',
      'AXStaticText:cell 2',
    ]);
    // bounds are pixels of the 2× display
    expect(result.root?.bounds).toEqual({ x: 200, y: 200, width: 1200, height: 800 });
    expect(ax.violations).toEqual([]);
  });

  it('redacts secure text fields (subrole) and never reads any AXValue but static text', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    ax.focusedPid = 42;
    const { root } = reader.snapshotFocusedWindow({ maxNodes: 100, maxMs: 1000 });
    const secure = flattenNodes(root).filter((n) => n.states.includes('secure'));
    expect(secure).toHaveLength(1);
    expect(secure[0]).toMatchObject({
      role: 'AXTextField',
      name: '',
      states: ['enabled', 'focused', 'secure'],
    });
    expect(secure[0]?.description).toBeUndefined();
    expect(JSON.stringify(root)).not.toMatch(/hunter2|Your password|alice/);
    const valueReads = ax.calls.filter((c) => c.names?.includes('AXValue'));
    expect(valueReads.length).toBeGreaterThan(0);
    for (const call of valueReads) {
      const e = call.handle?.element;
      expect(e !== 'systemWide' && e?.role).toBe('AXStaticText');
    }
    // the node attributes come in one call per element
    expect(ax.callsOf('copyAttributes').filter((c) => c.names === NODE_ATTRIBUTES)).toHaveLength(
      countNodes(root),
    );
  });

  it('sets a messaging timeout on every element before querying it', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow(20)]);
    ax.focusedPid = 42;
    reader.snapshotFocusedWindow({ maxNodes: 500, maxMs: 5000, elementTimeoutMs: 200 });
    // FakeAx records a violation for any query on a handle whose own timeout was never set
    expect(ax.violations).toEqual([]);
    const timeouts = ax.callsOf('setMessagingTimeout');
    const queried = new Set(
      ax.calls
        .filter((c) => c.handle && c.op !== 'setMessagingTimeout' && c.op !== 'pid')
        .map((c) => c.handle),
    );
    const timed = new Set(timeouts.map((c) => c.handle));
    for (const h of queried) {
      expect(timed.has(h)).toBe(true);
    }
    expect(
      timeouts.every((c) => c.seconds !== undefined && c.seconds > 0 && c.seconds <= 0.2),
    ).toBe(true);
  });

  it('never asks leaves or secure fields for children', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    ax.focusedPid = 42;
    reader.snapshotFocusedWindow({ maxNodes: 100, maxMs: 1000 });
    const asked = ax.calls
      .filter((c) => c.op === 'children' || c.op === 'childCount')
      .map((c) => (c.handle?.element === 'systemWide' ? 'sw' : c.handle?.element.role));
    expect(asked.length).toBeGreaterThan(0);
    for (const role of asked) {
      expect(LEAF_ROLES.has(role as string)).toBe(false);
    }
    // a full page of children is the only reason to count them
    expect(ax.callsOf('childCount')).toHaveLength(0);
  });

  it('keeps maxNodes and says so', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow(50)]);
    ax.focusedPid = 42;
    const result = reader.snapshotFocusedWindow({ maxNodes: 10, maxMs: 1000 });
    expect(result.nodeCount).toBe(10);
    expect(countNodes(result.root)).toBe(10);
    expect(result.truncated).toBe(true);
    expect(result.note).toMatch(/node budget 10 reached/);
    expect(ax.violations).toEqual([]);
  });

  it('keeps maxChildrenPerNode and reports the real child count', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow(50)]);
    ax.focusedPid = 42;
    const result = reader.snapshotFocusedWindow({
      maxNodes: 1000,
      maxMs: 1000,
      maxChildrenPerNode: 5,
    });
    const list = flattenNodes(result.root).find((n) => n.role === 'AXList');
    expect(list?.children).toHaveLength(5);
    expect(list?.childCount).toBe(50);
    expect(result.truncated).toBe(true);
    expect(result.note).toMatch(/child budget 5 per node reached \(45 children left out\)/);
    // only the first page was fetched: the helper never copies 50 children to keep 5
    expect(ax.callsOf('childCount')).toHaveLength(1);
  });

  it('stops at maxMs on the fake clock', () => {
    const { ax, clock, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow(200)]);
    ax.focusedPid = 42;
    ax.costMs = 10;
    const started = clock.ms;
    const result = reader.snapshotFocusedWindow({ maxNodes: 5000, maxMs: 300 });
    expect(result.truncated).toBe(true);
    expect(result.note).toMatch(/time budget 300 ms reached/);
    expect(result.nodeCount).toBeLessThan(40);
    // at most one round trip past the deadline
    expect(clock.ms - started).toBeLessThanOrEqual(300 + 10 + 10);
    expect(countNodes(result.root)).toBe(result.nodeCount);
  });

  it('bounds a hung element by its timeout and the time budget, and goes on', () => {
    const { ax, clock, reader } = setup();
    const window = loginWindow();
    const toolbar = window.children![0]!;
    toolbar.hangs = true;
    ax.addApp(42, 'Safari', [window]);
    ax.focusedPid = 42;
    const started = clock.ms;
    const result = reader.snapshotFocusedWindow({
      maxNodes: 100,
      maxMs: 2000,
      elementTimeoutMs: 250,
    });
    expect(result.truncated).toBe(true);
    expect(result.note).toMatch(/1 nodes could not be read/);
    expect(names(result.root)).toContain('AXStaticText:cell 2');
    expect(clock.ms - started).toBeLessThan(400);
  });

  it('answers a hung focused window with an empty truncated tree instead of failing', () => {
    const { ax, clock, reader } = setup();
    const window = loginWindow();
    window.hangs = true;
    ax.addApp(42, 'Safari', [window]);
    ax.focusedPid = 42;
    const started = clock.ms;
    const result = reader.snapshotFocusedWindow({
      maxNodes: 100,
      maxMs: 2000,
      elementTimeoutMs: 250,
    });
    expect(result).toMatchObject({ root: null, nodeCount: 0, truncated: true, app: 'Safari' });
    expect(result.note).toMatch(/could not be read: .*kAXErrorCannotComplete/);
    expect(clock.ms - started).toBeLessThan(300);
    expect(ax.liveDescriptions()).toEqual(['systemWide']);
    // the same when the application itself does not answer which window has focus
    ax.apps.get(42)!.hangs = true;
    const again = reader.snapshotFocusedWindow({ maxNodes: 100, maxMs: 2000 });
    expect(again).toMatchObject({ root: null, truncated: true });
    expect(again.note).toMatch(/AXFocusedWindow.*kAXErrorCannotComplete/);
    expect(ax.liveDescriptions()).toEqual(['systemWide']);
  });

  it('answers without a root when nothing has focus', () => {
    const { ax, reader } = setup();
    expect(reader.snapshotFocusedWindow({})).toEqual({
      root: null,
      nodeCount: 0,
      truncated: false,
      note: 'no application has focus',
    });
    ax.addApp(7, 'Finder', []);
    ax.focusedPid = 7;
    expect(reader.snapshotFocusedWindow({})).toMatchObject({
      root: null,
      app: 'Finder',
      note: 'no window has focus',
    });
  });

  it('releases every handle it got', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow(30)]);
    ax.focusedPid = 42;
    reader.snapshotFocusedWindow({ maxNodes: 12, maxMs: 1000, maxChildrenPerNode: 4 });
    expect(ax.liveDescriptions()).toEqual(['systemWide']);
    reader.dispose();
    expect(ax.liveDescriptions()).toEqual([]);
    expect(ax.violations).toEqual([]);
  });
});

describe('AxReader.elementAt', () => {
  it('returns the element first, then its ancestors up to the application, in pixels', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    // (230, 200) pt is inside the user field; the query comes in pixels of the 2× display
    const result = reader.elementAt(460, 400);
    expect(result?.path.map((n) => `${n.role}:${n.name}`)).toEqual([
      'AXTextField:User',
      'AXGroup:',
      'AXWindow:Sign in',
      'AXApplication:Safari',
    ]);
    expect(result?.path[0]?.bounds).toEqual({ x: 400, y: 380, width: 400, height: 48 });
    expect(result).toMatchObject({ app: 'Safari', pid: 42, isSecure: false });
    expect(result?.path.every((n) => n.children.length === 0)).toBe(true);
    expect(ax.violations).toEqual([]);
    expect(ax.liveDescriptions()).toEqual(['systemWide']);
  });

  it('marks a secure field secure, drops its name and reads no value', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    const result = reader.elementAt(2 * 210, 2 * 165);
    expect(result?.isSecure).toBe(true);
    expect(result?.path[0]).toMatchObject({
      role: 'AXTextField',
      name: '',
      states: ['enabled', 'focused', 'secure'],
    });
    expect(JSON.stringify(result)).not.toMatch(/hunter2|Password"|Your password/);
    expect(ax.calls.some((c) => c.names?.includes('AXValue'))).toBe(false);
  });

  it('converts pixels on a 1× display left of the primary (negative x) to points', () => {
    const { ax, reader } = setup([
      ...RETINA,
      { id: 2, bounds: { x: -1920, y: 0, width: 1920, height: 1080 }, scale: 1, primary: false },
    ]);
    ax.addApp(9, 'Notes', [
      el(
        'AXWindow',
        { title: 'Left', position: { x: -1800, y: 50 }, size: { width: 800, height: 600 } },
        [
          el('AXButton', {
            title: 'New',
            position: { x: -1790, y: 60 },
            size: { width: 40, height: 20 },
          }),
        ],
      ),
    ]);
    // origin of the left display in pixels: -1920 pt × 2 (the largest scale) = -3840
    const result = reader.elementAt(-3840 + 130 + 5, 60 + 5);
    expect(result?.path.map((n) => n.name)).toEqual(['New', 'Left', 'Notes']);
    expect(result?.path[0]?.bounds).toEqual({ x: -3840 + 130, y: 60, width: 40, height: 20 });
    expect(ax.callsOf('elementAtPosition')).toHaveLength(1);
  });

  it('returns null over no application', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    expect(reader.elementAt(5, 5)).toBeNull();
  });

  it('sets AXManualAccessibility once per pid across many calls', () => {
    const { ax, reader } = setup();
    ax.addApp(42, 'Safari', [loginWindow()]);
    ax.addApp(43, 'Slack', [
      el('AXWindow', {
        title: 'Slack',
        position: { x: 800, y: 100 },
        size: { width: 400, height: 400 },
      }),
    ]);
    ax.focusedPid = 42;
    for (let i = 0; i < 10; i++) {
      reader.elementAt(460, 400);
      reader.elementAt(2 * 900, 2 * 200);
      reader.snapshotFocusedWindow({ maxNodes: 20, maxMs: 1000 });
      ax.focusedElement = ax.apps.get(43)!.children![0]!;
      reader.focused({ track: true });
    }
    const manual = ax.callsOf('setManualAccessibility').map((c) => c.handle?.element);
    expect(manual).toEqual([ax.apps.get(42), ax.apps.get(43)]);
    expect(ax.calls.some((c) => c.names?.includes('AXEnhancedUserInterface'))).toBe(false);
  });
});

describe('AxReader.focused', () => {
  it('reports changes only, with the secure flag and a blank name for password fields', () => {
    const { ax, reader } = setup();
    const app = ax.addApp(42, 'Safari', [loginWindow()]);
    ax.focusedPid = 42;
    const group = app.children![0]!.children![1]!;
    ax.focusedElement = group.children![1]!;
    expect(reader.focused({ track: true })).toEqual({
      info: { role: 'AXTextField', name: 'User', isSecure: false, app: 'Safari', pid: 42 },
      changed: true,
    });
    expect(reader.focused({ track: true })?.changed).toBe(false);
    ax.focusedElement = group.children![2]!;
    expect(reader.focused({ track: true })).toEqual({
      info: { role: 'AXTextField', name: '', isSecure: true, app: 'Safari', pid: 42 },
      changed: true,
    });
    // a one-off question does not hide the next change from the poller
    ax.focusedElement = group.children![1]!;
    expect(reader.focused()?.changed).toBe(false);
    expect(reader.focused({ track: true })?.changed).toBe(true);
    expect(ax.calls.some((c) => c.names?.includes('AXValue'))).toBe(false);
    reader.dispose();
    expect(ax.liveDescriptions()).toEqual([]);
  });
});
