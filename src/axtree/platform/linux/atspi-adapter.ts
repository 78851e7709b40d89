// AccessibilityAdapter for Linux over AT-SPI (D-Bus, no helper process).
// - elementAt: the shown top-level window containing the point (active first), then
//   Component.GetAccessibleAtPoint from the window down to the deepest element; the path is that
//   chain reversed plus the application, with missing ancestors filled in through `Parent`.
// - snapshotFocusedWindow: the ACTIVE window's subtree, breadth first with every call of a level
//   in parallel (docs/platform-linux.md §4: ~330–400 ms for 270–490 nodes), within budgets.
// - focusedIsSecure: the focused element's role (`password text`), from focus events when fresh,
//   else Collection.GetMatches(FOCUSED) on the active window.
// - content changes: children-changed, accessible-name changes and state changes reported as
//   AxContentChange, so the session's snapshot policy re-walks a window
//   only when it changed; text edits and bounds changes are not subscribed (a snapshot holds no
//   text, and bounds events flood during animations).
// Cache.GetItems (docs/platform-linux.md §4 "fast path") is not used: GTK 3's bridge only exposes
// /org/a11y/atspi/cache after some client registers an event listener, then lists only the
// objects it has registered so far (13 items on the fresh test form; 241 for gtk3-widget-factory,
// whose active window alone walks to 260 nodes), and has no bounds. Completeness would have to be
// checked node by node and extents still cost one call per node, so the walk stays the source.
import { AppError } from '../../../shared/errors';
import type { AccessibilityAdapter, AccessibilityInfo, AxContentChange } from '../../adapter';
import type { AxBudget } from '../../budgets';
import { BudgetTracker } from '../../budgets';
import type { TruncationReason } from '../../budgets';
import type { AxElementRecord, AxFocusEvent, AxNode, AxSnapshot } from '../../model';
import { boundsContain, isSecureNode } from '../../model';
import { hasState } from '../../states';
import { DEFAULT_ATSPI_CALL_TIMEOUT_MS, connectAtspi } from './atspi';
import type { AtspiBus, AtspiConnectOptions, AtspiRef, AtspiSignal } from './atspi';
import {
  ATSPI,
  AtspiQueries,
  REGISTRY_OBJECT,
  isWindowShown,
  refKey,
  toAxNode,
} from './atspi-queries';
import type { NodeInfo, WindowInfo } from './atspi-queries';

/** Options of {@link AtspiAdapter}. */
export type AtspiAdapterOptions = AtspiConnectOptions & {
  /** Session clock in ms (CLOCK_MONOTONIC), e.g. the recorder's `monotonicNowMs`. */
  now: () => number;
  /** Overall limit of one elementAt / focusedIsSecure query, ms; default 1 500. */
  queryTimeoutMs?: number;
  /** Deepest hit-test descent (guards against cyclic trees); default 64. */
  maxDepth?: number;
  /** Listen for focus changes (object:state-changed:focused); default true. */
  shouldTrackFocus?: boolean;
  /** Listen for content changes (children, names, states) of every application; default true. */
  shouldTrackContent?: boolean;
  /** Test seam: how to connect; default {@link connectAtspi}. */
  connect?: (options: AtspiConnectOptions) => Promise<AtspiBus>;
};

/** Default overall limit of one query, ms. */
export const DEFAULT_ATSPI_QUERY_TIMEOUT_MS = 1500;
const DEFAULT_MAX_DEPTH = 64;
const FOCUS_EVENT = 'object:state-changed:focused';
/** Events that change what a snapshot shows (registered with the registry, matched on our bus). */
const CONTENT_EVENTS = [
  'object:children-changed',
  'object:property-change:accessible-name',
  'object:state-changed',
] as const;
const CONTENT_MATCHES = [
  `member='ChildrenChanged'`,
  `member='PropertyChange',arg0='accessible-name'`,
  `member='StateChanged'`,
] as const;

type TrackedFocus = { ref: AtspiRef; role: string | null };

