// Typed AT-SPI queries over a connected bus (raw D-Bus calls, no introspection):
// role, name, states, extents, children, hit testing, focused-element search and the list of
// top-level windows. docs/platform-linux.md §4 (call table, INT_MIN quirk, missing Component).
// A node's own Accessible properties (name, parent, child count) come in one
// Properties.GetAll round trip; every call is counted per member (callCounts) for tests and the
// recorder benchmark.
import type { AxBounds, AxNode } from '../../model';
import { decodeStates, encodeStates, hasState } from '../../states';
import type { AtspiBus, AtspiRef } from './atspi';

/** Interfaces and well-known objects. */
export const ATSPI = {
  accessible: 'org.a11y.atspi.Accessible',
  component: 'org.a11y.atspi.Component',
  collection: 'org.a11y.atspi.Collection',
  registry: 'org.a11y.atspi.Registry',
  properties: 'org.freedesktop.DBus.Properties',
  eventObject: 'org.a11y.atspi.Event.Object',
} as const;

/** The desktop root; its children are the applications. */
export const DESKTOP_ROOT: AtspiRef = {
  bus: 'org.a11y.atspi.Registry',
  path: '/org/a11y/atspi/accessible/root',
};

/** The registry object (RegisterEvent). */
export const REGISTRY_OBJECT: AtspiRef = {
  bus: 'org.a11y.atspi.Registry',
  path: '/org/a11y/atspi/registry',
};

/** AT-SPI's "no object" path. */
export const NULL_PATH = '/org/a11y/atspi/null';

/** Screen coordinates for Component calls (ATSPI_COORD_TYPE_SCREEN). */
const COORD_SCREEN = 0;

/** Unmapped widgets report x = y = INT_MIN: no geometry. */
const INT32_MIN = -2147483648;

/** `<bus name><object path>`: a reference as one string (unique within a desktop session). */
export function refKey(ref: AtspiRef): string {
  return `${ref.bus}${ref.path}`;
}

/** True for AT-SPI's null reference. */
export function isNullRef(ref: AtspiRef | null): boolean {
  return ref === null || ref.path === NULL_PATH || ref.path === '' || ref.bus === '';
}

function toRef(value: unknown): AtspiRef | null {
  if (!Array.isArray(value) || value.length < 2) {
    return null;
  }
  const [bus, path] = value as unknown[];
  return typeof bus === 'string' && typeof path === 'string' ? { bus, path } : null;
}

function toRefs(value: unknown): AtspiRef[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.map(toRef).filter((r): r is AtspiRef => r !== null && !isNullRef(r));
}

/** Converts `(iiii)` extents to bounds; INT_MIN, negative or zero-area geometry → null. */
export function toBounds(value: unknown): AxBounds | null {
  if (!Array.isArray(value) || value.length < 4) {
    return null;
  }
  const [x, y, width, height] = value as unknown[];
  if (
    typeof x !== 'number' ||
    typeof y !== 'number' ||
    typeof width !== 'number' ||
    typeof height !== 'number'
  ) {
    return null;
  }
  if (x === INT32_MIN || y === INT32_MIN || width <= 0 || height <= 0) {
    return null;
  }
  return { x, y, width, height };
}

function variantValue(value: unknown): unknown {
  return typeof value === 'object' && value !== null && 'value' in value ? value.value : value;
}

/** Queries over one bus with a default per-call limit. */
export class AtspiQueries {
  /** D-Bus method calls made so far, per member (`GetChildren`, `GetAll`…). */
  readonly callCounts = new Map<string, number>();

  constructor(
    readonly bus: AtspiBus,
    private readonly callTimeoutMs: number,
  ) {}

  private async call(
    ref: AtspiRef,
    iface: string,
    member: string,
    signature?: string,
    body?: unknown[],
    timeoutMs?: number,
  ): Promise<unknown[]> {
    this.callCounts.set(member, (this.callCounts.get(member) ?? 0) + 1);
    return await this.bus.call(
      ref,
      iface,
      member,
      signature,
      body,
      timeoutMs ?? this.callTimeoutMs,
    );
  }

