// The Windows helper's walking logic, pure over a UiaBackend (uia-backend.ts) and an injected
// clock: the element at a point with its control-view ancestors, a budgeted breadth-first
// snapshot of a window, and the focused element. Secure fields (UIA IsPassword) get the state
// `secure` and an empty name; no value is ever read (docs/helper-protocol.md §3, §6).
import type { AxNode } from '../../axtree/model';
import type { AxBudget } from '../../axtree/budgets';
import { BudgetTracker } from '../../axtree/budgets';
import { controlTypeName } from './control-types';
import type { UiaBackend, UiaProps } from './uia-backend';

/** Most ancestors followed from an element (a cycle in a broken provider cannot loop). */
export const MAX_ANCESTORS = 64;
/**
 * Siblings counted (one call each, no properties) past a node's child budget for `childCount`:
 * as many as the budget, at least this many; a longer list keeps `childCount` unset.
 */
export const MIN_COUNTED_PAST_CUT = 100;

/** The model node of an element's cached properties (children empty). */
export function propsToNode(props: UiaProps): AxNode {
  const states: string[] = [];
  if (props.isEnabled) {
    states.push('enabled');
  }
  if (props.hasKeyboardFocus) {
    states.push('focused');
  }
  if (props.isPassword) {
    states.push('secure');
  }
  return {
    role: controlTypeName(props.controlType),
    name: props.isPassword ? '' : props.name,
    states,
    bounds: props.bounds,
    children: [],
  };
}

/** `elementAt` before the app name is added: the path, the element's pid and the secure flag. */
export type ElementPath = { path: AxNode[]; pid: number | undefined; isSecure: boolean };

/**
 * The element at (x, y) first, then its control-view ancestors up to the top-level window (the
 * desktop root is left out); null over nothing. Every element handle is released.
 */
export function elementPathAt<E>(uia: UiaBackend<E>, x: number, y: number): ElementPath | null {
  const element = uia.elementFromPoint(x, y);
  if (element === null) {
    return null;
  }
  return ancestorPath(uia, element);
}

/** The path from `element` up to its top-level window; takes ownership of `element`. */
export function ancestorPath<E>(uia: UiaBackend<E>, element: E): ElementPath {
  const path: AxNode[] = [];
  let isSecure = false;
  let pid: number | undefined;
  let current: E | null = element;
  while (current !== null && path.length < MAX_ANCESTORS) {
    let props: UiaProps;
    try {
      props = uia.props(current);
    } catch {
      uia.release(current);
      break;
    }
    pid ??= props.processId > 0 ? props.processId : undefined;
    isSecure ||= props.isPassword;
    path.push(propsToNode(props));
    let parent: E | null;
    try {
      parent = uia.parent(current);
    } catch {
      parent = null; // a provider that fails on its parent ends the path, it does not lose it
    }
    uia.release(current);
    current = parent;
  }
  if (current !== null) {
    uia.release(current);
  }
  return { path, pid, isSecure };
}

/** The focused element's role, name (redacted when secure), secure flag and pid; null if none. */
export type FocusInfo = { role: string; name: string; isSecure: boolean; pid?: number };

/** Reads the focused element (one cached call) and releases it. */
export function focusedInfo<E>(uia: UiaBackend<E>): FocusInfo | null {
  const element = uia.focusedElement();
  if (element === null) {
    return null;
  }
  try {
    const props = uia.props(element);
    const node = propsToNode(props);
    const info: FocusInfo = { role: node.role, name: node.name, isSecure: props.isPassword };
    if (props.processId > 0) {
      info.pid = props.processId;
    }
    return info;
  } finally {
    uia.release(element);
  }
}

/** Result of {@link snapshotTree}. */
export type TreeSnapshot = {
  root: AxNode | null;
  nodeCount: number;
  truncated: boolean;
  note?: string;
  pid?: number;
};

/**
 * Walks the control view under `root` breadth first (the top of the window first, so a cut
 * keeps the structure), within `budget` on `nowMs`: at most maxNodes nodes, maxChildrenPerNode
 * children per node, nothing started after maxMs. Takes ownership of `root`; every handle is
 * released. Children beyond a node's budget are counted (without their properties) into
 * `childCount` while time remains, up to MIN_COUNTED_PAST_CUT or the budget again.
 */
