import { describe, expect, it } from 'vitest';
import type { AxElementRecord, AxNode, AxSnapshot } from '../../src/axtree/model';
import {
  AxShapeError,
  boundsContain,
  countNodes,
  flattenNodes,
  isSecureNode,
  parseAxElementRecord,
  parseAxNode,
  parseAxSnapshot,
  serializeAxElementRecord,
  serializeAxSnapshot,
} from '../../src/axtree/model';

const leaf = (role: string, name: string): AxNode => ({
  role,
  name,
  states: ['showing'],
  bounds: { x: 1, y: 2, width: 3, height: 4 },
  children: [],
});

const tree: AxNode = {
  role: 'frame',
  name: 'CUA Test Form',
  states: ['active', 'showing'],
  bounds: { x: 100, y: 100, width: 422, height: 485 },
  ref: ':1.4/org/a11y/atspi/accessible/1',
  children: [
    {
      role: 'filler',
      name: '',
      description: 'box',
      states: [],
      bounds: null,
      childCount: 4,
      children: [leaf('push button', 'Press Me'), leaf('password text', 'Password')],
    },
  ],
};

describe('countNodes / flattenNodes', () => {
  it('counts every node once', () => {
    expect(countNodes(tree)).toBe(4);
    expect(countNodes(null)).toBe(0);
  });

  it('lists nodes in pre-order', () => {
    expect(flattenNodes(tree).map((n) => n.role)).toEqual([
      'frame',
      'filler',
      'push button',
      'password text',
    ]);
  });
});

describe('boundsContain', () => {
  const b = { x: 10, y: 20, width: 30, height: 40 };
  it.each([
    [10, 20, true],
    [39, 59, true],
    [40, 20, false],
    [10, 60, false],
    [9, 30, false],
  ])('(%i, %i) → %s', (x, y, expected) => {
    expect(boundsContain(b, x, y)).toBe(expected);
  });
  it('is false without bounds', () => {
    expect(boundsContain(null, 0, 0)).toBe(false);
  });
});

