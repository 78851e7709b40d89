// Accessibility snapshots for the tree viewer: normalises the shapes we store (our AxNode, the
// AgentNet/UIA `Name`/`ControlType` trees, macOS-style `AXRole`) into one view model, flattens it
// for a virtual list, and searches it.

/** A rectangle in screen pixels. */
export type AxViewBounds = { x: number; y: number; width: number; height: number };

/** One node of the viewer. */
export type AxViewNode = {
  /** Path id, e.g. `0.3.1` (stable for one snapshot). */
  id: string;
  role: string;
  name: string;
  description: string;
  states: string[];
  bounds: AxViewBounds | null;
  children: AxViewNode[];
  /** Children the platform reported beyond the captured ones. */
  hiddenChildren: number;
};

/** One visible row of the flattened tree. */
export type AxRow = {
  node: AxViewNode;
  depth: number;
  hasChildren: boolean;
  isExpanded: boolean;
  isMatch: boolean;
};

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(...values: unknown[]): string {
  for (const v of values) {
    if (typeof v === 'string') {
      return v;
    }
  }
  return '';
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function boundsOf(o: Json): AxViewBounds | null {
  const b = o.bounds ?? o.BoundingRectangle ?? o.frame ?? o.AXFrame;
  if (!isObject(b)) {
    return null;
  }
  const x = num(b.x) ?? num(b.left);
  const y = num(b.y) ?? num(b.top);
  let width = num(b.width);
  let height = num(b.height);
  if (width === null && x !== null && num(b.right) !== null) {
    width = (num(b.right) ?? 0) - x;
  }
  if (height === null && y !== null && num(b.bottom) !== null) {
    height = (num(b.bottom) ?? 0) - y;
  }
  if (x === null || y === null || width === null || height === null) {
    return null;
  }
  return { x, y, width, height };
}

function childrenOf(o: Json): unknown[] {
  const c = o.children ?? o.Children ?? o.AXChildren;
  return Array.isArray(c) ? c : [];
}

// Unwraps the containers a snapshot may come in (`{root}`, `{axtree}`, `{a11y_tree}`, `{tree}`).
function unwrap(raw: unknown): unknown {
  let cur = raw;
  for (let i = 0; i < 4 && isObject(cur); i++) {
    const inner = cur.root ?? cur.axtree ?? cur.a11y_tree ?? cur.tree;
    if (inner === undefined || (isObject(cur) && ('role' in cur || 'ControlType' in cur))) {
      break;
    }
    cur = inner;
  }
  return cur;
}

function toNode(raw: unknown, id: string, budget: { left: number }): AxViewNode | null {
  if (!isObject(raw) || budget.left <= 0) {
    return null;
  }
  budget.left--;
  const kids = childrenOf(raw);
  const children: AxViewNode[] = [];
  kids.forEach((k, i) => {
    const child = toNode(k, `${id}.${i}`, budget);
    if (child) {
      children.push(child);
    }
  });
  const declared = num(raw.childCount);
  const states = Array.isArray(raw.states)
    ? raw.states.filter((s): s is string => typeof s === 'string')
    : [];
  return {
    id,
    role: str(raw.role, raw.ControlType, raw.AXRole, raw.type, raw.localizedControlType),
    name: str(raw.name, raw.Name, raw.AXTitle, raw.title, raw.label, raw.AXDescription),
    description: str(raw.description, raw.HelpText, raw.AXHelp),
    states,
    bounds: boundsOf(raw),
    children,
    hiddenChildren:
      Math.max(0, (declared ?? children.length) - children.length) +
      Math.max(0, kids.length - children.length),
  };
}

/** Node budget of the viewer (a snapshot is already budgeted at capture; this is a backstop). */
export const AX_VIEW_MAX_NODES = 50_000;

// The view model of a stored snapshot; null when it holds no tree. Arrays become one root.
export function normalizeAxTree(raw: unknown): AxViewNode | null {
  const budget = { left: AX_VIEW_MAX_NODES };
  const tree = unwrap(raw);
  if (Array.isArray(tree)) {
    const children = tree
      .map((t, i) => toNode(unwrap(t), `0.${i}`, budget))
      .filter((n): n is AxViewNode => n !== null);
    return children.length === 0
      ? null
      : {
          id: '0',
          role: 'snapshot',
          name: '',
          description: '',
          states: [],
          bounds: null,
          children,
          hiddenChildren: 0,
        };
  }
  return toNode(tree, '0', budget);
}

// Number of nodes in a tree.
export function countNodes(root: AxViewNode | null): number {
  if (!root) {
    return 0;
  }
  let n = 0;
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node) {
      n++;
      stack.push(...node.children);
    }
  }
  return n;
}

