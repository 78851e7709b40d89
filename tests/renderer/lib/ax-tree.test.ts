import { describe, expect, it } from 'vitest';
import {
  ancestorIds,
  countNodes,
  elementOf,
  findElementIds,
  flattenAxTree,
  normalizeAxTree,
  searchAxTree,
} from '../../../src/renderer/lib/ax-tree';

// the shape of the AgentNet fixture's a11y.jsonl (Windows UIA)
const UIA = {
  Name: 'Settings',
  ControlType: 'WindowControl',
  BoundingRectangle: { left: 0, top: 0, right: 1366, bottom: 728 },
  Depth: 0,
  Children: [
    {
      Name: 'System',
      ControlType: 'MenuBarControl',
      BoundingRectangle: { left: 0, top: 0, right: 300, bottom: 30 },
      Children: [{ Name: 'Close Settings', ControlType: 'ButtonControl', Children: [] }],
    },
    {
      Name: 'Display',
      ControlType: 'PaneControl',
      Children: [
        { Name: 'Night light', ControlType: 'ButtonControl', Children: [] },
        { Name: 'Change brightness', ControlType: 'SliderControl', Children: [] },
      ],
    },
  ],
};

// our own AxNode shape (AT-SPI), wrapped like an AxSnapshot
const ATSPI = {
  tMs: 10,
  root: {
    role: 'frame',
    name: 'gtk3-widget-factory',
    states: ['active', 'showing'],
    bounds: { x: 10, y: 20, width: 800, height: 600 },
    children: [
      { role: 'push button', name: 'OK', states: [], bounds: null, children: [], childCount: 3 },
    ],
  },
};

describe('normalizeAxTree', () => {
  it('reads UIA trees (Name/ControlType/BoundingRectangle)', () => {
    const root = normalizeAxTree({ time_stamp: 1, axtree: UIA })!;
    expect(root).toMatchObject({
      id: '0',
      role: 'WindowControl',
      name: 'Settings',
      bounds: { x: 0, y: 0, width: 1366, height: 728 },
    });
    expect(root.children.map((c) => c.id)).toEqual(['0.0', '0.1']);
    expect(countNodes(root)).toBe(6);
  });

  it('reads AxSnapshot/AxNode trees', () => {
    const root = normalizeAxTree(ATSPI)!;
    expect(root).toMatchObject({ role: 'frame', states: ['active', 'showing'] });
    expect(root.children[0]).toMatchObject({ role: 'push button', name: 'OK', hiddenChildren: 3 });
  });

  it('is null for nothing', () => {
    expect(normalizeAxTree(null)).toBeNull();
    expect(normalizeAxTree('text')).toBeNull();
  });
});

describe('flatten and search', () => {
  const root = normalizeAxTree(UIA)!;
  const names = (rows: { node: { name: string }; depth: number }[]) =>
    rows.map((r) => `${'-'.repeat(r.depth)}${r.node.name}`);

  it('expands to the default depth and honours explicit toggles', () => {
    expect(names(flattenAxTree(root, { expanded: {}, defaultDepth: 1 }))).toEqual([
      'Settings',
      '-System',
      '-Display',
    ]);
    expect(names(flattenAxTree(root, { expanded: { '0.1': true }, defaultDepth: 1 }))).toEqual([
      'Settings',
      '-System',
      '-Display',
      '--Night light',
      '--Change brightness',
    ]);
    expect(names(flattenAxTree(root, { expanded: { '0': false }, defaultDepth: 5 }))).toEqual([
      'Settings',
    ]);
  });

  it('shows only paths to matches while searching', () => {
    const search = searchAxTree(root, 'night');
    expect([...search.matchIds]).toEqual(['0.1.0']);
    const rows = flattenAxTree(root, { expanded: { '0.1': false }, defaultDepth: 0, search });
    expect(names(rows)).toEqual(['Settings', '-Display', '--Night light']);
    expect(rows.map((r) => r.isMatch)).toEqual([false, false, true]);
    // role matches too; nothing found → no rows
    expect(searchAxTree(root, 'slidercontrol').matchIds.size).toBe(1);
    expect(flattenAxTree(root, { expanded: {}, search: searchAxTree(root, 'zzz') })).toEqual([]);
  });

  it('reveals the element under the pointer', () => {
    const target = elementOf([
      { role: 'WindowControl', name: 'Settings' },
      { role: 'SliderControl', name: 'Change brightness' },
    ]);
    // a path is given outermost first; the element itself is the last entry
    expect(target).toEqual({ role: 'SliderControl', name: 'Change brightness' });
    const ids = findElementIds(root, target);
    expect([...ids]).toEqual(['0.1.1']);
    expect([...ancestorIds(ids)].sort()).toEqual(['0', '0.1']);
    const rows = flattenAxTree(root, { expanded: {}, defaultDepth: 1, reveal: ids });
    expect(names(rows)).toContain('--Change brightness');
  });

  it('reads element records in their stored shapes', () => {
    expect(
      elementOf({
        time_stamp: 1,
        a11y_tree: { Name: 'Night light', ControlType: 'ButtonControl' },
      }),
    ).toEqual({
      role: 'ButtonControl',
      name: 'Night light',
    });
    // our recorder's element record: the element first, then its ancestors
    expect(
      elementOf({
        path: [
          { role: 'push button', name: 'OK' },
          { role: 'frame', name: 'w' },
        ],
      }),
    ).toEqual({
      role: 'push button',
      name: 'OK',
    });
    expect(elementOf(null)).toBeNull();
  });
});