/** The Linux accessibility adapter. */
export class AtspiAdapter implements AccessibilityAdapter {
  private bus: AtspiBus | null = null;
  private queries: AtspiQueries | null = null;
  private failure: AppError | null = null;
  private focus: TrackedFocus | null = null;
  private readonly focusListeners = new Set<(event: AxFocusEvent) => void>();
  private readonly contentListeners = new Set<(change: AxContentChange) => void>();
  /** Bus name of the application whose window was walked last (the focused one), or null. */
  private focusedAppBus: string | null = null;
  private disposeSignals: (() => void) | null = null;
  private isStopped = false;
  private readonly queryTimeoutMs: number;
  private readonly maxDepth: number;

  constructor(private readonly options: AtspiAdapterOptions) {
    this.queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_ATSPI_QUERY_TIMEOUT_MS;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  }

  // Connects to the a11y bus (enabling accessibility) and starts focus tracking.
  async start(): Promise<AccessibilityInfo> {
    if (this.bus || this.isStopped) {
      throw new Error('AtspiAdapter.start() called twice or after stop(); create a new one');
    }
    const connect = this.options.connect ?? connectAtspi;
    const bus = await connect(this.options);
    this.bus = bus;
    this.queries = new AtspiQueries(
      bus,
      this.options.callTimeoutMs ?? DEFAULT_ATSPI_CALL_TIMEOUT_MS,
    );
    bus.onError((error) => {
      this.failure = error;
    });
    const capabilities = ['elementAt', 'snapshot', 'secure'];
    this.disposeSignals = bus.onSignal((signal) => this.handleSignal(signal));
    if (this.options.shouldTrackFocus ?? true) {
      try {
        await this.startFocusTracking(bus);
        capabilities.push('focusEvents');
      } catch {
        // without events focusedIsSecure still works by querying
      }
    }
    if (this.options.shouldTrackContent ?? true) {
      try {
        await this.startContentTracking(bus);
        capabilities.push('contentEvents');
      } catch {
        // without events the snapshot policy falls back to input actions
      }
    }
    return { backend: 'atspi', capabilities };
  }

  // The element under (x, y) with its ancestors up to the application, or null.
  async elementAt(x: number, y: number): Promise<AxElementRecord | null> {
    const tMs = this.options.now();
    const q = this.ready();
    return await this.withDeadline('elementAt', async () => {
      const windows = await q.listWindows();
      const window = pickWindowAt(windows, x, y);
      if (!window) {
        return null;
      }
      const chain = await this.hitTestChain(q, window, x, y);
      const nodes = chain.map(toAxNode);
      const appNode = await this.appNode(q, window);
      const path = [...nodes.reverse(), appNode];
      return {
        tMs,
        x,
        y,
        path,
        app: window.app.name === '' ? null : window.app.name,
        isSecure: path.some(isSecureNode),
      };
    });
  }

  // The active window's subtree within the budget (never throws for budget overruns).
  async snapshotFocusedWindow(budget: Partial<AxBudget> = {}): Promise<AxSnapshot> {
    const tMs = this.options.now();
    const q = this.ready();
    const tracker = new BudgetTracker(budget, this.options.now);
    const windows = await this.withDeadline('snapshotFocusedWindow', () => q.listWindows());
    const window = windows.find((w) => hasState(w.words, 'active'));
    this.focusedAppBus = window?.ref.bus ?? null;
    if (!window) {
      return {
        tMs,
        durationMs: this.options.now() - tMs,
        root: null,
        nodeCount: 0,
        truncated: false,
        note: 'no active window (is a window manager running?)',
      };
    }
    const root = await walkTree(q, window, tracker);
    const snapshot: AxSnapshot = {
      tMs,
      durationMs: this.options.now() - tMs,
      root,
      nodeCount: tracker.nodeCount(),
      truncated: tracker.isTruncated(),
      app: window.app.name,
    };
    const note = tracker.note();
    if (note !== undefined) {
      snapshot.note = note;
    }
    return snapshot;
  }

  // True when the focused element of the active window is a password field.
  async focusedIsSecure(): Promise<boolean> {
    const q = this.ready();
    return await this.withDeadline('focusedIsSecure', async () => {
      const tracked = this.focus;
      if (tracked) {
        try {
          const [words, role] = await Promise.all([
            q.stateWords(tracked.ref),
            tracked.role === null ? q.roleName(tracked.ref) : Promise.resolve(tracked.role),
          ]);
          if (hasState(words, 'focused')) {
            return isSecureNode({ role });
          }
        } catch {
          // the element is gone: ask the tree instead
        }
      }
      const focused = await this.findFocused(q);
      return focused !== null && isSecureNode({ role: await q.roleName(focused) });
    });
  }

