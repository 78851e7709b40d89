// Our accessibility records (platform role/name/states/bounds, see axtree/model.ts) → the shapes
// AgentNet Tool writes and OpenCUA reads: UIA-style nodes in `element.jsonl`/`a11y.jsonl`, window
// trees on reduced rows, and `{control_type, title, mark}` step targets.
// docs/agentnet-raw-format.md §8, §10, §11; docs/action-reduction.md §A.6;
// docs/agentnet-accessibility-mapping.md (every field)
import { controlTypeOf, type ControlType, type RoleSystem } from './role-map';

/** AgentNet's `BoundingRectangle` (screen px, right/bottom exclusive). */
export type AgentNetRect = { left: number; top: number; right: number; bottom: number };

/** One node as AgentNet writes it (Windows UIA dump shape) plus our `x_` extras. */
export type AgentNetNode = {
  Name: string;
  ControlType: ControlType;
  BoundingRectangle: AgentNetRect;
  Depth: number;
  Children: AgentNetNode[];
  /** The platform role the control type was mapped from (kept: the mapping is lossy). */
  x_role: string;
  /** Platform state names (focused, checked, …), when any. */
  x_states?: string[];
  /** Accessible description, when any. */
  x_description?: string;
  /** Children the platform reported but the capture budget left out. */
  x_child_count?: number;
};

/** A step target in AgentNet's vis/complete row shape. */
export type AgentNetTarget = { control_type: string; title: string; mark: boolean };

/** An element record of ours, as the reducer and exporter receive it. */
export type ElementContext = {
  /** When the element was queried, recording clock ms. */
  tMs: number;
  /** Queried point (the press position), screen px. */
  x: number | null;
  y: number | null;
  /** Stored JSON: ours `{ app, isSecure, path }`, or an imported AgentNet dump. */
  tree: unknown;
  /** Role vocabulary of `tree`. */
  system: RoleSystem;
};