export function snapshotTree<E>(
  uia: UiaBackend<E>,
  root: E,
  budget: Partial<AxBudget>,
  nowMs: () => number,
): TreeSnapshot {
  const tracker = new BudgetTracker(budget, nowMs);
  let rootProps: UiaProps;
  try {
    rootProps = uia.props(root);
  } catch (error) {
    uia.release(root);
    throw error;
  }
  tracker.takeNodes(1);
  const rootNode = propsToNode(rootProps);
  const queue: { element: E; node: AxNode }[] = [{ element: root, node: rootNode }];
  let head = 0;
  let outOfTime = false;
  let nodesCutSeen = false;
  while (head < queue.length) {
    const { element, node } = queue[head] as { element: E; node: AxNode };
    head += 1;
    outOfTime ||= tracker.isOutOfTime();
    if (outOfTime) {
      tracker.record('time'); // kept, but its children were not walked
    } else if (tracker.nodeCount() >= tracker.budget.maxNodes) {
      // the node budget is spent: one probe tells whether anything below was left out
      if (!nodesCutSeen && hasChild(uia, element)) {
        tracker.record('nodes');
        nodesCutSeen = true;
      }
    } else if (walkChildren(uia, element, node, tracker, queue) === 'nodes') {
      nodesCutSeen = true; // recorded already: no probes needed
    }
    uia.release(element);
  }
  const snapshot: TreeSnapshot = {
    root: rootNode,
    nodeCount: tracker.nodeCount(),
    truncated: tracker.isTruncated(),
  };
  const note = tracker.note();
  if (note !== undefined) {
    snapshot.note = note;
  }
  if (rootProps.processId > 0) {
    snapshot.pid = rootProps.processId;
  }
  return snapshot;
}

function hasChild<E>(uia: UiaBackend<E>, element: E): boolean {
  try {
    const child = uia.firstChild(element);
    if (child === null) {
      return false;
    }
    uia.release(child);
    return true;
  } catch {
    return false;
  }
}

function walkChildren<E>(
  uia: UiaBackend<E>,
  parent: E,
  node: AxNode,
  tracker: BudgetTracker,
  queue: { element: E; node: AxNode }[],
): 'children' | 'nodes' | 'time' | null {
  const perNode = tracker.budget.maxChildrenPerNode;
  const countLimit = perNode + Math.max(perNode, MIN_COUNTED_PAST_CUT);
  let child: E | null;
  try {
    child = uia.firstChild(parent);
  } catch {
    tracker.record('errors');
    return null;
  }
  let seen = 0;
  let failed = 0;
  let complete = true;
  let cut: 'children' | 'nodes' | 'time' | null = null;
  while (child !== null) {
    const current: E = child;
    seen += 1;
    if (cut === null) {
      if (seen > perNode) {
        cut = 'children';
      } else if (tracker.isOutOfTime()) {
        cut = 'time';
      } else if (tracker.takeNodes(1) === 0) {
        cut = 'nodes';
      }
    }
    let kept = false;
    if (cut === null) {
      try {
        const childNode = propsToNode(uia.props(current));
        node.children.push(childNode);
        queue.push({ element: current, node: childNode });
        kept = true;
      } catch {
        tracker.releaseNodes(1);
        tracker.record('errors');
        failed += 1;
      }
    } else if (tracker.isOutOfTime() || seen > countLimit) {
      // counting the siblings past a cut costs one call each: stop once the time is up or the
      // list is long (childCount is then left unset)
      uia.release(current);
      complete = false;
      break;
    }
    let next: E | null = null;
    try {
      next = uia.nextSibling(current);
    } catch {
      tracker.record('errors');
      complete = false;
    }
    if (!kept) {
      uia.release(current);
    }
    child = next;
  }
  const leftOut = seen - node.children.length - failed;
  if (leftOut > 0) {
    if (cut === 'children') {
      tracker.record('children', leftOut);
    } else if (cut === 'time') {
      tracker.record('time', leftOut);
    } else if (cut === 'nodes' && leftOut > 1) {
      tracker.record('nodes', leftOut - 1); // takeNodes recorded the first one
    }
  }
  if (complete && seen > node.children.length) {
    node.childCount = seen;
  }
  return cut;
}
