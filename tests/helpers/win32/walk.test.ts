// The Windows helper's walking logic against an in-memory UI Automation on a fake clock: ancestor
// order, secure redaction, budgets (nodes, time, children per node), handle release, control type
// names, failures on single elements.
import { describe, expect, it } from 'vitest';
import { countNodes, flattenNodes } from '../../../src/axtree/model';
import { UIA_CONTROL_TYPES, controlTypeName } from '../../../src/helpers/win32/control-types';
import {
  CACHED_PROPERTIES,
  FORBIDDEN_IDS,
  UIA_PROPERTY,
} from '../../../src/helpers/win32/uia-backend';
import { elementPathAt, focusedInfo, snapshotTree } from '../../../src/helpers/win32/walk';
import type { FakeNode } from './fake-uia';
import { FakeUia, withLeaves } from './fake-uia';

function settingsTree(): { root: FakeNode; window: FakeNode; password: FakeNode; ok: FakeNode } {
  const password: FakeNode = {
    controlType: 50004,
    name: 'hunter2-label-that-must-not-leak',
    isPassword: true,
    focused: true,
    pid: 4242,
    bounds: { x: -1900, y: 120, width: 300, height: 30 },
  };
  const ok: FakeNode = {
    controlType: 50000,
    name: 'OK',
    pid: 4242,
    bounds: { x: -1500, y: 400, width: 80, height: 30 },
  };
  const pane: FakeNode = {
    controlType: 50033,
    name: 'Sign in',
    pid: 4242,
    children: [password, ok],
  };
  const window: FakeNode = {
    controlType: 50032,
    name: 'Settings',
    pid: 4242,
    bounds: { x: -1920, y: 0, width: 1920, height: 1080 },
    children: [pane],
  };
  const root: FakeNode = { controlType: 50033, name: 'Desktop 1', children: [window] };
  return { root, window, password, ok };
}

describe('elementPathAt', () => {
  it('returns the element first, then its ancestors up to the top-level window (desktop left out)', () => {
    const { root, ok } = settingsTree();
    const uia = new FakeUia(root, 1, (x, y) => (x === -1490 && y === 410 ? ok : null));
    const found = elementPathAt(uia, -1490, 410);
    expect(found?.path.map((n) => [n.role, n.name])).toEqual([
      ['ButtonControl', 'OK'],
      ['PaneControl', 'Sign in'],
      ['WindowControl', 'Settings'],
    ]);
    expect(found?.pid).toBe(4242);
    expect(found?.isSecure).toBe(false);
    expect(found?.path[0]?.bounds).toEqual({ x: -1500, y: 400, width: 80, height: 30 });
    expect(uia.outstanding()).toBe(0);
    expect(uia.calls[0]).toBe('ElementFromPointBuildCache');
  });

  it('marks a password field secure and drops its name', () => {
    const { root, password } = settingsTree();
    const uia = new FakeUia(root, 1, () => password);
    const found = elementPathAt(uia, -1800, 130);
    expect(found?.isSecure).toBe(true);
    expect(found?.path[0]).toMatchObject({ role: 'EditControl', name: '' });
    expect(found?.path[0]?.states).toEqual(['enabled', 'focused', 'secure']);
    expect(JSON.stringify(found)).not.toContain('hunter2');
    expect(uia.outstanding()).toBe(0);
  });

  it('returns null over nothing, and keeps the path found before a failing parent', () => {
    const { root, ok } = settingsTree();
    expect(elementPathAt(new FakeUia(root), 0, 0)).toBeNull();
    ok.failParent = true;
    const uia = new FakeUia(root, 1, () => ok);
    expect(elementPathAt(uia, 1, 1)?.path.map((n) => n.name)).toEqual(['OK']);
    expect(uia.outstanding()).toBe(0);
  });
});

describe('focusedInfo', () => {
  it('reports the focused element with the secure flag and no name for a password field', () => {
    const { root, password } = settingsTree();
    const uia = new FakeUia(root, 1, () => null, password);
    expect(focusedInfo(uia)).toEqual({ role: 'EditControl', name: '', isSecure: true, pid: 4242 });
    uia.focused = null;
    expect(focusedInfo(uia)).toBeNull();
    expect(uia.outstanding()).toBe(0);
  });
});

