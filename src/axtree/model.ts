// Accessibility data model shared by every platform adapter (AT-SPI, macOS AX, Windows UIA):
// plain, JSON-safe shapes plus pure helpers to count, serialise and validate them.
// docs/platform-linux.md §4 (roles, states, bounds quirks).
import * as v from 'valibot';
import {
  BooleanSchema,
  FiniteNumberSchema,
  isRecord,
  parseShape,
  shapeObject,
  StringSchema,
} from './shape';

export { AxShapeError } from './shape';

/** A rectangle in screen pixels (top-left origin). */
export type AxBounds = {
  /** Left edge, screen px. */
  x: number;
  /** Top edge, screen px. */
  y: number;
  /** Width, px (≥ 0). */
  width: number;
  /** Height, px (≥ 0). */
  height: number;
};

/** One accessible element. */
export type AxNode = {
  /** Platform role name: AT-SPI (`push button`), macOS AX (`AXButton`), UIA (`ButtonControl`). */
  role: string;
  /** Accessible name ('' when none). */
  name: string;
  /** Accessible description; omitted when empty. */
  description?: string;
  /** State names, e.g. `focused`, `showing` (see `decodeStates`), in bit order. */
  states: string[];
  /** Screen rectangle, or null when the element has no geometry (no Component, unmapped). */
  bounds: AxBounds | null;
  /** Captured children, in platform order (empty for leaves and for the element-at path). */
  children: AxNode[];
  /** Children the platform reports, set only when `children` holds fewer (budget, not walked). */
  childCount?: number;
  /** Platform reference valid for this desktop session only (AT-SPI: `<bus name><object path>`). */
  ref?: string;
};

/** The element under the pointer with its ancestors, recorded at a pointer event. */
export type AxElementRecord = {
  /** When the query started, session clock ms (CLOCK_MONOTONIC). */
  tMs: number;
  /** Queried point, screen px. */
  x: number;
  /** Queried point, screen px. */
  y: number;
  /** Element under the pointer first, then its ancestors up to the application (children empty). */
  path: AxNode[];
  /** Application name (e.g. the process name GTK reports), or null when unknown. */
  app: string | null;
  /** True when the element (or an ancestor) is a secure text field: never record its text. */
  isSecure: boolean;
};

/** A captured subtree of the focused window. */
export type AxSnapshot = {
  /** When the capture started, session clock ms (CLOCK_MONOTONIC). */
  tMs: number;
  /** How long the capture took, ms. */
  durationMs: number;
  /** The focused window, or null when no window is focused. */
  root: AxNode | null;
  /** Number of nodes in `root` (0 without a root). */
  nodeCount: number;
  /** True when a budget (nodes, time, children per node) cut the tree short. */
  truncated: boolean;
  /** Why the tree is truncated or empty, for humans. */
  note?: string;
  /** Application owning the window, when known. */
  app?: string;
};

/** A focus change reported by an adapter. */
export type AxFocusEvent = {
  /** When the change was observed, session clock ms. */
  tMs: number;
  /** Role of the newly focused element. */
  role: string;
  /** Name of the newly focused element. */
  name: string;
  /** True when the focused element is a secure text field (mask keystrokes). */
  isSecure: boolean;
};

/** Role names of secure (password) text fields: AT-SPI's and macOS AX's. */
export const SECURE_ROLES: readonly string[] = ['password text', 'AXSecureTextField'];

/** The state helpers give secure fields whose role says nothing (UIA `IsPassword`). */
export const SECURE_STATE = 'secure';

/**
 * True when `node` is a secure text field: a secure role (AT-SPI `password text`, AX
 * `AXSecureTextField`) or the `secure` state (Windows `EditControl` with `IsPassword`;
 * docs/helper-protocol.md §6).
 */
export function isSecureNode(node: Pick<AxNode, 'role'> & { states?: readonly string[] }): boolean {
  return SECURE_ROLES.includes(node.role) || (node.states?.includes(SECURE_STATE) ?? false);
}

/** Number of nodes in the tree rooted at `node` (0 for null). */
export function countNodes(node: AxNode | null): number {
  if (node === null) {
    return 0;
  }
  let count = 0;
  const stack: AxNode[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as AxNode;
    count += 1;
    stack.push(...current.children);
  }
  return count;
}

/** Depth-first pre-order list of the nodes of a tree (for searches in tests and exporters). */
export function flattenNodes(node: AxNode | null): AxNode[] {
  const out: AxNode[] = [];
  const visit = (n: AxNode): void => {
    out.push(n);
    n.children.forEach(visit);
  };
  if (node !== null) {
    visit(node);
  }
  return out;
}

/** True when the screen point lies inside `bounds` (right/bottom edges exclusive). */
export function boundsContain(bounds: AxBounds | null, x: number, y: number): boolean {
  return (
    bounds !== null &&
    x >= bounds.x &&
    y >= bounds.y &&
    x < bounds.x + bounds.width &&
    y < bounds.y + bounds.height
  );
}

// Fixed key order and omission of empty optional fields keep serialised snapshots diffable.
function nodeToJson(node: AxNode): Record<string, unknown> {
  const out: Record<string, unknown> = { role: node.role, name: node.name };
  if (node.description !== undefined && node.description !== '') {
    out.description = node.description;
  }
  out.states = node.states;
  out.bounds = node.bounds;
  if (node.childCount !== undefined) {
    out.childCount = node.childCount;
  }
  if (node.ref !== undefined) {
    out.ref = node.ref;
  }
  out.children = node.children.map(nodeToJson);
  return out;
}