  /** Children references (`GetChildren`). */
  async children(ref: AtspiRef, timeoutMs?: number): Promise<AtspiRef[]> {
    const body = await this.call(ref, ATSPI.accessible, 'GetChildren', '', [], timeoutMs);
    return toRefs(body[0]);
  }

  /** Role name, e.g. `push button` (`GetRoleName`). */
  async roleName(ref: AtspiRef, timeoutMs?: number): Promise<string> {
    const body = await this.call(ref, ATSPI.accessible, 'GetRoleName', '', [], timeoutMs);
    return typeof body[0] === 'string' ? body[0] : '';
  }

  /** State words (`GetState`, `au`). */
  async stateWords(ref: AtspiRef, timeoutMs?: number): Promise<number[]> {
    const body = await this.call(ref, ATSPI.accessible, 'GetState', '', [], timeoutMs);
    const words = body[0];
    return Array.isArray(words) ? words.map((w) => Number(w)) : [];
  }

  /** An Accessible property (`Name`, `Description`, `Parent`, `ChildCount`). */
  async property(ref: AtspiRef, name: string, timeoutMs?: number): Promise<unknown> {
    const body = await this.call(
      ref,
      ATSPI.properties,
      'Get',
      'ss',
      [ATSPI.accessible, name],
      timeoutMs,
    );
    return variantValue(body[0]);
  }

  /**
   * Name, parent and child count in one round trip (`Properties.GetAll` on the Accessible
   * interface; it also carries Description, Locale, Attributes…, which are ignored).
   */
  async accessibleProperties(ref: AtspiRef, timeoutMs?: number): Promise<AccessibleProperties> {
    const body = await this.call(
      ref,
      ATSPI.properties,
      'GetAll',
      's',
      [ATSPI.accessible],
      timeoutMs,
    );
    const all = (typeof body[0] === 'object' && body[0] !== null ? body[0] : {}) as Record<
      string,
      unknown
    >;
    const name = variantValue(all.Name);
    const parent = toRef(variantValue(all.Parent));
    const childCount = variantValue(all.ChildCount);
    return {
      name: typeof name === 'string' ? name : '',
      parent: parent === null || isNullRef(parent) ? null : parent,
      childCount: typeof childCount === 'number' ? childCount : null,
    };
  }

  /** Accessible name ('' when none). */
  async name(ref: AtspiRef, timeoutMs?: number): Promise<string> {
    const value = await this.property(ref, 'Name', timeoutMs);
    return typeof value === 'string' ? value : '';
  }

  /** Parent reference, or null at the top. */
  async parent(ref: AtspiRef, timeoutMs?: number): Promise<AtspiRef | null> {
    const value = toRef(await this.property(ref, 'Parent', timeoutMs));
    return value === null || isNullRef(value) ? null : value;
  }

  /** Screen extents; null without a Component interface or without geometry. */
  async bounds(ref: AtspiRef, timeoutMs?: number): Promise<AxBounds | null> {
    try {
      const body = await this.call(
        ref,
        ATSPI.component,
        'GetExtents',
        'u',
        [COORD_SCREEN],
        timeoutMs,
      );
      return toBounds(body[0]);
    } catch (error) {
      // applications and some containers have no Component: "no geometry", not a failure
      if (isUnknownMethod(error)) {
        return null;
      }
      throw error;
    }
  }

  /** The child of `ref` under the screen point, or null (`Component.GetAccessibleAtPoint`). */
  async accessibleAtPoint(
    ref: AtspiRef,
    x: number,
    y: number,
    timeoutMs?: number,
  ): Promise<AtspiRef | null> {
    try {
      const body = await this.call(
        ref,
        ATSPI.component,
        'GetAccessibleAtPoint',
        'iiu',
        [Math.round(x), Math.round(y), COORD_SCREEN],
        timeoutMs,
      );
      const hit = toRef(body[0]);
      return hit === null || isNullRef(hit) ? null : hit;
    } catch (error) {
      if (isUnknownMethod(error)) {
        return null;
      }
      throw error;
    }
  }