function windowWith(children: FakeNode[]): { uia: FakeUia; window: FakeNode } {
  const window: FakeNode = { controlType: 50032, name: 'App', pid: 7, children };
  const uia = new FakeUia({ children: [window] });
  return { uia, window };
}

describe('snapshotTree', () => {
  it('walks the whole tree within budget, breadth first, releasing every handle', () => {
    const { root } = settingsTree();
    const uia = new FakeUia(root);
    const window = uia.elementFromHandle(0n);
    const tree = snapshotTree(
      uia,
      window!,
      { maxNodes: 100, maxMs: 1000, maxChildrenPerNode: 50 },
      uia.clock,
    );
    expect(tree.truncated).toBe(false);
    expect(tree.note).toBeUndefined();
    expect(tree.nodeCount).toBe(4);
    expect(countNodes(tree.root)).toBe(4);
    expect(flattenNodes(tree.root).map((n) => n.role)).toEqual([
      'WindowControl',
      'PaneControl',
      'EditControl',
      'ButtonControl',
    ]);
    const secure = flattenNodes(tree.root).find((n) => n.states.includes('secure'));
    expect(secure?.name).toBe('');
    expect(JSON.stringify(tree)).not.toContain('hunter2');
    expect(tree.pid).toBe(4242);
    expect(uia.outstanding()).toBe(0);
  });

  it('keeps at most maxNodes nodes and says so', () => {
    const { uia } = windowWith([
      withLeaves({ controlType: 50008, name: 'list' }, 30),
      { name: 'after' },
    ]);
    const tree = snapshotTree(
      uia,
      uia.elementFromHandle(0n)!,
      { maxNodes: 10, maxMs: 10_000 },
      uia.clock,
    );
    expect(tree.nodeCount).toBe(10);
    expect(countNodes(tree.root)).toBe(10);
    expect(tree.truncated).toBe(true);
    expect(tree.note).toMatch(/node budget 10 reached/);
    expect(uia.outstanding()).toBe(0);
    // once the cut is recorded, the kept nodes are not probed for children one by one
    expect(uia.calls.filter((c) => c === 'GetFirstChildElementBuildCache').length).toBe(2);
  });

  it('keeps at most maxChildrenPerNode children and counts the rest into childCount', () => {
    const { uia } = windowWith([withLeaves({ controlType: 50008, name: 'list' }, 25)]);
    const tree = snapshotTree(
      uia,
      uia.elementFromHandle(0n)!,
      { maxNodes: 1000, maxMs: 10_000, maxChildrenPerNode: 5 },
      uia.clock,
    );
    const list = tree.root?.children[0];
    expect(list?.children.map((c) => c.name)).toEqual([
      'item0',
      'item1',
      'item2',
      'item3',
      'item4',
    ]);
    expect(list?.childCount).toBe(25);
    expect(tree.truncated).toBe(true);
    expect(tree.note).toBe('child budget 5 per node reached (20 children left out)');
    expect(uia.outstanding()).toBe(0);
  });

  it('stops counting a long list past the child budget and leaves childCount unset', () => {
    const { uia } = windowWith([withLeaves({ controlType: 50008, name: 'list' }, 5000)]);
    const tree = snapshotTree(
      uia,
      uia.elementFromHandle(0n)!,
      { maxNodes: 1000, maxMs: 1_000_000, maxChildrenPerNode: 5 },
      uia.clock,
    );
    const list = tree.root?.children[0];
    expect(list?.children).toHaveLength(5);
    expect(list?.childCount).toBeUndefined();
    expect(tree.truncated).toBe(true);
    // 5 kept + at most 100 counted past the cut, not 5000 calls
    expect(
      uia.calls.filter((c) => c === 'GetNextSiblingElementBuildCache').length,
    ).toBeLessThanOrEqual(106);
    expect(uia.outstanding()).toBe(0);
  });

  it('notes a node cut found only by probing below the kept nodes', () => {
    // exactly maxNodes nodes fit, but the last one has children of its own
    const { uia } = windowWith([{ name: 'a' }, { name: 'b', children: [{ name: 'deep' }] }]);
    const tree = snapshotTree(
      uia,
      uia.elementFromHandle(0n)!,
      { maxNodes: 3, maxMs: 10_000 },
      uia.clock,
    );
    expect(tree.nodeCount).toBe(3);
    expect(tree.truncated).toBe(true);
    expect(tree.note).toMatch(/node budget 3 reached/);
    expect(uia.outstanding()).toBe(0);
  });

  it('starts nothing after maxMs on the fake clock and keeps the top of the window', () => {
    // each call costs 10 ms: 10 lists of 10 items would take > 1 s
    const lists = Array.from({ length: 10 }, (_, i) =>
      withLeaves({ controlType: 50008, name: `list${i}` }, 10),
    );
    const window: FakeNode = { controlType: 50032, name: 'Slow', children: lists };
    const uia = new FakeUia({ children: [window] }, 10);
    const started = uia.nowMs;
    const tree = snapshotTree(
      uia,
      uia.elementFromHandle(0n)!,
      { maxNodes: 1000, maxMs: 150 },
      uia.clock,
    );
    expect(tree.truncated).toBe(true);
    expect(tree.note).toMatch(/time budget 150 ms reached/);
    // the first level (the lists) is there even though their items are not
    expect(tree.root?.children.length).toBeGreaterThanOrEqual(5);
    // at most one call in flight when the budget ran out
    expect(uia.nowMs - started).toBeLessThanOrEqual(150 + 10 + 10);
    expect(uia.outstanding()).toBe(0);
  });

  it('skips a child whose properties cannot be read and says how many', () => {
    const { uia } = windowWith([{ name: 'a' }, { name: 'broken', failProps: true }, { name: 'c' }]);
    const tree = snapshotTree(uia, uia.elementFromHandle(0n)!, {}, uia.clock);
    expect(tree.root?.children.map((c) => c.name)).toEqual(['a', 'c']);
    expect(tree.nodeCount).toBe(3);
    expect(tree.note).toBe('1 nodes could not be read');
    expect(uia.outstanding()).toBe(0);
  });

  it('throws (after releasing the root) when the window itself cannot be read', () => {
    const { uia, window } = windowWith([]);
    window.failProps = true;
    expect(() => snapshotTree(uia, uia.elementFromHandle(0n)!, {}, uia.clock)).toThrow(
      /NOTAVAILABLE/,
    );
    expect(uia.outstanding()).toBe(0);
  });
});