type OurBounds = { x: number; y: number; width: number; height: number };
type OurNode = {
  role: string;
  name: string;
  description?: string;
  states?: string[];
  bounds: OurBounds | null;
  children: OurNode[];
  childCount?: number;
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for one of our nodes (`role` + `name`), as opposed to an AgentNet/UIA or AX node. */
export function isOurNode(v: unknown): v is OurNode {
  return isRecord(v) && typeof v.role === 'string' && !('ControlType' in v);
}

/** True for one of our element records (`{ path: [element, ...ancestors] }`). */
export function isOurElementRecord(
  v: unknown,
): v is { app: string | null; isSecure: boolean; path: OurNode[] } {
  return isRecord(v) && Array.isArray(v.path);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Our `{x, y, width, height}` → AgentNet's `{left, top, right, bottom}` (null → all zero, as
 * UIA reports an element without geometry). */
export function agentNetRect(bounds: OurBounds | null | undefined): AgentNetRect {
  if (!bounds) {
    return { left: 0, top: 0, right: 0, bottom: 0 };
  }
  const left = num(bounds.x);
  const top = num(bounds.y);
  return { left, top, right: left + num(bounds.width), bottom: top + num(bounds.height) };
}

/** One of our nodes (and its subtree) in AgentNet's node shape. */
export function agentNetNode(node: OurNode, system: RoleSystem, depth = 0): AgentNetNode {
  const out: AgentNetNode = {
    Name: typeof node.name === 'string' ? node.name : '',
    ControlType: controlTypeOf(node.role, system),
    BoundingRectangle: agentNetRect(node.bounds),
    Depth: depth,
    Children: (Array.isArray(node.children) ? node.children : [])
      .filter(isOurNode)
      .map((c) => agentNetNode(c, system, depth + 1)),
    x_role: node.role,
  };
  if (Array.isArray(node.states) && node.states.length) {
    out.x_states = [...node.states];
  }
  if (typeof node.description === 'string' && node.description !== '') {
    out.x_description = node.description;
  }
  if (typeof node.childCount === 'number') {
    out.x_child_count = node.childCount;
  }
  return out;
}

/** Flags AgentNet puts on the root of an `a11y.jsonl` window tree. */
export type WindowTreeFlags = {
  /** Capture start, clock seconds. */
  tS: number;
  /** False when a capture budget cut the tree short. */
  complete: boolean;
};

/** A window tree for `a11y.jsonl`: ours converted (root flags added); anything else unchanged. */
export function agentNetWindowTree(
  tree: unknown,
  system: RoleSystem,
  flags: WindowTreeFlags,
): unknown {
  if (!isOurNode(tree)) {
    return tree;
  }
  return {
    ...agentNetNode(tree, system),
    complete: flags.complete,
    // our snapshots are taken of the focused window at one moment: no switch, no failure
    switched: false,
    closed: false,
    time_stamp: flags.tS,
  };
}

/** An element record for `element.jsonl`: ours converted (the element itself, with its
 * ancestors under `x_ancestors`, nearest first); anything else unchanged. */
export function agentNetElementTree(tree: unknown, system: RoleSystem): unknown {
  if (!isOurElementRecord(tree)) {
    return tree;
  }
  const [element, ...ancestors] = tree.path.filter(isOurNode);
  if (!element) {
    // AgentNet writes a failed lookup as []
    return [];
  }
  return {
    ...agentNetNode(element, system),
    x_ancestors: ancestors.map((a) => ({ ...agentNetNode(a, system), Children: [] })),
    x_app: tree.app ?? null,
    x_is_secure: tree.isSecure === true,
  };
}

/** A copy of an AgentNet tree whose rectangles also carry `x, y, w, h` (the form reduced rows
 * hold, docs/agentnet-raw-format.md §8.2). */
export function withRowRects(tree: unknown): unknown {
  if (Array.isArray(tree)) {
    return tree.map(withRowRects);
  }
  if (!isRecord(tree)) {
    return tree;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(tree)) {
    if (k === 'BoundingRectangle' && isRecord(v)) {
      const r = { left: num(v.left), top: num(v.top), right: num(v.right), bottom: num(v.bottom) };
      out[k] = { ...v, x: r.left, y: r.top, w: r.right - r.left, h: r.bottom - r.top };
    } else if (k === 'Children' || k === 'x_ancestors') {
      out[k] = withRowRects(v);
    } else {
      out[k] = v;
    }
  }
  return out;
}

// ---- targets -------------------------------------------------------------------------------

// AgentNet's Windows element describer (docs/action-reduction.md §A.6): the node with the best
// semantic + position score; a best score below 0 means no target.
const MAX_AREA = (1920 * 1020) / 2;
const MIN_AREA = 1000;
const NAME_FULL_SCORE_CHARS = 40;

function semanticScore(name: string): number {
  if (!/[\p{L}\p{N}]/u.test(name)) {
    return -10;
  }
  const length = Array.from(name).length;
  return length < NAME_FULL_SCORE_CHARS ? 1 : 1 - (length - NAME_FULL_SCORE_CHARS) / 60;
}

function positionScore(bounds: OurBounds | null, x: number | null, y: number | null): number {
  if (!bounds || x === null || y === null) {
    return 0; // no geometry: neither evidence for nor against
  }
  const inside =
    x >= bounds.x && y >= bounds.y && x < bounds.x + bounds.width && y < bounds.y + bounds.height;
  if (!inside) {
    return -10;
  }
  const area = bounds.width * bounds.height;
  if (area < MIN_AREA) {
    return 1;
  }
  const score = Math.log(MAX_AREA / area) / Math.log(MAX_AREA / MIN_AREA);
  return Math.min(1, Math.max(-10, score));
}

/** The element a record names as the target: the best-scoring node of the element and its
 * ancestors (ties: the innermost), or null when none scores ≥ 0. */
export function pickTargetNode(record: ElementContext): OurNode | null {
  if (!isOurElementRecord(record.tree)) {
    return null;
  }
  let best: OurNode | null = null;
  let bestScore = -Infinity;
  for (const node of record.tree.path.filter(isOurNode)) {
    const name = typeof node.name === 'string' ? node.name.trim() : '';
    const score = semanticScore(name) + positionScore(node.bounds, record.x, record.y);
    if (score > bestScore) {
      best = node;
      bestScore = score;
    }
  }
  return bestScore >= 0 ? best : null;
}

/** The AgentNet target of an element record (null: nothing useful under the pointer). */
export function elementTarget(record: ElementContext): AgentNetTarget | null {
  const node = pickTargetNode(record);
  if (!node) {
    return null;
  }
  return {
    control_type: controlTypeOf(node.role, record.system),
    title: node.name.trim(),
    mark: true,
  };
}

/** The element itself (not an ancestor) of a record: its control type, name and secrecy. */
export function elementItself(
  record: ElementContext,
): { controlType: ControlType; name: string; isSecure: boolean } | null {
  if (!isOurElementRecord(record.tree)) {
    return null;
  }
  const node = record.tree.path.find(isOurNode);
  if (!node) {
    return null;
  }
  return {
    controlType: controlTypeOf(node.role, record.system),
    name: typeof node.name === 'string' ? node.name.trim() : '',
    isSecure: record.tree.isSecure === true || node.role === 'password text',
  };
}

/** An element record is matched to a press when it was queried this close to it (ms). */
export const ELEMENT_MATCH_WINDOW_MS = 1000;
/** … and at this distance from the press position at most (px). */
export const ELEMENT_MATCH_RADIUS_PX = 2;

/** The element record of a press: the one nearest in time within {@link ELEMENT_MATCH_WINDOW_MS}
 * queried at the press position (records are sorted by time). */
export function matchElement(
  records: readonly ElementContext[],
  press: { tMs: number; x: number; y: number },
): ElementContext | null {
  let best: ElementContext | null = null;
  let bestDistance = Infinity;
  for (const r of records) {
    const distance = Math.abs(r.tMs - press.tMs);
    if (
      distance <= ELEMENT_MATCH_WINDOW_MS &&
      distance < bestDistance &&
      (r.x === null ||
        r.y === null ||
        (Math.abs(r.x - press.x) <= ELEMENT_MATCH_RADIUS_PX &&
          Math.abs(r.y - press.y) <= ELEMENT_MATCH_RADIUS_PX))
    ) {
      best = r;
      bestDistance = distance;
    }
  }
  return best;
}

/** The last element record queried at or before `tMs` (records sorted by time), or null. */
export function lastElementBefore(
  records: readonly ElementContext[],
  tMs: number,
): ElementContext | null {
  let found: ElementContext | null = null;
  for (const r of records) {
    if (r.tMs > tMs) {
      break;
    }
    found = r;
  }
  return found;
}
