// The UI Automation bindings (src/helpers/win32/ffi/uia.ts) run for real through koffi against fake
// COM objects built in memory on Linux: vtables of registered JS callbacks, so every call goes
// through the slot tables, the prototypes (POINT by value, out pointers, BSTRs) and Release as on
// Windows. Checks the slots used, the cache request (no Value), the timeouts, the walker stopping
// at the desktop root, every element and BSTR released, and the CUIAutomation fallbacks.
import koffi from 'koffi';
import type { TypeObject } from 'koffi';
import { afterEach, describe, expect, it } from 'vitest';
import type { ComNatives } from '../../../src/helpers/win32/ffi/com';
import { makeComApi } from '../../../src/helpers/win32/ffi/com';
import { win32Types } from '../../../src/helpers/win32/ffi/koffi';
import {
  CLSID_CUIAUTOMATION,
  CLSID_CUIAUTOMATION8,
  createUiaSession,
} from '../../../src/helpers/win32/ffi/uia';
import { VTABLE } from '../../../src/helpers/win32/ffi/vtables';
import { CACHED_PROPERTIES } from '../../../src/helpers/win32/uia-backend';
import { elementPathAt, focusedInfo, snapshotTree } from '../../../src/helpers/win32/walk';

const t = win32Types(koffi);
const S_OK = 0;
const E_NOTIMPL = 0x80004001 | 0;
const E_NOINTERFACE = 0x80004002 | 0;
const REGDB_E_CLASSNOTREG = 0x80040154 | 0;

const cb = (result: string, args: unknown[]) =>
  koffi.pointer(koffi.proto(result, args as string[]));
const CB_UNEXPECTED = cb('int32_t', ['void *']);
const CB_REF = cb('uint32_t', ['void *']);
const CB_OUT = cb('int32_t', ['void *', 'void *']);
const CB_I32 = cb('int32_t', ['void *', 'int32_t']);
const CB_PTR_OUT = cb('int32_t', ['void *', 'void *', 'void *']);
const CB_PTR_PTR_OUT = cb('int32_t', ['void *', 'void *', 'void *', 'void *']);
const CB_POINT = koffi.pointer(koffi.proto('int32_t', ['void *', t.POINT, 'void *', 'void *']));

type Node = {
  controlType: number;
  name: string;
  rect: [number, number, number, number];
  isPassword?: boolean;
  pid: number;
  children: Node[];
  parent?: Node;
};

function node(
  controlType: number,
  name: string,
  rect: Node['rect'],
  children: Node[] = [],
  isPassword = false,
): Node {
  const n: Node = { controlType, name, rect, isPassword, pid: 4242, children };
  for (const child of children) {
    child.parent = n;
  }
  return n;
}

type Impl = Record<string, [type: TypeObject, fn: (...args: never[]) => number]>;

/** Fake COM: objects are 8-byte blocks pointing at vtables of registered callbacks. */
class FakeCom {
  readonly calls: string[] = [];
  readonly unexpected: string[] = [];
  readonly refs = new Map<bigint, { what: string; count: number; node?: Node }>();
  readonly bstrs = new Set<bigint>();
  freedBstrs = 0;
  private readonly callbacks: bigint[] = [];
  private readonly blocks: bigint[] = [];

  vtable(iface: string, table: Readonly<Record<string, number>>, impl: Impl): bigint {
    const names = Object.entries(table).sort((a, b) => a[1] - b[1]);
    const block = koffi.alloc('void *', names.length) as bigint;
    this.blocks.push(block);
    for (const [name, slot] of names) {
      const own = impl[name];
      const pointer =
        own === undefined
          ? koffi.register(() => {
              this.unexpected.push(`${iface}::${name}`);
              return E_NOTIMPL;
            }, CB_UNEXPECTED)
          : koffi.register((...args: never[]) => {
              this.calls.push(`${iface}::${name}`);
              return own[1](...args);
            }, own[0]);
      this.callbacks.push(pointer);
      koffi.encode(block, slot * 8, 'void *', pointer);
    }
    return block;
  }

  object(vtable: bigint, what: string, n?: Node): bigint {
    const block = koffi.alloc('void *', 1) as bigint;
    this.blocks.push(block);
    koffi.encode(block, 'void *', vtable);
    this.refs.set(block, { what, count: 1, ...(n === undefined ? {} : { node: n }) });
    return block;
  }