describe('control types and cached properties', () => {
  it('names every UIA control type id 50000–50040 and falls back to CustomControl', () => {
    expect(UIA_CONTROL_TYPES.map(([id]) => id)).toEqual(
      Array.from({ length: 41 }, (_, i) => 50000 + i),
    );
    expect(controlTypeName(50000)).toBe('ButtonControl');
    expect(controlTypeName(50004)).toBe('EditControl');
    expect(controlTypeName(50020)).toBe('TextControl');
    expect(controlTypeName(50032)).toBe('WindowControl');
    expect(controlTypeName(50033)).toBe('PaneControl');
    expect(controlTypeName(50040)).toBe('AppBarControl');
    expect(controlTypeName(59999)).toBe('CustomControl');
    expect(new Set(UIA_CONTROL_TYPES.map(([, name]) => name)).size).toBe(41);
  });

  it('caches the nine properties the walk reads and never a value', () => {
    expect([...CACHED_PROPERTIES].sort()).toEqual(
      [
        UIA_PROPERTY.ControlType,
        UIA_PROPERTY.Name,
        UIA_PROPERTY.BoundingRectangle,
        UIA_PROPERTY.IsPassword,
        UIA_PROPERTY.ProcessId,
        UIA_PROPERTY.HasKeyboardFocus,
        UIA_PROPERTY.IsEnabled,
        UIA_PROPERTY.AutomationId,
        UIA_PROPERTY.ClassName,
      ].sort(),
    );
    expect(CACHED_PROPERTIES).toEqual(expect.not.arrayContaining([...FORBIDDEN_IDS]));
    expect(FORBIDDEN_IDS).toContain(30045); // UIA_ValueValuePropertyId
    expect(FORBIDDEN_IDS).toContain(10002); // UIA_ValuePatternId
  });
});