  // Subscribes to focus changes (needs focus tracking, on by default).
  onFocusChanged(listener: (event: AxFocusEvent) => void): () => void {
    this.focusListeners.add(listener);
    return () => {
      this.focusListeners.delete(listener);
    };
  }

  // Subscribes to content changes (needs content tracking, on by default).
  onContentChanged(listener: (change: AxContentChange) => void): () => void {
    this.contentListeners.add(listener);
    return () => {
      this.contentListeners.delete(listener);
    };
  }

  /** D-Bus method calls made so far, per member (tests and the recorder benchmark). */
  callCounts(): Record<string, number> {
    return Object.fromEntries(this.queries?.callCounts ?? []);
  }

  // Disconnects (and restores org.a11y.Status.IsEnabled if we changed it).
  async stop(): Promise<void> {
    if (this.isStopped) {
      return;
    }
    this.isStopped = true;
    this.disposeSignals?.();
    this.focusListeners.clear();
    this.contentListeners.clear();
    const bus = this.bus;
    this.bus = null;
    this.queries = null;
    await bus?.close();
  }

  private ready(): AtspiQueries {
    if (this.failure) {
      throw this.failure;
    }
    if (!this.queries) {
      throw new Error(
        this.isStopped ? 'AtspiAdapter used after stop()' : 'AtspiAdapter: call start() first',
      );
    }
    return this.queries;
  }