describe('serialise and parse', () => {
  const snapshot: AxSnapshot = {
    tMs: 1234.5,
    durationMs: 12.25,
    root: tree,
    nodeCount: 4,
    truncated: true,
    note: 'node budget 4 reached (2 nodes left out)',
    app: 'gtk-form.py',
  };

  it('round-trips a snapshot with a stable key order', () => {
    const text = serializeAxSnapshot(snapshot);
    expect(
      text.startsWith('{"tMs":1234.5,"durationMs":12.25,"nodeCount":4,"truncated":true,'),
    ).toBe(true);
    expect(parseAxSnapshot(JSON.parse(text))).toEqual(snapshot);
  });

  it('omits empty optional fields', () => {
    const text = serializeAxSnapshot({ ...snapshot, root: leaf('label', 'x'), note: undefined });
    expect(text).not.toContain('note');
    expect(text).not.toContain('description');
    expect(text).not.toContain('childCount');
  });

  it('recomputes nodeCount from the tree', () => {
    const parsed = parseAxSnapshot({ ...JSON.parse(serializeAxSnapshot(snapshot)), nodeCount: 99 });
    expect(parsed.nodeCount).toBe(4);
  });

  it('round-trips an element record', () => {
    const record: AxElementRecord = {
      tMs: 5,
      x: 311,
      y: 149,
      path: [leaf('push button', 'Press Me'), { ...tree, children: [] }],
      app: 'gtk-form.py',
      isSecure: false,
    };
    expect(parseAxElementRecord(JSON.parse(serializeAxElementRecord(record)))).toEqual(record);
  });

  it('marks a record secure when a password field is on the path, whatever the flag says', () => {
    const parsed = parseAxElementRecord({
      tMs: 1,
      x: 0,
      y: 0,
      app: null,
      isSecure: false,
      path: [leaf('password text', 'PIN')],
    });
    expect(parsed.isSecure).toBe(true);
  });

  it('says where a malformed node is', () => {
    const bad = { role: 'frame', name: 'w', states: [], bounds: null, children: [{ role: 7 }] };
    expect(() => parseAxNode(bad)).toThrow(AxShapeError);
    expect(() => parseAxNode(bad)).toThrow('node.children[0].role: expected a string, got 7');
    expect(() => parseAxNode({ role: 'x', bounds: { x: 1, y: 2, width: 'w', height: 1 } })).toThrow(
      'node.bounds.width',
    );
    expect(() => parseAxSnapshot({ tMs: 1, durationMs: 1, root: null })).toThrow(
      'snapshot.truncated',
    );
  });

  it('reads absent or null name, states, children and bounds as empty, drops unknown keys', () => {
    expect(parseAxNode({ role: 'x', name: null, states: null, children: null, extra: 1 })).toEqual({
      role: 'x',
      name: '',
      states: [],
      bounds: null,
      children: [],
    });
    const node = parseAxNode({ role: 'x', description: '', childCount: 4, ref: 'r' });
    expect(node).not.toHaveProperty('description');
    expect(node).toMatchObject({ childCount: 4, ref: 'r' });
    expect(parseAxNode({ role: 'x', description: 'd' }).description).toBe('d');
  });

  it('names the first bad field the way the hand-written checks did', () => {
    expect(() => parseAxNode([])).toThrow('node: expected an object');
    expect(() => parseAxNode({ role: 'x', states: 'focused' })).toThrow(
      'node.states: expected an array of strings',
    );
    // the shape of states and children is told before a bad field
    expect(() => parseAxNode({ role: 7, children: {} })).toThrow(
      'node.children: expected an array',
    );
    expect(() => parseAxNode({ role: 'x', states: ['a', 2] })).toThrow(
      'node.states[1]: expected a string, got 2',
    );
    expect(() => parseAxNode({ role: 'x', bounds: [] })).toThrow(
      'node.bounds: expected {x, y, width, height} or null',
    );
    expect(() => parseAxNode({ role: 'x', description: null })).toThrow(
      'node.description: expected a string, got null',
    );
    expect(() => parseAxNode({ role: 'x', childCount: Infinity })).toThrow(
      'node.childCount: expected a finite number',
    );
    expect(() => parseAxSnapshot({ tMs: 1, durationMs: 1, truncated: false })).toThrow(
      'snapshot.root: expected an object',
    );
    expect(() =>
      parseAxElementRecord({ tMs: 1, x: 0, y: 0, path: {}, app: null, isSecure: false }),
    ).toThrow('record.path: expected an array of nodes');
    expect(() => parseAxElementRecord({ tMs: 1, x: 0, y: 0, path: [], isSecure: null })).toThrow(
      'record.isSecure: expected a boolean, got null',
    );
    expect(parseAxElementRecord({ tMs: 1, x: 0, y: 0, path: [] })).toEqual({
      tMs: 1,
      x: 0,
      y: 0,
      path: [],
      app: null,
      isSecure: false,
    });
  });

  it('rejects absurdly deep trees', () => {
    let node: Record<string, unknown> = { role: 'leaf' };
    for (let i = 0; i < 600; i += 1) {
      node = { role: 'x', children: [node] };
    }
    expect(() => parseAxNode(node)).toThrow(/deeper than 512/);
    // 512 levels below the root are still a tree
    let deepest: Record<string, unknown> = { role: 'leaf' };
    for (let i = 0; i < 512; i += 1) {
      deepest = { role: 'x', children: [deepest] };
    }
    expect(countNodes(parseAxNode(deepest))).toBe(513);
  });
});

describe('isSecureNode', () => {
  it('recognises password fields only', () => {
    expect(isSecureNode({ role: 'password text' })).toBe(true);
    expect(isSecureNode({ role: 'text' })).toBe(false);
  });

  it('recognises macOS secure fields by role and Windows ones by the secure state', () => {
    expect(isSecureNode({ role: 'AXSecureTextField' })).toBe(true);
    expect(isSecureNode({ role: 'AXTextField', states: ['focused'] })).toBe(false);
    expect(isSecureNode({ role: 'EditControl', states: ['focusable', 'secure'] })).toBe(true);
    expect(isSecureNode({ role: 'EditControl', states: [] })).toBe(false);
    // AT-SPI has no state of that name: its fields are still recognised by role alone
    expect(isSecureNode({ role: 'password text', states: ['editable'] })).toBe(true);
  });

  it('marks an element record secure when a node on its path has the secure state', () => {
    const record = parseAxElementRecord({
      tMs: 1,
      x: 2,
      y: 3,
      app: 'app.exe',
      path: [
        { role: 'EditControl', name: '', states: ['secure'], bounds: null },
        { role: 'WindowControl', name: 'Sign in', bounds: null },
      ],
    });
    expect(record.isSecure).toBe(true);
  });
});
