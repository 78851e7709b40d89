// Accessibility data model shared by every platform adapter (AT-SPI, macOS AX, Windows UIA):
// plain, JSON-safe shapes plus pure helpers to count, serialise and validate them.
// docs/platform-linux.md §4 (roles, states, bounds quirks).

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

/** A value that is not a valid accessibility shape; `path` says where (e.g. `root.children[2]`). */
export class AxShapeError extends Error {
  override readonly name = 'AxShapeError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectNumber(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new AxShapeError(path, `expected a finite number, got ${JSON.stringify(value)}`);
  }
  return value;
}

function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') {
    throw new AxShapeError(path, `expected a string, got ${JSON.stringify(value)}`);
  }
  return value;
}

function expectBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') {
    throw new AxShapeError(path, `expected a boolean, got ${JSON.stringify(value)}`);
  }
  return value;
}

function parseBounds(value: unknown, path: string): AxBounds | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (!isRecord(value)) {
    throw new AxShapeError(path, 'expected {x, y, width, height} or null');
  }
  return {
    x: expectNumber(value.x, `${path}.x`),
    y: expectNumber(value.y, `${path}.y`),
    width: expectNumber(value.width, `${path}.width`),
    height: expectNumber(value.height, `${path}.height`),
  };
}

/** Validates an untrusted value (helper output, stored JSON) as an {@link AxNode}. */
export function parseAxNode(value: unknown, path = 'node', depth = 0): AxNode {
  // a cycle cannot come out of JSON, but a hostile helper can nest absurdly deep
  if (depth > 512) {
    throw new AxShapeError(path, 'tree deeper than 512 levels');
  }
  if (!isRecord(value)) {
    throw new AxShapeError(path, 'expected an object');
  }
  const states = value.states ?? [];
  if (!Array.isArray(states)) {
    throw new AxShapeError(`${path}.states`, 'expected an array of strings');
  }
  const children = value.children ?? [];
  if (!Array.isArray(children)) {
    throw new AxShapeError(`${path}.children`, 'expected an array');
  }
  const node: AxNode = {
    role: expectString(value.role, `${path}.role`),
    name: expectString(value.name ?? '', `${path}.name`),
    states: states.map((s, i) => expectString(s, `${path}.states[${i}]`)),
    bounds: parseBounds(value.bounds, `${path}.bounds`),
    children: children.map((c, i) => parseAxNode(c, `${path}.children[${i}]`, depth + 1)),
  };
  if (value.description !== undefined && value.description !== '') {
    node.description = expectString(value.description, `${path}.description`);
  }
  if (value.childCount !== undefined) {
    node.childCount = expectNumber(value.childCount, `${path}.childCount`);
  }
  if (value.ref !== undefined) {
    node.ref = expectString(value.ref, `${path}.ref`);
  }
  return node;
}

/** Validates an untrusted value as an {@link AxSnapshot}; `nodeCount` is recomputed. */
export function parseAxSnapshot(value: unknown, path = 'snapshot'): AxSnapshot {
  if (!isRecord(value)) {
    throw new AxShapeError(path, 'expected an object');
  }
  const root = value.root === null ? null : parseAxNode(value.root, `${path}.root`);
  const snapshot: AxSnapshot = {
    tMs: expectNumber(value.tMs, `${path}.tMs`),
    durationMs: expectNumber(value.durationMs, `${path}.durationMs`),
    root,
    nodeCount: countNodes(root),
    truncated: expectBoolean(value.truncated, `${path}.truncated`),
  };
  if (value.note !== undefined) {
    snapshot.note = expectString(value.note, `${path}.note`);
  }
  if (value.app !== undefined) {
    snapshot.app = expectString(value.app, `${path}.app`);
  }
  return snapshot;
}

/** Validates an untrusted value as an {@link AxElementRecord}; `isSecure` is re-derived too. */
export function parseAxElementRecord(value: unknown, path = 'record'): AxElementRecord {
  if (!isRecord(value)) {
    throw new AxShapeError(path, 'expected an object');
  }
  if (!Array.isArray(value.path)) {
    throw new AxShapeError(`${path}.path`, 'expected an array of nodes');
  }
  const nodes = value.path.map((n, i) => parseAxNode(n, `${path}.path[${i}]`));
  const app = value.app ?? null;
  return {
    tMs: expectNumber(value.tMs, `${path}.tMs`),
    x: expectNumber(value.x, `${path}.x`),
    y: expectNumber(value.y, `${path}.y`),
    path: nodes,
    app: app === null ? null : expectString(app, `${path}.app`),
    // a helper that forgets the flag must not leak a password field: either source marks it
    isSecure:
      (value.isSecure !== undefined && expectBoolean(value.isSecure, `${path}.isSecure`)) ||
      nodes.some(isSecureNode),
  };
}