  bstr(text: string): bigint {
    const block = koffi.alloc('uint16_t', text.length + 1) as bigint;
    for (let i = 0; i <= text.length; i += 1) {
      koffi.encode(block, i * 2, 'uint16_t', i < text.length ? text.charCodeAt(i) : 0);
    }
    this.bstrs.add(block);
    return block;
  }

  live(what?: string): number {
    return [...this.refs.values()].filter(
      (r) => r.count > 0 && (what === undefined || r.what === what),
    ).length;
  }

  dispose(): void {
    for (const pointer of this.callbacks) {
      koffi.unregister(pointer);
    }
    for (const block of [...this.blocks, ...this.bstrs]) {
      koffi.free(block);
    }
  }
}

const IID2_DATA1 = 0x34723aff;

function fakeUia(options: { classes?: string[]; iuia2?: boolean } = {}) {
  const classes = options.classes ?? [CLSID_CUIAUTOMATION8, CLSID_CUIAUTOMATION];
  const password = node(50004, 'hunter2-tooltip', [-1900, 120, -1600, 150], [], true);
  const button = node(50000, 'Sign in', [-1500, 400, -1420, 430]);
  const pane = node(50033, 'Account', [-1920, 100, -1000, 500], [password, button]);
  const window = node(50032, 'Settings', [-1920, 0, 0, 1080], [pane]);
  const desktop = node(50033, 'Desktop 1', [-1920, 0, 2560, 1440], [window]);
  const com = new FakeCom();
  const addedProperties: number[] = [];
  const addedPatterns: number[] = [];
  const timeouts: string[] = [];
  let treeScope = -1;
  const points: { x: number; y: number }[] = [];
  const writePtr = (out: bigint, value: bigint | null): void => koffi.encode(out, 'void *', value);
  const ref: Impl = {
    AddRef: [CB_REF, (self: bigint) => ++com.refs.get(self)!.count],
    Release: [CB_REF, (self: bigint) => --com.refs.get(self)!.count],
  };
  const noInterface: Impl = {
    ...ref,
    QueryInterface: [
      CB_PTR_OUT,
      (_self: bigint, _iid: bigint, out: bigint) => (writePtr(out, null), E_NOINTERFACE),
    ],
  };
  const nodeOf = (self: bigint): Node => com.refs.get(self)!.node!;
  const int = (get: (n: Node) => number): Impl[string] => [
    CB_OUT,
    (self: bigint, out: bigint) => (koffi.encode(out, 'int32_t', get(nodeOf(self))), S_OK),
  ];
  const str = (get: (n: Node) => string): Impl[string] => [
    CB_OUT,
    (self: bigint, out: bigint) => (writePtr(out, com.bstr(get(nodeOf(self)))), S_OK),
  ];
  const elementVtable = com.vtable('IUIAutomationElement', VTABLE.IUIAutomationElement, {
    ...noInterface,
    get_CachedControlType: int((n) => n.controlType),
    get_CachedName: str((n) => n.name),
    get_CachedIsPassword: int((n) => (n.isPassword ? 1 : 0)),
    get_CachedProcessId: int((n) => n.pid),
    get_CachedHasKeyboardFocus: int((n) => (n === password ? 1 : 0)),
    get_CachedIsEnabled: int(() => 1),
    get_CachedAutomationId: str(() => 'id'),
    get_CachedClassName: str(() => 'Class'),
    get_CachedBoundingRectangle: [
      CB_OUT,
      (self: bigint, out: bigint) => {
        const [left, top, right, bottom] = nodeOf(self).rect;
        koffi.encode(out, t.RECT, { left, top, right, bottom });
        return S_OK;
      },
    ],
  });
  const element = (n: Node | undefined, out: bigint): number => {
    writePtr(out, n === undefined ? null : com.object(elementVtable, 'element', n));
    return S_OK;
  };
  const cacheRequest = com.object(
    com.vtable('IUIAutomationCacheRequest', VTABLE.IUIAutomationCacheRequest, {
      ...noInterface,
      AddProperty: [CB_I32, (_self: bigint, id: number) => (addedProperties.push(id), S_OK)],
      AddPattern: [CB_I32, (_self: bigint, id: number) => (addedPatterns.push(id), S_OK)],
      put_TreeScope: [CB_I32, (_self: bigint, scope: number) => ((treeScope = scope), S_OK)],
    }),
    'cacheRequest',
  );
  const siblings = (n: Node): Node[] => n.parent?.children ?? [];
  const walker = com.object(
    com.vtable('IUIAutomationTreeWalker', VTABLE.IUIAutomationTreeWalker, {
      ...noInterface,
      GetParentElementBuildCache: [
        CB_PTR_PTR_OUT,
        (_s: bigint, el: bigint, _cr: bigint, out: bigint) => element(nodeOf(el).parent, out),
      ],
      GetFirstChildElementBuildCache: [
        CB_PTR_PTR_OUT,
        (_s: bigint, el: bigint, _cr: bigint, out: bigint) => element(nodeOf(el).children[0], out),
      ],
      GetNextSiblingElementBuildCache: [
        CB_PTR_PTR_OUT,
        (_s: bigint, el: bigint, _cr: bigint, out: bigint) => {
          const n = nodeOf(el);
          return element(siblings(n)[siblings(n).indexOf(n) + 1], out);
        },
      ],
    }),
    'walker',
  );
  const automationImpl: Impl = {
    ...ref,
    QueryInterface: [
      CB_PTR_OUT,
      (self: bigint, iid: bigint, out: bigint) => {
        const guid = koffi.decode(iid, t.GUID) as { Data1: number };
        if (guid.Data1 === IID2_DATA1 && options.iuia2 !== false) {
          com.refs.get(self)!.count += 1;
          writePtr(out, self);
          return S_OK;
        }
        writePtr(out, null);
        return E_NOINTERFACE;
      },
    ],
    get_ControlViewWalker: [
      CB_OUT,
      (_s: bigint, out: bigint) => (com.refs.get(walker)!.count++, writePtr(out, walker), S_OK),
    ],
    CreateCacheRequest: [
      CB_OUT,
      (_s: bigint, out: bigint) => (
        com.refs.get(cacheRequest)!.count++,
        writePtr(out, cacheRequest),
        S_OK
      ),
    ],
    GetRootElementBuildCache: [
      CB_PTR_OUT,
      (_s: bigint, _cr: bigint, out: bigint) => element(desktop, out),
    ],
    ElementFromHandleBuildCache: [
      CB_PTR_PTR_OUT,
      (_s: bigint, hwnd: bigint, _cr: bigint, out: bigint) =>
        element(hwnd === 0x1234n ? window : undefined, out),
    ],
    ElementFromPointBuildCache: [
      CB_POINT,
      (_s: bigint, pt: { x: number; y: number }, _cr: bigint, out: bigint) => {
        points.push(pt);
        return element(
          pt.x === -1490 && pt.y === 410 ? button : pt.x === 2000 ? desktop : undefined,
          out,
        );
      },
    ],
    GetFocusedElementBuildCache: [
      CB_PTR_OUT,
      (_s: bigint, _cr: bigint, out: bigint) => element(password, out),
    ],
    CompareElements: [
      CB_PTR_PTR_OUT,
      (_s: bigint, a: bigint, b: bigint, out: bigint) => {
        koffi.encode(out, 'int32_t', nodeOf(a) === nodeOf(b) ? 1 : 0);
        return S_OK;
      },
    ],
    put_ConnectionTimeout: [
      CB_I32,
      (_s: bigint, ms: number) => (timeouts.push(`connection ${ms}`), S_OK),
    ],
    put_TransactionTimeout: [
      CB_I32,
      (_s: bigint, ms: number) => (timeouts.push(`transaction ${ms}`), S_OK),
    ],
  };
  const automation = com.object(
    com.vtable('IUIAutomation2', VTABLE.IUIAutomation2, automationImpl),
    'automation',
  );
  // the walker and cache request are handed out with a reference each: start them at 0
  com.refs.get(walker)!.count = 0;
  com.refs.get(cacheRequest)!.count = 0;
  const created: string[] = [];
  const natives: ComNatives = {
    CoInitializeEx: () => S_OK,
    CoUninitialize: () => undefined,
    CoCreateInstance: (clsid, _outer, _ctx, _iid, out) => {
      const data1 = (clsid as { Data1: number }).Data1;
      const wanted = classes.find((c) => Number.parseInt(c.slice(0, 8), 16) === data1);
      created.push(data1.toString(16));
      if (wanted === undefined) {
        out[0] = null;
        return REGDB_E_CLASSNOTREG;
      }
      out[0] = automation;
      return S_OK;
    },
    SysFreeString: (bstr) => {
      expect(com.bstrs.has(bstr)).toBe(true);
      com.freedBstrs += 1;
    },
  };
  return {
    com,
    api: makeComApi(koffi, natives),
    addedProperties,
    addedPatterns,
    timeouts,
    points,
    created,
    get treeScope() {
      return treeScope;
    },
  };
}