/** Serialises a snapshot to JSON with a stable key order (one line). */
export function serializeAxSnapshot(snapshot: AxSnapshot): string {
  const out: Record<string, unknown> = {
    tMs: snapshot.tMs,
    durationMs: snapshot.durationMs,
    nodeCount: snapshot.nodeCount,
    truncated: snapshot.truncated,
  };
  if (snapshot.note !== undefined) {
    out.note = snapshot.note;
  }
  if (snapshot.app !== undefined) {
    out.app = snapshot.app;
  }
  out.root = snapshot.root === null ? null : nodeToJson(snapshot.root);
  return JSON.stringify(out);
}

/** Serialises an element record to JSON with a stable key order (one line). */
export function serializeAxElementRecord(record: AxElementRecord): string {
  return JSON.stringify({
    tMs: record.tMs,
    x: record.x,
    y: record.y,
    app: record.app,
    isSecure: record.isSecure,
    path: record.path.map(nodeToJson),
  });
}

// The shapes of untrusted accessibility data (helper output, stored JSON) as valibot schemas
// (./shape.ts turns the first issue into an AxShapeError naming the field). Absent or null
// `name`, `states`, `children` and `bounds` read as '', [], [] and null; an empty description is
// dropped; unknown keys are ignored.

/** Deepest tree accepted: a cycle cannot come out of JSON, but a hostile helper can nest deep. */
const MAX_TREE_DEPTH = 512;

const TooDeepSchema = v.custom<never>(() => false, `tree deeper than ${MAX_TREE_DEPTH} levels`);

const BoundsSchema = shapeObject(
  {
    x: FiniteNumberSchema,
    y: FiniteNumberSchema,
    width: FiniteNumberSchema,
    height: FiniteNumberSchema,
  },
  'expected {x, y, width, height} or null',
);

type NodeSchema = v.GenericSchema<unknown, AxNode>;

// one schema per depth (made on first use), so that the one at MAX_TREE_DEPTH + 1 refuses
const nodeSchemas: NodeSchema[] = [];

function nodeSchemaAt(depth: number): NodeSchema {
  if (depth > MAX_TREE_DEPTH) {
    return TooDeepSchema;
  }
  const known = nodeSchemas[depth];
  if (known) {
    return known;
  }
  const schema: NodeSchema = v.pipe(
    v.custom<Record<string, unknown>>(isRecord, 'expected an object'),
    // what is wrong with the shape of states or children is told before a bad field
    v.looseObject({
      states: v.nullish(v.array(v.unknown(), 'expected an array of strings')),
      children: v.nullish(v.array(v.unknown(), 'expected an array')),
    }),
    shapeObject(
      {
        role: StringSchema,
        name: v.nullish(StringSchema, ''),
        states: v.nullish(v.array(StringSchema, 'expected an array of strings'), []),
        bounds: v.nullish(BoundsSchema, null),
        children: v.nullish(
          v.array(
            v.lazy(() => nodeSchemaAt(depth + 1)),
            'expected an array',
          ),
          [],
        ),
        description: v.optional(StringSchema),
        childCount: v.optional(FiniteNumberSchema),
        ref: v.optional(StringSchema),
      },
      'expected an object',
    ),
    v.transform((value): AxNode => {
      const node: AxNode = {
        role: value.role,
        name: value.name,
        states: value.states,
        bounds: value.bounds,
        children: value.children,
      };
      if (value.description !== undefined && value.description !== '') {
        node.description = value.description;
      }
      if (value.childCount !== undefined) {
        node.childCount = value.childCount;
      }
      if (value.ref !== undefined) {
        node.ref = value.ref;
      }
      return node;
    }),
  );
  nodeSchemas[depth] = schema;
  return schema;
}

const SnapshotSchema = v.pipe(
  shapeObject(
    {
      root: v.nullable(nodeSchemaAt(0)),
      tMs: FiniteNumberSchema,
      durationMs: FiniteNumberSchema,
      truncated: BooleanSchema,
      note: v.optional(StringSchema),
      app: v.optional(StringSchema),
    },
    'expected an object',
  ),
  v.transform((value): AxSnapshot => {
    const snapshot: AxSnapshot = {
      tMs: value.tMs,
      durationMs: value.durationMs,
      root: value.root,
      nodeCount: countNodes(value.root),
      truncated: value.truncated,
    };
    if (value.note !== undefined) {
      snapshot.note = value.note;
    }
    if (value.app !== undefined) {
      snapshot.app = value.app;
    }
    return snapshot;
  }),
);

const ElementRecordSchema = v.pipe(
  shapeObject(
    {
      path: v.array(nodeSchemaAt(0), 'expected an array of nodes'),
      tMs: FiniteNumberSchema,
      x: FiniteNumberSchema,
      y: FiniteNumberSchema,
      app: v.nullish(StringSchema, null),
      isSecure: v.optional(BooleanSchema),
    },
    'expected an object',
  ),
  v.transform((value): AxElementRecord => ({
    tMs: value.tMs,
    x: value.x,
    y: value.y,
    path: value.path,
    app: value.app,
    // a helper that forgets the flag must not leak a password field: either source marks it
    isSecure: value.isSecure === true || value.path.some(isSecureNode),
  })),
);

/** Validates an untrusted value (helper output, stored JSON) as an {@link AxNode}. */
export function parseAxNode(value: unknown, path = 'node', depth = 0): AxNode {
  return parseShape(nodeSchemaAt(depth), value, path);
}

/** Validates an untrusted value as an {@link AxSnapshot}; `nodeCount` is recomputed. */
export function parseAxSnapshot(value: unknown, path = 'snapshot'): AxSnapshot {
  return parseShape(SnapshotSchema, value, path);
}

/** Validates an untrusted value as an {@link AxElementRecord}; `isSecure` is re-derived too. */
export function parseAxElementRecord(value: unknown, path = 'record'): AxElementRecord {
  return parseShape(ElementRecordSchema, value, path);
}