function nodeMatches(node: AxViewNode, needle: string): boolean {
  return (
    node.name.toLowerCase().includes(needle) ||
    node.role.toLowerCase().includes(needle) ||
    node.description.toLowerCase().includes(needle)
  );
}

/** Search outcome: matching node ids and every id on a path to a match. */
export type AxSearch = { matchIds: Set<string>; pathIds: Set<string> };

// Nodes whose name, role or description contain `query` (case-insensitive) and their ancestors.
export function searchAxTree(root: AxViewNode | null, query: string): AxSearch {
  const matchIds = new Set<string>();
  const pathIds = new Set<string>();
  const needle = query.trim().toLowerCase();
  if (!root || needle === '') {
    return { matchIds, pathIds };
  }
  const visit = (node: AxViewNode): boolean => {
    let hit = nodeMatches(node, needle);
    if (hit) {
      matchIds.add(node.id);
    }
    for (const child of node.children) {
      if (visit(child)) {
        hit = true;
      }
    }
    if (hit) {
      pathIds.add(node.id);
    }
    return hit;
  };
  visit(root);
  return { matchIds, pathIds };
}

/** Options of {@link flattenAxTree}. */
export type FlattenOptions = {
  /** Explicit expand/collapse choices by node id. */
  expanded: Readonly<Record<string, boolean>>;
  /** Nodes shallower than this are expanded unless collapsed explicitly; default 2. */
  defaultDepth?: number;
  /** An active search: only nodes on a path to a match are shown, all expanded. */
  search?: AxSearch | null;
  /** Nodes to reveal: their ancestors start expanded (unless collapsed explicitly). */
  reveal?: ReadonlySet<string>;
};

// Ids of every ancestor of the given path ids (`0.3.1` → `0`, `0.3`).
export function ancestorIds(ids: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const id of ids) {
    const parts = id.split('.');
    for (let i = 1; i < parts.length; i++) {
      out.add(parts.slice(0, i).join('.'));
    }
  }
  return out;
}

// Visible rows of the tree in display order.
export function flattenAxTree(root: AxViewNode | null, options: FlattenOptions): AxRow[] {
  const rows: AxRow[] = [];
  if (!root) {
    return rows;
  }
  const defaultDepth = options.defaultDepth ?? 2;
  const search = options.search ?? null;
  const revealed = ancestorIds(options.reveal ?? []);
  if (search && search.matchIds.size === 0) {
    // an active search that found nothing shows nothing (the viewer says "no matches")
    return rows;
  }
  const visit = (node: AxViewNode, depth: number) => {
    if (search && !search.pathIds.has(node.id)) {
      return;
    }
    const hasChildren = node.children.length > 0;
    const explicit = options.expanded[node.id];
    const isExpanded = search
      ? true
      : (explicit ?? (depth < defaultDepth || revealed.has(node.id)));
    rows.push({
      node,
      depth,
      hasChildren,
      isExpanded: hasChildren && isExpanded,
      isMatch: search?.matchIds.has(node.id) ?? false,
    });
    if (hasChildren && isExpanded) {
      for (const child of node.children) {
        visit(child, depth + 1);
      }
    }
  };
  visit(root, 0);
  return rows;
}

// Ids of nodes equal (role and name) to the deepest entry of an element chain, if any.
export function findElementIds(
  root: AxViewNode | null,
  element: { role: string; name: string } | null,
): Set<string> {
  const ids = new Set<string>();
  if (!root || !element || (element.role === '' && element.name === '')) {
    return ids;
  }
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node) {
      continue;
    }
    if (node.role === element.role && node.name === element.name) {
      ids.add(node.id);
    }
    stack.push(...node.children);
  }
  return ids;
}

// The element of an `axtree:get` element payload: a chain (outermost first, like
// StepDto.element: the last entry), an element record (`path`: the element first) or one node.
export function elementOf(raw: unknown): { role: string; name: string } | null {
  let own: unknown;
  if (Array.isArray(raw)) {
    own = raw[raw.length - 1];
  } else if (isObject(raw) && Array.isArray(raw.path)) {
    own = raw.path[0];
  } else {
    own = unwrap(raw);
  }
  if (!isObject(own)) {
    return null;
  }
  return {
    role: str(own.role, own.ControlType, own.AXRole),
    name: str(own.name, own.Name, own.AXTitle),
  };
}
