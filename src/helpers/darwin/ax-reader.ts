// The macOS helper's walking logic, pure over the AxBackend seam (ax-backend.ts) with an
// injected clock: the element under a point with its ancestors, the budgeted snapshot of the
// focused window and the focused element (docs/helper-protocol.md §3, §6). Rules it keeps:
// - every element it visits gets its own messaging timeout before it is queried (a timeout set
//   on one AX element does not carry over to its children);
// - the node attributes come in one AXUIElementCopyMultipleAttributeValues call, and children
//   are asked only of roles that can have any (never of leaves);
// - a secure text field (role or subrole AXSecureTextField) gets the state `secure` and the
//   name ''; AXValue is never read of it (AXValue is read only of AXStaticText, whose value is
//   its visible label: no other role's value is ever requested);
// - AXManualAccessibility is set once per process id (never AXEnhancedUserInterface);
// - every handle the backend returns is released before the call returns.
import type { AxBounds, AxNode } from '../../axtree/model';
import { BudgetTracker } from '../../axtree/budgets';
import type {
  ElementAtResult,
  SnapshotParams,
  SnapshotResult,
} from '../../axtree/platform/helper-protocol';
import type { AxAttributeValue, AxBackend, AxPoint, AxSize } from './ax-backend';
import { AX_ERROR, AxCallError } from './ax-backend';
import type { DisplayLayout } from './displays';
import { pixelToPoint, rectToPixels } from './displays';

/** The attributes of one node, fetched in one call, in this order. */
export const NODE_ATTRIBUTES = [
  'AXRole',
  'AXSubrole',
  'AXTitle',
  'AXDescription',
  'AXPosition',
  'AXSize',
  'AXFocused',
  'AXEnabled',
] as const;

/** Role and subrole of secure text fields. */
export const SECURE_TEXT_FIELD = 'AXSecureTextField';

/** Roles whose children are never asked for (leaves, or children that add nothing). */
export const LEAF_ROLES: ReadonlySet<string> = new Set([
  'AXStaticText',
  'AXTextField',
  SECURE_TEXT_FIELD,
  'AXTextArea',
  'AXImage',
  'AXButton',
  'AXCheckBox',
  'AXRadioButton',
  'AXDisclosureTriangle',
  'AXSlider',
  'AXColorWell',
  'AXProgressIndicator',
  'AXBusyIndicator',
  'AXValueIndicator',
  'AXLevelIndicator',
  'AXRelevanceIndicator',
  'AXSplitter',
  'AXGrowArea',
  'AXHandle',
]);

/** Default per-element messaging timeout, ms (docs/helper-protocol.md §3). */
export const DEFAULT_ELEMENT_TIMEOUT_MS = 250;
/** Shortest timeout ever set: AXUIElementSetMessagingTimeout(0) would restore the global one. */
const MIN_TIMEOUT_MS = 10;
/** Most ancestors followed from the element at a point (guards against parent cycles). */
const MAX_ANCESTORS = 64;

/** The focused element as focus polling sees it. */
export type FocusedInfo = {
  role: string;
  name: string;
  isSecure: boolean;
  app?: string;
  pid?: number;
};

/** Options of {@link AxReader}. */
export type AxReaderOptions<E> = {
  backend: AxBackend<E>;
  /** Monotonic clock, ms (fake in tests). */
  nowMs: () => number;
  /** The current display layout, for points ↔ pixels. */
  layout: () => DisplayLayout;
  /** Per-element messaging timeout when a request gives none, ms; default 250. */
  elementTimeoutMs?: number;
};

type ReadNode = { node: AxNode; role: string; secure: boolean };

