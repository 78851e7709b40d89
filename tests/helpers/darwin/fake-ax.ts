// An in-memory macOS AX world for the darwin helper's tests: applications with element trees,
// a system-wide element, focus, a fake clock that each OS round trip advances, and a record of
// every call (which handle, which attributes, which timeout) so tests can check the helper's
// rules: a timeout on every element before it is queried, no AXValue of anything but static
// text, AXManualAccessibility once per pid, every handle released.
import type {
  AxAttributeValue,
  AxBackend,
  CgDisplay,
  CgWindow,
  DarwinSystem,
  OsPermission,
} from '../../../src/helpers/darwin/ax-backend';
import { AX_ERROR, AxCallError } from '../../../src/helpers/darwin/ax-backend';

/** One fake element (points, like AX). */
export type FakeElement = {
  role: string;
  subrole?: string;
  title?: string;
  description?: string;
  value?: string;
  position?: { x: number; y: number };
  size?: { width: number; height: number };
  focused?: boolean;
  enabled?: boolean;
  children?: FakeElement[];
  /** Every call on this element fails with kAXErrorCannotComplete (a hung app). */
  hangs?: boolean;
  /** Set by the world. */
  parent?: FakeElement;
  pid?: number;
};

/** A handle: a distinct object per copy, like two CFTypeRefs of one element. */
export type FakeHandle = { element: FakeElement | 'systemWide'; serial: number };

/** One recorded backend call. */
export type FakeCall = {
  op: string;
  handle?: FakeHandle;
  names?: readonly string[];
  seconds?: number;
};

export function el(
  role: string,
  fields: Omit<FakeElement, 'role'> = {},
  children: FakeElement[] = [],
): FakeElement {
  return { role, ...fields, children };
}

export class FakeClock {
  ms = 1000;
  now = (): number => this.ms;
}

/** The fake AX world and backend. */
export class FakeAx implements AxBackend<FakeHandle> {
  readonly calls: FakeCall[] = [];
  readonly live = new Set<FakeHandle>();
  readonly violations: string[] = [];
  readonly apps = new Map<number, FakeElement>();
  trusted = true;
  focusedPid: number | null = null;
  focusedElement: FakeElement | null = null;
  /** Fake ms each OS round trip costs. */
  costMs = 1;
  private serial = 0;
  private readonly timeouts = new WeakMap<FakeHandle, number>();

  constructor(readonly clock: FakeClock) {}

  /** Adds an application `AXApplication` with its windows; the first window is focused. */
  addApp(pid: number, title: string, windows: FakeElement[]): FakeElement {
    const app = el('AXApplication', { title }, windows);
    const adopt = (node: FakeElement, parent: FakeElement | undefined): void => {
      node.pid = pid;
      if (parent !== undefined) {
        node.parent = parent;
      }
      node.children?.forEach((c) => adopt(c, node));
    };
    adopt(app, undefined);
    this.apps.set(pid, app);
    return app;
  }

  private handle(element: FakeElement | 'systemWide'): FakeHandle {
    const h = { element, serial: ++this.serial };
    this.live.add(h);
    return h;
  }

  // A round trip to the target app: needs a live handle with its own timeout set first.
  private query(op: string, h: FakeHandle, names?: readonly string[]): FakeElement | 'systemWide' {
    this.calls.push({ op, handle: h, ...(names ? { names } : {}) });
    if (!this.live.has(h)) {
      this.violations.push(`${op} on a released handle #${h.serial}`);
    }
    if (!this.timeouts.has(h)) {
      this.violations.push(`${op} on handle #${h.serial} (${describe(h)}) before its timeout`);
    }
    this.clock.ms += this.costMs;
    if (h.element !== 'systemWide' && h.element.hangs === true) {
      this.clock.ms += (this.timeouts.get(h) ?? 6) * 1000;
      throw new AxCallError(AX_ERROR.cannotComplete, op);
    }
    return h.element;
  }

  isProcessTrusted(prompt = false): boolean {
    this.calls.push({ op: prompt ? 'AXIsProcessTrustedWithOptions' : 'AXIsProcessTrusted' });
    return this.trusted;
  }

  systemWide(): FakeHandle {
    this.calls.push({ op: 'systemWide' });
    return this.handle('systemWide');
  }

  application(pid: number): FakeHandle {
    this.calls.push({ op: 'application' });
    const app = this.apps.get(pid);
    if (app === undefined) {
      throw new Error(`no fake app ${pid}`);
    }
    return this.handle(app);
  }