  private async withDeadline<T>(what: string, run: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(
          new AppError(
            'ACCESSIBILITY_TIMEOUT',
            `AT-SPI ${what} took longer than ${this.queryTimeoutMs} ms`,
            { operation: what, timeoutMs: this.queryTimeoutMs },
          ),
        );
      }, this.queryTimeoutMs);
    });
    try {
      return await Promise.race([run(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  // Window first, deepest element last; intermediate ancestors the hit test skipped are added.
  private async hitTestChain(
    q: AtspiQueries,
    window: WindowInfo,
    x: number,
    y: number,
  ): Promise<NodeInfo[]> {
    const refs: AtspiRef[] = [window.ref];
    const seen = new Set([refKey(window.ref)]);
    let current = window.ref;
    for (let depth = 0; depth < this.maxDepth; depth += 1) {
      const hit = await q.accessibleAtPoint(current, x, y);
      if (hit === null || seen.has(refKey(hit))) {
        break;
      }
      seen.add(refKey(hit));
      refs.push(hit);
      current = hit;
    }
    const below = refs.slice(1);
    // nodeInfo reads the parent too (Properties.GetAll): one call fewer per element
    const infos = await Promise.all(below.map(async (ref) => await q.nodeInfo(ref)));
    const chain: NodeInfo[] = [window];
    let previous = window.ref;
    for (const info of infos) {
      const parent = info.parent ?? null;
      // toolkits whose hit test returns a deep descendant (Chromium) skip levels: climb back
      if (parent !== null && refKey(parent) !== refKey(previous)) {
        chain.push(...(await this.ancestorsBetween(q, parent, previous)));
      }
      chain.push(info);
      previous = info.ref;
    }
    return chain;
  }

  // Ancestors from `stop` (exclusive) down to `from` (inclusive), outermost first.
  private async ancestorsBetween(
    q: AtspiQueries,
    from: AtspiRef,
    stop: AtspiRef,
  ): Promise<NodeInfo[]> {
    const found: NodeInfo[] = [];
    let current: AtspiRef | null = from;
    for (let i = 0; current !== null && i < this.maxDepth; i += 1) {
      if (refKey(current) === refKey(stop)) {
        return found.reverse();
      }
      const info: NodeInfo = await q.nodeInfo(current);
      found.push(info);
      current = info.parent ?? null;
    }
    // `stop` is not an ancestor after all: keep the chain as the hit test gave it
    return [];
  }

  private async appNode(q: AtspiQueries, window: WindowInfo): Promise<AxNode> {
    let role = 'application';
    let words: number[] = [];
    try {
      [role, words] = await Promise.all([q.roleName(window.app.ref), q.stateWords(window.app.ref)]);
    } catch {
      // the name is already known; role/states are decoration
    }
    return toAxNode({ ref: window.app.ref, role, name: window.app.name, words, bounds: null });
  }

  private async findFocused(q: AtspiQueries): Promise<AtspiRef | null> {
    const windows = await q.listWindows();
    const active = windows.filter((w) => hasState(w.words, 'active'));
    // without a window manager nothing is ACTIVE: look in every shown window
    const candidates = active.length > 0 ? active : windows.filter(isWindowShown);
    const hits = await Promise.all(
      candidates.map(async (w) => {
        try {
          return await q.firstWithStates(w.ref, ['focused']);
        } catch {
          return null;
        }
      }),
    );
    return hits.find((h) => h !== null) ?? null;
  }

  private async startFocusTracking(bus: AtspiBus): Promise<void> {
    await bus.addMatch(
      `type='signal',interface='${ATSPI.eventObject}',member='StateChanged',arg0='focused'`,
    );
    // applications only emit events somebody registered for (at-spi2-core atk-adaptor/bridge.c)
    await bus.call(REGISTRY_OBJECT, ATSPI.registry, 'RegisterEvent', 'sass', [FOCUS_EVENT, [], '']);
  }

  private async startContentTracking(bus: AtspiBus): Promise<void> {
    await Promise.all(
      CONTENT_MATCHES.map((m) =>
        bus.addMatch(`type='signal',interface='${ATSPI.eventObject}',${m}`),
      ),
    );
    await Promise.all(
      CONTENT_EVENTS.map((event) =>
        bus.call(REGISTRY_OBJECT, ATSPI.registry, 'RegisterEvent', 'sass', [event, [], '']),
      ),
    );
  }

  private handleSignal(signal: AtspiSignal): void {
    if (signal.interface !== ATSPI.eventObject) {
      return;
    }
    if (
      signal.member === 'ChildrenChanged' ||
      signal.member === 'PropertyChange' ||
      signal.member === 'StateChanged'
    ) {
      this.noteContentChange(signal.sender);
    }
    if (signal.member !== 'StateChanged' || !(this.options.shouldTrackFocus ?? true)) {
      return;
    }
    const [kind, detail1] = signal.body;
    if (kind !== 'focused') {
      return;
    }
    const ref: AtspiRef = { bus: signal.sender, path: signal.path };
    if (detail1 !== 1) {
      if (this.focus && refKey(this.focus.ref) === refKey(ref)) {
        this.focus = null;
      }
      return;
    }
    const tMs = this.options.now();
    const tracked: TrackedFocus = { ref, role: null };
    this.focus = tracked;
    void this.describeFocus(tracked, tMs);
  }

  // Reports a content change to the listeners (the snapshot policy coalesces them).
  private noteContentChange(sender: string): void {
    if (this.contentListeners.size === 0) {
      return;
    }
    const isFocusedApp = this.focusedAppBus === null || this.focusedAppBus === sender;
    const tMs = this.options.now();
    const change: AxContentChange = { tMs, isFocusedApp };
    this.contentListeners.forEach((listener) => listener(change));
  }

  private async describeFocus(tracked: TrackedFocus, tMs: number): Promise<void> {
    const q = this.queries;
    if (!q) {
      return;
    }
    try {
      const [role, name] = await Promise.all([q.roleName(tracked.ref), q.name(tracked.ref)]);
      tracked.role = role;
      const event: AxFocusEvent = { tMs, role, name, isSecure: isSecureNode({ role }) };
      this.focusListeners.forEach((listener) => listener(event));
    } catch {
      // focus moved on or the element vanished before we could read it
    }
  }
}

// The shown window containing the point: the active one first, then modal, then the smallest.
function pickWindowAt(windows: WindowInfo[], x: number, y: number): WindowInfo | null {
  const hits = windows.filter((w) => isWindowShown(w) && boundsContain(w.bounds, x, y));
  const area = (w: WindowInfo): number => (w.bounds ? w.bounds.width * w.bounds.height : Infinity);
  hits.sort((a, b) => {
    const rank = (w: WindowInfo): number =>
      hasState(w.words, 'active') ? 0 : hasState(w.words, 'modal') ? 1 : 2;
    return rank(a) - rank(b) || area(a) - area(b);
  });
  return hits[0] ?? null;
}

// Breadth-first walk of `window`, one parallel round of calls per level, within the budget.
async function walkTree(
  q: AtspiQueries,
  window: WindowInfo,
  tracker: BudgetTracker,
): Promise<AxNode> {
  tracker.takeNodes(1);
  const root = toAxNode(window);
  // childCount (from GetAll) 0: a leaf, whose GetChildren is never asked for
  let level: { node: AxNode; ref: AtspiRef; childCount: number | null }[] = [
    { node: root, ref: window.ref, childCount: window.childCount ?? null },
  ];
  // a call that fails after the deadline failed because of it, not because of the application
  const failure = (): TruncationReason => (tracker.isOutOfTime() ? 'time' : 'errors');
  while (level.length > 0) {
    if (tracker.isOutOfTime()) {
      tracker.record('time', level.length);
      break;
    }
    // 1. children of every node in this level, in parallel
    const childLists = await raceBudget(
      tracker,
      level.map(async ({ ref, childCount }) => {
        if (childCount === 0) {
          return [];
        }
        try {
          return await q.children(ref, callLimit(tracker));
        } catch {
          return null;
        }
      }),
    );
    // 2. reserve nodes in document order, cutting at the child and node budgets
    const next: { parent: AxNode; ref: AtspiRef }[] = [];
    const reported = new Map<AxNode, number>();
    level.forEach(({ node }, i) => {
      const children = childLists[i];
      if (children === undefined || children === null) {
        tracker.record(children === undefined ? 'time' : failure());
        return;
      }
      if (children.length === 0) {
        return;
      }
      reported.set(node, children.length);
      const allowed = tracker.takeNodes(tracker.childrenAllowed(children.length));
      children.slice(0, allowed).forEach((ref) => next.push({ parent: node, ref }));
    });
    if (next.length > 0 && tracker.isOutOfTime()) {
      tracker.releaseNodes(next.length);
      tracker.record('time', next.length);
      next.length = 0;
    }
    // 3. properties of every child, in parallel
    const infos = await raceBudget(
      tracker,
      next.map(async ({ ref }) => {
        try {
          return await q.nodeInfo(ref, callLimit(tracker));
        } catch {
          return null;
        }
      }),
    );
    const nextLevel: { node: AxNode; ref: AtspiRef; childCount: number | null }[] = [];
    next.forEach(({ parent, ref }, i) => {
      const info = infos[i];
      if (info === undefined || info === null) {
        tracker.releaseNodes(1);
        tracker.record(info === undefined ? 'time' : failure());
        return;
      }
      if (hasState(info.words, 'defunct')) {
        tracker.releaseNodes(1);
        return;
      }
      const node = toAxNode(info);
      parent.children.push(node);
      nextLevel.push({ node, ref, childCount: info.childCount ?? null });
    });
    // a node holding fewer children than the platform reports says how many there are
    for (const [node, count] of reported) {
      if (node.children.length < count) {
        node.childCount = count;
      }
    }
    level = nextLevel;
  }
  return root;
}

// Per-call limit: the default, but never past the capture's time budget.
function callLimit(tracker: BudgetTracker): number {
  return Math.max(1, Math.min(tracker.remainingMs(), DEFAULT_ATSPI_QUERY_TIMEOUT_MS));
}

// Awaits all promises until the time budget ends; unfinished ones come back as undefined.
async function raceBudget<T>(
  tracker: BudgetTracker,
  promises: Promise<T>[],
): Promise<(T | undefined)[]> {
  const results: (T | undefined)[] = promises.map(() => undefined);
  const all = Promise.all(
    promises.map(async (p, i) => {
      results[i] = await p;
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, tracker.remainingMs());
  });
  try {
    await Promise.race([all, timeout]);
  } finally {
    clearTimeout(timer);
  }
  return [...results];
}