function asString(value: AxAttributeValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

function isPoint(value: AxAttributeValue | undefined): value is AxPoint {
  return typeof value === 'object' && value !== null && 'x' in value && 'y' in value;
}

function isSize(value: AxAttributeValue | undefined): value is AxSize {
  return typeof value === 'object' && value !== null && 'width' in value && 'height' in value;
}

/** Reads AX trees through a backend; one per helper process (it remembers pids and the
 * system-wide element). */
export class AxReader<E> {
  private readonly backend: AxBackend<E>;
  private readonly manualPids = new Set<number>();
  private readonly appNames = new Map<number, string>();
  private systemWideElement: E | null = null;
  private lastFocused: E | null = null;

  constructor(private readonly options: AxReaderOptions<E>) {
    this.backend = options.backend;
  }

  /** Releases what the reader keeps (the system-wide element, the last focused element). */
  dispose(): void {
    if (this.lastFocused !== null) {
      this.backend.release(this.lastFocused);
      this.lastFocused = null;
    }
    if (this.systemWideElement !== null) {
      this.backend.release(this.systemWideElement);
      this.systemWideElement = null;
    }
  }

  private systemWide(timeoutMs: number): E {
    if (this.systemWideElement === null) {
      this.systemWideElement = this.backend.systemWide();
    }
    // on the system-wide element this is also the global default for elements not set yet
    this.backend.setMessagingTimeout(this.systemWideElement, timeoutMs / 1000);
    return this.systemWideElement;
  }

  /** Sets AXManualAccessibility on the application of `pid`, once per pid. */
  ensureManualAccessibility(pid: number, timeoutMs: number): void {
    if (this.manualPids.has(pid)) {
      return;
    }
    // remembered even when refused: asking again on every call would cost a round trip each
    this.manualPids.add(pid);
    const app = this.backend.application(pid);
    try {
      this.backend.setMessagingTimeout(app, timeoutMs / 1000);
      this.backend.setManualAccessibility(app);
    } catch {
      // a native app without the attribute: nothing to switch on
    } finally {
      this.backend.release(app);
    }
  }

  // Application name of `pid` (the AXApplication's AXTitle), read once per pid.
  private appName(pid: number, timeoutMs: number): string | undefined {
    const known = this.appNames.get(pid);
    if (known !== undefined) {
      return known === '' ? undefined : known;
    }
    const app = this.backend.application(pid);
    let name: string;
    try {
      this.backend.setMessagingTimeout(app, timeoutMs / 1000);
      name = asString(this.backend.copyAttributes(app, ['AXTitle'])[0]);
    } catch {
      // unnamed for now; asked again next time
      return undefined;
    } finally {
      this.backend.release(app);
    }
    this.appNames.set(pid, name);
    return name === '' ? undefined : name;
  }

  // Sets the element's own timeout, then reads its node in one multi-attribute call.
  private readNode(element: E, timeoutMs: number): ReadNode {
    this.backend.setMessagingTimeout(element, Math.max(MIN_TIMEOUT_MS, timeoutMs) / 1000);
    const values = this.backend.copyAttributes(element, NODE_ATTRIBUTES);
    const [role, subrole, title, description, position, size, focused, enabled] = values;
    const roleName = asString(role) || 'AXUnknown';
    const secure = roleName === SECURE_TEXT_FIELD || subrole === SECURE_TEXT_FIELD;
    const descriptionText = asString(description);
    let name = asString(title);
    if (name === '' && roleName === 'AXStaticText') {
      name = asString(this.backend.copyAttributes(element, ['AXValue'])[0]);
    }
    if (name === '') {
      name = descriptionText;
    }
    const states: string[] = [];
    if (enabled === true) {
      states.push('enabled');
    }
    if (focused === true) {
      states.push('focused');
    }
    if (secure) {
      states.push('secure');
      name = '';
    }
    let bounds: AxBounds | null = null;
    if (isPoint(position) && isSize(size)) {
      bounds = rectToPixels(this.options.layout(), { ...position, ...size });
    }
    const node: AxNode = { role: roleName, name, states, bounds, children: [] };
    if (descriptionText !== '' && descriptionText !== name && !secure) {
      node.description = descriptionText;
    }
    return { node, role: roleName, secure };
  }

  /** The element at a pixel point with its ancestors up to the application, or null. */
  elementAt(x: number, y: number, elementTimeoutMs?: number): ElementAtResult | null {
    const timeoutMs =
      elementTimeoutMs ?? this.options.elementTimeoutMs ?? DEFAULT_ELEMENT_TIMEOUT_MS;
    const point = pixelToPoint(this.options.layout(), { x, y });
    const systemWide = this.systemWide(timeoutMs);
    let element = this.backend.elementAtPosition(systemWide, point.x, point.y);
    if (element === null) {
      return null;
    }
    const owned: E[] = [element];
    try {
      const pid = this.backend.pid(element);
      if (pid !== null) {
        this.ensureManualAccessibility(pid, timeoutMs);
      }
      const path: AxNode[] = [];
      let isSecure = false;
      let app: string | null = null;
      for (let depth = 0; depth < MAX_ANCESTORS; depth++) {
        const read = this.readNode(element, timeoutMs);
        path.push(read.node);
        isSecure ||= read.secure;
        if (read.role === 'AXApplication') {
          app = read.node.name === '' ? null : read.node.name;
          break;
        }
        const parent = this.parentOf(element);
        if (parent === null) {
          break;
        }
        owned.push(parent);
        element = parent;
      }
      if (app === null && pid !== null) {
        app = this.appName(pid, timeoutMs) ?? null;
      }
      const result: ElementAtResult = { path, app, isSecure };
      if (pid !== null) {
        result.pid = pid;
      }
      return result;
    } finally {
      owned.forEach((h) => this.backend.release(h));
    }
  }

  private parentOf(element: E): E | null {
    try {
      return this.backend.copyElementAttribute(element, 'AXParent');
    } catch (error) {
      if (error instanceof AxCallError && error.code === AX_ERROR.invalidUIElement) {
        return null;
      }
      throw error;
    }
  }

  /** The focused window's tree within the budget (docs/helper-protocol.md §3). */
  snapshotFocusedWindow(params: Partial<SnapshotParams>): SnapshotResult {
    const { nowMs, backend } = this.options;
    const tracker = new BudgetTracker(params, nowMs);
    const elementTimeoutMs =
      params.elementTimeoutMs ?? this.options.elementTimeoutMs ?? DEFAULT_ELEMENT_TIMEOUT_MS;
    // never wait on one element past the end of the time budget
    const timeout = (): number => Math.min(elementTimeoutMs, tracker.remainingMs());
    const systemWide = this.systemWide(elementTimeoutMs);
    const owned: E[] = [];
    const own = (h: E | null): E | null => {
      if (h !== null) {
        owned.push(h);
      }
      return h;
    };
    try {
      const app = own(backend.copyElementAttribute(systemWide, 'AXFocusedApplication'));
      if (app === null) {
        return { root: null, nodeCount: 0, truncated: false, note: 'no application has focus' };
      }
      backend.setMessagingTimeout(app, Math.max(MIN_TIMEOUT_MS, timeout()) / 1000);
      const pid = backend.pid(app);
      if (pid !== null) {
        this.ensureManualAccessibility(pid, elementTimeoutMs);
      }
      const appName = pid === null ? undefined : this.appName(pid, elementTimeoutMs);
      const base = appName === undefined ? {} : { app: appName };
      let window: E | null;
      let root: ReadNode;
      try {
        window = own(backend.copyElementAttribute(app, 'AXFocusedWindow'));
        if (window === null) {
          return {
            root: null,
            nodeCount: 0,
            truncated: false,
            note: 'no window has focus',
            ...base,
          };
        }
        root = this.readNode(window, timeout());
      } catch (error) {
        if (!(error instanceof AxCallError) || error.code === AX_ERROR.apiDisabled) {
          throw error;
        }
        // a busy app: an empty, truncated answer, not a failed request
        const note = `the focused window could not be read: ${error.message}`;
        return { root: null, nodeCount: 0, truncated: true, note, ...base };
      }
      tracker.takeNodes(1);
      this.walk(window, root, tracker, timeout, own);
      const result: SnapshotResult = {
        root: root.node,
        nodeCount: tracker.nodeCount(),
        truncated: tracker.isTruncated(),
        ...base,
      };
      const note = tracker.note();
      if (note !== undefined) {
        result.note = note;
      }
      return result;
    } finally {
      owned.forEach((h) => backend.release(h));
    }
  }

  // Breadth first: the top of a big window is worth more than the depths of its first list.
  private walk(
    window: E,
    root: ReadNode,
    tracker: BudgetTracker,
    timeout: () => number,
    own: (h: E) => E | null,
  ): void {
    const { backend } = this.options;
    const { maxNodes, maxChildrenPerNode } = tracker.budget;
    const hasChildren = (read: ReadNode): boolean => !read.secure && !LEAF_ROLES.has(read.role);
    const queue: { element: E; node: AxNode }[] = hasChildren(root)
      ? [{ element: window, node: root.node }]
      : [];
    while (queue.length > 0) {
      if (tracker.isOutOfTime()) {
        tracker.record('time', queue.length);
        return;
      }
      if (tracker.nodeCount() >= maxNodes) {
        tracker.record('nodes', queue.length);
        return;
      }
      const { element, node } = queue.shift() as { element: E; node: AxNode };
      let handles: E[];
      let total: number;
      try {
        // its timeout was set when it was read: shorten it to what is left of the budget
        backend.setMessagingTimeout(element, Math.max(MIN_TIMEOUT_MS, timeout()) / 1000);
        const room = Math.min(maxChildrenPerNode, maxNodes - tracker.nodeCount());
        handles = room > 0 ? backend.children(element, room) : [];
        handles.forEach(own);
        // a full page may hide more: only then is the count worth a round trip
        total = handles.length < room ? handles.length : backend.childCount(element);
      } catch {
        tracker.record(tracker.isOutOfTime() ? 'time' : 'errors');
        continue;
      }
      if (total === 0) {
        continue;
      }
      const allowed = tracker.takeNodes(tracker.childrenAllowed(total));
      const kept = handles.slice(0, allowed);
      if (kept.length < allowed) {
        tracker.releaseNodes(allowed - kept.length);
      }
      for (let i = 0; i < kept.length; i++) {
        if (tracker.isOutOfTime()) {
          tracker.releaseNodes(kept.length - i);
          tracker.record('time', kept.length - i);
          break;
        }
        const child = kept[i] as E;
        let read: ReadNode;
        try {
          read = this.readNode(child, timeout());
        } catch {
          tracker.releaseNodes(1);
          tracker.record(tracker.isOutOfTime() ? 'time' : 'errors');
          continue;
        }
        node.children.push(read.node);
        if (hasChildren(read)) {
          queue.push({ element: child, node: read.node });
        }
      }
      if (node.children.length < total) {
        node.childCount = total;
      }
    }
  }

  /** Process id of the focused application (the frontmost one), or null. */
  focusedApplicationPid(elementTimeoutMs?: number): number | null {
    const { backend } = this.options;
    const timeoutMs =
      elementTimeoutMs ?? this.options.elementTimeoutMs ?? DEFAULT_ELEMENT_TIMEOUT_MS;
    const app = backend.copyElementAttribute(this.systemWide(timeoutMs), 'AXFocusedApplication');
    if (app === null) {
      return null;
    }
    try {
      return backend.pid(app);
    } finally {
      backend.release(app);
    }
  }

  /**
   * The focused element (system-wide AXFocusedUIElement), or null when nothing has focus. With
   * `track`, the reader keeps the element and `changed` says whether it differs from the one of
   * the previous tracked call (focus polling); without, nothing is remembered (one-off requests
   * must not hide a change from the poller).
   */
  focused(
    options: { track?: boolean; elementTimeoutMs?: number } = {},
  ): { info: FocusedInfo; changed: boolean } | null {
    const { backend } = this.options;
    const timeoutMs =
      options.elementTimeoutMs ?? this.options.elementTimeoutMs ?? DEFAULT_ELEMENT_TIMEOUT_MS;
    const systemWide = this.systemWide(timeoutMs);
    let element: E | null;
    try {
      element = backend.copyElementAttribute(systemWide, 'AXFocusedUIElement');
    } catch (error) {
      if (error instanceof AxCallError && error.code === AX_ERROR.noValue) {
        element = null;
      } else {
        throw error;
      }
    }
    if (element === null) {
      if (options.track === true && this.lastFocused !== null) {
        backend.release(this.lastFocused);
        this.lastFocused = null;
      }
      return null;
    }
    const changed =
      options.track === true &&
      (this.lastFocused === null || !backend.sameElement(this.lastFocused, element));
    try {
      const pid = backend.pid(element);
      if (pid !== null) {
        this.ensureManualAccessibility(pid, timeoutMs);
      }
      const read = this.readNode(element, timeoutMs);
      const info: FocusedInfo = { role: read.role, name: read.node.name, isSecure: read.secure };
      if (pid !== null) {
        const app = this.appName(pid, timeoutMs);
        if (app !== undefined) {
          info.app = app;
        }
        info.pid = pid;
      }
      return { info, changed };
    } finally {
      if (options.track === true) {
        if (this.lastFocused !== null) {
          backend.release(this.lastFocused);
        }
        this.lastFocused = element;
      } else {
        backend.release(element);
      }
    }
  }
}