let current: FakeCom | undefined;
afterEach(() => {
  current?.dispose();
  current = undefined;
});

describe('createUiaSession over fake COM objects (real koffi vtable calls)', () => {
  it('builds one cache request with the nine properties (no Value, no pattern) and sets both timeouts', () => {
    const fake = fakeUia();
    current = fake.com;
    const session = createUiaSession(fake.api, 1000);
    expect(session.info).toEqual({ clsid: CLSID_CUIAUTOMATION8, timeouts: true });
    expect(fake.addedProperties).toEqual([...CACHED_PROPERTIES]);
    expect(fake.addedProperties).not.toContain(30045);
    expect(fake.addedPatterns).toEqual([]);
    expect(fake.treeScope).toBe(1);
    expect(fake.timeouts).toEqual(['connection 1000', 'transaction 1000']);
    session.close();
    expect(fake.com.live()).toBe(0);
    expect(fake.com.unexpected).toEqual([]);
  });

  it('reads the element at a point (POINT by value) and its ancestors up to the window, releasing all', () => {
    const fake = fakeUia();
    current = fake.com;
    const session = createUiaSession(fake.api, 1000);
    const found = elementPathAt(session.backend, -1490, 410);
    expect(fake.points).toEqual([{ x: -1490, y: 410 }]);
    expect(found?.path.map((n) => [n.role, n.name, n.bounds])).toEqual([
      ['ButtonControl', 'Sign in', { x: -1500, y: 400, width: 80, height: 30 }],
      ['PaneControl', 'Account', { x: -1920, y: 100, width: 920, height: 400 }],
      ['WindowControl', 'Settings', { x: -1920, y: 0, width: 1920, height: 1080 }],
    ]);
    expect(found?.pid).toBe(4242);
    expect(fake.com.calls).toContain('IUIAutomation2::CompareElements');
    expect(elementPathAt(session.backend, 5, 5)).toBeNull();
    expect(elementPathAt(session.backend, 2000, 5)).toBeNull(); // the bare desktop
    expect(fake.com.live('element')).toBe(1); // the desktop root, kept for CompareElements
    session.close();
    expect(fake.com.live()).toBe(0);
    expect(fake.com.freedBstrs).toBe(fake.com.bstrs.size);
    expect(fake.com.unexpected).toEqual([]);
  });

  it('snapshots a window by handle through the walker and redacts the password field', () => {
    const fake = fakeUia();
    current = fake.com;
    const session = createUiaSession(fake.api, 1000);
    session.backend.setCallTimeout(250);
    const root = session.backend.elementFromHandle(0x1234n);
    const tree = snapshotTree(session.backend, root!, { maxNodes: 100, maxMs: 5000 }, () => 0);
    expect(tree.nodeCount).toBe(4);
    expect(tree.truncated).toBe(false);
    expect(JSON.stringify(tree)).not.toContain('hunter2');
    expect(tree.root?.children[0]?.children[0]).toMatchObject({
      role: 'EditControl',
      name: '',
      states: ['enabled', 'focused', 'secure'],
    });
    expect(focusedInfo(session.backend)).toEqual({
      role: 'EditControl',
      name: '',
      isSecure: true,
      pid: 4242,
    });
    expect(fake.timeouts.at(-1)).toBe('transaction 250');
    session.close();
    expect(fake.com.live()).toBe(0);
    expect(fake.com.freedBstrs).toBe(fake.com.bstrs.size);
    // no current-value getter, no GetCurrentPropertyValue, no pattern: only cached reads
    expect(fake.com.unexpected).toEqual([]);
    expect(fake.com.calls.filter((c) => /Current|Value|Pattern/.test(c))).toEqual([]);
  });

  it('falls back to CUIAutomation, works without IUIAutomation2, and fails with the HRESULT when neither class exists', () => {
    const older = fakeUia({ classes: [CLSID_CUIAUTOMATION], iuia2: false });
    current = older.com;
    const session = createUiaSession(older.api, 1000);
    expect(session.info).toEqual({ clsid: CLSID_CUIAUTOMATION, timeouts: false });
    expect(older.created).toEqual(['e22ad333', 'ff48dba4']);
    session.backend.setCallTimeout(250);
    expect(older.timeouts).toEqual([]);
    session.close();
    expect(older.com.live()).toBe(0);
    older.com.dispose();

    const wine = fakeUia({ classes: [] });
    current = wine.com;
    expect(() => createUiaSession(wine.api, 1000)).toThrow(
      'CoCreateInstance(ff48dba4-60ef-4201-aa87-54103eef594e) failed with HRESULT 0x80040154 (REGDB_E_CLASSNOTREG)',
    );
  });
});