  elementAtPosition(systemWide: FakeHandle, x: number, y: number): FakeHandle | null {
    this.query('elementAtPosition', systemWide);
    const hit = (node: FakeElement): FakeElement | null => {
      for (const child of node.children ?? []) {
        const found = hit(child);
        if (found !== null) {
          return found;
        }
      }
      const { position: p, size: s } = node;
      return p && s && x >= p.x && y >= p.y && x < p.x + s.width && y < p.y + s.height
        ? node
        : null;
    };
    for (const app of this.apps.values()) {
      const found = hit(app);
      if (found !== null) {
        return this.handle(found);
      }
    }
    return null;
  }

  copyAttributes(h: FakeHandle, names: readonly string[]): (AxAttributeValue | undefined)[] {
    const e = this.query('copyAttributes', h, names);
    if (e === 'systemWide') {
      return names.map(() => undefined);
    }
    return names.map((name) => {
      switch (name) {
        case 'AXRole':
          return e.role;
        case 'AXSubrole':
          return e.subrole;
        case 'AXTitle':
          return e.title;
        case 'AXDescription':
          return e.description;
        case 'AXValue':
          return e.value;
        case 'AXPosition':
          return e.position;
        case 'AXSize':
          return e.size;
        case 'AXFocused':
          return e.focused;
        case 'AXEnabled':
          return e.enabled;
        default:
          return undefined;
      }
    });
  }

  copyElementAttribute(h: FakeHandle, name: string): FakeHandle | null {
    const e = this.query(`copyElementAttribute(${name})`, h);
    let target: FakeElement | null | undefined = null;
    if (e === 'systemWide') {
      if (name === 'AXFocusedApplication') {
        target = this.focusedPid === null ? null : this.apps.get(this.focusedPid);
      } else if (name === 'AXFocusedUIElement') {
        target = this.focusedElement;
      }
    } else if (name === 'AXParent') {
      target = e.parent;
    } else if (name === 'AXFocusedWindow') {
      target = e.role === 'AXApplication' ? (e.children?.[0] ?? null) : null;
    }
    return target === null || target === undefined ? null : this.handle(target);
  }

  childCount(h: FakeHandle): number {
    const e = this.query('childCount', h);
    return e === 'systemWide' ? 0 : (e.children?.length ?? 0);
  }

  children(h: FakeHandle, max: number): FakeHandle[] {
    const e = this.query('children', h);
    if (e === 'systemWide') {
      return [];
    }
    return (e.children ?? []).slice(0, max).map((c) => this.handle(c));
  }

  setMessagingTimeout(h: FakeHandle, seconds: number): void {
    this.calls.push({ op: 'setMessagingTimeout', handle: h, seconds });
    if (!(seconds > 0)) {
      this.violations.push(`timeout ${seconds} s on #${h.serial} (0 restores the global one)`);
    }
    this.timeouts.set(h, seconds);
  }

  pid(h: FakeHandle): number | null {
    this.calls.push({ op: 'pid', handle: h });
    return h.element === 'systemWide' ? null : (h.element.pid ?? null);
  }

  setManualAccessibility(h: FakeHandle): boolean {
    this.query('setManualAccessibility', h);
    return true;
  }

  sameElement(a: FakeHandle, b: FakeHandle): boolean {
    return a.element === b.element;
  }

  release(h: FakeHandle): void {
    if (!this.live.delete(h)) {
      this.violations.push(`double release of #${h.serial}`);
    }
  }

  /** Calls of one op. */
  callsOf(op: string): FakeCall[] {
    return this.calls.filter((c) => c.op === op);
  }

  /** Handles still owned by nobody but the reader (the system-wide element and focus). */
  liveDescriptions(): string[] {
    return [...this.live].map(describe);
  }
}

export function describe(h: FakeHandle): string {
  return h.element === 'systemWide' ? 'systemWide' : `${h.element.role}:${h.element.title ?? ''}`;
}

/** A fake CoreGraphics/IOKit. */
export class FakeSystem implements DarwinSystem {
  windowList: CgWindow[] = [];
  displayList: CgDisplay[] = [
    { id: 1, bounds: { x: 0, y: 0, width: 1440, height: 900 }, scale: 2, primary: true },
  ];
  screen: OsPermission = 'granted';
  input: OsPermission = 'denied';
  windows(): CgWindow[] {
    return this.windowList;
  }
  displays(): CgDisplay[] {
    return this.displayList;
  }
  screenRecording(): OsPermission {
    return this.screen;
  }
  inputMonitoring(): OsPermission {
    return this.input;
  }
}