  /** The first descendant of `ref` with all `states` set (`Collection.GetMatches`), or null. */
  async firstWithStates(
    ref: AtspiRef,
    states: readonly string[],
    timeoutMs?: number,
  ): Promise<AtspiRef | null> {
    const MATCH_ALL = 1;
    const SORT_CANONICAL = 1;
    // (states ai, match i, attributes a{ss}, match i, roles ai, match i, interfaces as, match i,
    //  invert b); state words travel as int32
    const rule = [
      encodeStates(states).map((w) => w | 0),
      MATCH_ALL,
      {},
      MATCH_ALL,
      [],
      MATCH_ALL,
      [],
      MATCH_ALL,
      false,
    ];
    const body = await this.call(
      ref,
      ATSPI.collection,
      'GetMatches',
      '(aiia{ss}iaiiasib)uib',
      [rule, SORT_CANONICAL, 1, true],
      timeoutMs,
    );
    return toRefs(body[0])[0] ?? null;
  }

  /**
   * Role, name, states, bounds, parent and child count of one element, in four parallel calls
   * (GetRoleName, GetState, GetExtents and GetAll for the rest); children empty.
   */
  async nodeInfo(ref: AtspiRef, timeoutMs?: number): Promise<NodeInfo> {
    const [role, props, words, bounds] = await Promise.all([
      this.roleName(ref, timeoutMs),
      this.accessibleProperties(ref, timeoutMs),
      this.stateWords(ref, timeoutMs),
      this.bounds(ref, timeoutMs),
    ]);
    return {
      ref,
      role,
      name: props.name,
      words,
      bounds,
      parent: props.parent,
      childCount: props.childCount,
    };
  }

  /** Applications and their top-level windows, each with role, name, states and bounds. */
  async listWindows(timeoutMs?: number): Promise<WindowInfo[]> {
    const apps = await this.children(DESKTOP_ROOT, timeoutMs);
    const perApp = await Promise.all(
      apps.map(async (appRef) => {
        try {
          const [appName, windows] = await Promise.all([
            this.name(appRef, timeoutMs),
            this.children(appRef, timeoutMs),
          ]);
          const infos = await Promise.all(
            windows.map(async (w) => {
              try {
                return await this.nodeInfo(w, timeoutMs);
              } catch {
                return null; // window closed meanwhile
              }
            }),
          );
          return infos
            .filter((i): i is NodeInfo => i !== null)
            .map((info) => ({ ...info, app: { ref: appRef, name: appName } }));
        } catch {
          return []; // a hung or departed application must not hide the others
        }
      }),
    );
    return perApp.flat();
  }
}

/** One element's own properties. */
export type NodeInfo = {
  /** The element. */
  ref: AtspiRef;
  /** Role name. */
  role: string;
  /** Accessible name. */
  name: string;
  /** Raw state words. */
  words: number[];
  /** Screen bounds or null. */
  bounds: AxBounds | null;
  /** Parent reference (null at the top); undefined when not read. */
  parent?: AtspiRef | null;
  /** Children the element reports (null when it did not say); undefined when not read. */
  childCount?: number | null;
};

/** An element's own Accessible properties read in one call. */
export type AccessibleProperties = {
  /** Accessible name ('' when none). */
  name: string;
  /** Parent reference, or null at the top. */
  parent: AtspiRef | null;
  /** Children the element reports, or null when it did not say. */
  childCount: number | null;
};

/** A top-level window with its application. */
export type WindowInfo = NodeInfo & {
  /** The owning application. */
  app: { ref: AtspiRef; name: string };
};

/** An AxNode from node info (children empty). */
export function toAxNode(info: NodeInfo): AxNode {
  return {
    role: info.role,
    name: info.name,
    states: decodeStates(info.words),
    bounds: info.bounds,
    children: [],
    ref: refKey(info.ref),
  };
}

/** True when a window is on screen (showing and not iconified). */
export function isWindowShown(window: NodeInfo): boolean {
  return hasState(window.words, 'showing') && !hasState(window.words, 'iconified');
}

function isUnknownMethod(error: unknown): boolean {
  const name = (error as { dbusName?: unknown } | null)?.dbusName;
  return (
    name === 'org.freedesktop.DBus.Error.UnknownMethod' ||
    name === 'org.freedesktop.DBus.Error.UnknownInterface' ||
    name === 'org.freedesktop.DBus.Error.UnknownObject'
  );
}
