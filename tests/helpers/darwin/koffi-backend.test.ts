// The koffi backend's logic (decoding CoreFoundation values, ownership, AXError handling, window
// and display records) against a scripted C runtime that follows koffi's calling conventions and
// CoreFoundation's retain/release rules. The real frameworks only exist on macOS.
import { describe, expect, it } from 'vitest';
import { AxCallError } from '../../../src/helpers/darwin/ax-backend';
import { NODE_ATTRIBUTES } from '../../../src/helpers/darwin/ax-reader';
import type { CFunction } from '../../../src/helpers/darwin/ffi/bindings';
import type { CRuntime } from '../../../src/helpers/darwin/ffi/koffi-backend';
import {
  createKoffiAxBackend,
  createKoffiSystem,
} from '../../../src/helpers/darwin/ffi/koffi-backend';

type CfObject =
  | { kind: 'string'; s: string }
  | { kind: 'number'; n: number }
  | { kind: 'boolean'; b: boolean }
  | { kind: 'axvalue'; type: number; value: Record<string, number> | null }
  | { kind: 'array'; items: bigint[] }
  | { kind: 'dict'; entries: Map<string, bigint> }
  | { kind: 'element'; attrs: Map<string, bigint | 'hang'>; pid: number }
  | { kind: 'mode'; pixelWidth: number; width: number };

const TYPE_IDS: Record<CfObject['kind'], number> = {
  string: 7,
  number: 22,
  boolean: 21,
  axvalue: 200,
  array: 19,
  dict: 18,
  element: 201,
  mode: 300,
};

/** A tiny CoreFoundation: objects with retain counts, freed at zero. */
class FakeC {
  readonly objects = new Map<bigint, { obj: CfObject; rc: number }>();
  readonly calls: string[] = [];
  private next = 0x1000n;
  missing = new Set<string>();
  trusted = 1;
  displayIds = [2, 1];

  make(obj: CfObject): bigint {
    const ref = (this.next += 0x10n);
    this.objects.set(ref, { obj, rc: 1 });
    if (obj.kind === 'array') {
      obj.items.forEach((i) => this.retain(i));
    }
    return ref;
  }
  get(ref: bigint): CfObject {
    const entry = this.objects.get(ref);
    if (entry === undefined) {
      throw new Error(`use of freed or unknown ref 0x${ref.toString(16)}`);
    }
    return entry.obj;
  }
  retain(ref: bigint): bigint {
    this.get(ref);
    this.objects.get(ref)!.rc += 1;
    return ref;
  }
  release(ref: bigint): void {
    const entry = this.objects.get(ref);
    if (entry === undefined) {
      throw new Error(`over-release of 0x${ref.toString(16)}`);
    }
    entry.rc -= 1;
    if (entry.rc === 0) {
      this.objects.delete(ref);
      if (entry.obj.kind === 'array') {
        entry.obj.items.forEach((i) => this.release(i));
      }
      if (entry.obj.kind === 'dict') {
        entry.obj.entries.forEach((v) => this.release(v));
      }
    }
  }
  rc(ref: bigint): number {
    return this.objects.get(ref)?.rc ?? 0;
  }
  str(s: string): bigint {
    return this.make({ kind: 'string', s });
  }
  element(attrs: Record<string, bigint | 'hang'>, pid = 42): bigint {
    return this.make({ kind: 'element', attrs: new Map(Object.entries(attrs)), pid });
  }
  private attr(el: bigint, name: bigint): bigint | 'hang' | undefined {
    const e = this.get(el);
    const key = this.get(name);
    if (e.kind !== 'element' || key.kind !== 'string') {
      throw new Error('bad AX call');
    }
    return e.attrs.get(key.s);
  }

  readonly symbols: Record<string, bigint> = {
    kCFBooleanTrue: this.make({ kind: 'boolean', b: true }),
    kCFTypeArrayCallBacks: 0xcafen,
    kCGWindowNumber: this.str('kCGWindowNumber'),
    kCGWindowOwnerPID: this.str('kCGWindowOwnerPID'),
    kCGWindowOwnerName: this.str('kCGWindowOwnerName'),
    kCGWindowName: this.str('kCGWindowName'),
    kCGWindowLayer: this.str('kCGWindowLayer'),
    kCGWindowBounds: this.str('kCGWindowBounds'),
  };

  // koffi's conventions: BigInt pointers, null for NULL, out-params as arrays/objects/buffers
  readonly functions: Record<string, (...args: never[]) => unknown> = {
    CFRelease: (ref: bigint) => this.release(ref),
    CFRetain: (ref: bigint) => this.retain(ref),
    CFEqual: (a: bigint, b: bigint) => Number(a === b),
    CFGetTypeID: (ref: bigint) => TYPE_IDS[this.get(ref).kind],
    CFStringGetTypeID: () => TYPE_IDS.string,
    CFNumberGetTypeID: () => TYPE_IDS.number,
    CFBooleanGetTypeID: () => TYPE_IDS.boolean,
    AXValueGetTypeID: () => BigInt(TYPE_IDS.axvalue),
    CFStringCreateWithCString: (_a: null, s: string) => this.str(s),
    CFStringGetLength: (ref: bigint) => {
      const o = this.get(ref);
      return o.kind === 'string' ? o.s.length : 0; // UTF-16 units, like CF
    },
    CFStringGetMaximumSizeForEncoding: (length: number) => length * 3,
    CFStringGetCString: (ref: bigint, buffer: Buffer, size: number) => {
      const o = this.get(ref);
      const bytes = Buffer.from(o.kind === 'string' ? o.s : '', 'utf8');
      if (bytes.length + 1 > size) {
        return 0;
      }
      bytes.copy(buffer);
      buffer[bytes.length] = 0;
      return 1;
    },
    CFArrayCreate: (_a: null, values: BigUint64Array, n: number) => {
      this.calls.push('CFArrayCreate');
      return this.make({ kind: 'array', items: [...values.subarray(0, n)] });
    },
    CFArrayGetCount: (ref: bigint) => {
      const o = this.get(ref);
      return o.kind === 'array' ? o.items.length : 0;
    },
    CFArrayGetValueAtIndex: (ref: bigint, i: number) => {
      const o = this.get(ref);
      return o.kind === 'array' ? (o.items[i] ?? null) : null;
    },
    CFNumberGetValue: (ref: bigint, _type: number, out: Buffer) => {
      const o = this.get(ref);
      out.writeDoubleLE(o.kind === 'number' ? o.n : NaN, 0);
      return 1;
    },
    CFBooleanGetValue: (ref: bigint) => {
      const o = this.get(ref);
      return Number(o.kind === 'boolean' && o.b);
    },
    CFDictionaryGetValue: (ref: bigint, key: bigint) => {
      const o = this.get(ref);
      const k = this.get(key);
      return o.kind === 'dict' && k.kind === 'string' ? (o.entries.get(k.s) ?? null) : null;
    },
    AXIsProcessTrusted: () => this.trusted,
    AXUIElementCreateSystemWide: () => this.element({}),
    AXUIElementCopyMultipleAttributeValues: (
      el: bigint,
      names: bigint,
      _options: number,
      out: (bigint | null)[],
    ) => {
      const list = this.get(names);
      if (list.kind !== 'array') {
        return -25201;
      }
      const error = this.make({ kind: 'axvalue', type: 5, value: null });
      const values: bigint[] = [];
      for (const n of list.items) {
        const v = this.attr(el, n);
        if (v === 'hang') {
          this.release(error);
          values.forEach((x) => this.release(x));
          return -25204;
        }
        values.push(this.retain(v ?? error));
      }
      out[0] = this.make({ kind: 'array', items: values });
      values.forEach((x) => this.release(x));
      this.release(error);
      return 0;
    },
    AXUIElementCopyAttributeValue: (el: bigint, name: bigint, out: (bigint | null)[]) => {
      const v = this.attr(el, name);
      if (v === 'hang') {
        return -25204;
      }
      if (v === undefined) {
        return -25212;
      }
      out[0] = this.retain(v);
      return 0;
    },
    AXUIElementGetAttributeValueCount: (el: bigint, name: bigint, out: number[]) => {
      const v = this.attr(el, name);
      if (v === undefined || v === 'hang') {
        return -25212;
      }
      const o = this.get(v);
      out[0] = o.kind === 'array' ? o.items.length : 0;
      return 0;
    },
    AXUIElementCopyAttributeValues: (
      el: bigint,
      name: bigint,
      index: number,
      max: number,
      out: (bigint | null)[],
    ) => {
      const v = this.attr(el, name);
      if (v === undefined || v === 'hang') {
        return -25212;
      }
      const o = this.get(v);
      out[0] = this.make({
        kind: 'array',
        items: o.kind === 'array' ? o.items.slice(index, index + max) : [],
      });
      return 0;
    },
    AXUIElementSetMessagingTimeout: () => 0,
    AXUIElementGetPid: (el: bigint, out: number[]) => {
      const o = this.get(el);
      out[0] = o.kind === 'element' ? o.pid : 0;
      return 0;
    },
    AXUIElementSetAttributeValue: (el: bigint, name: bigint, value: bigint) => {
      const e = this.get(el);
      const k = this.get(name);
      if (e.kind === 'element' && k.kind === 'string') {
        e.attrs.set(k.s, this.retain(value));
      }
      return 0;
    },
    AXValueGetType: (ref: bigint) => {
      const o = this.get(ref);
      return o.kind === 'axvalue' ? o.type : 0;
    },
    AXValueGetPoint: (ref: bigint, _t: number, out: { x: number; y: number }) => {
      const o = this.get(ref);
      Object.assign(out, o.kind === 'axvalue' ? o.value : {});
      return 1;
    },
    AXValueGetSize: (ref: bigint, _t: number, out: { width: number; height: number }) => {
      const o = this.get(ref);
      Object.assign(out, o.kind === 'axvalue' ? o.value : {});
      return 1;
    },
    CGWindowListCopyWindowInfo: (option: number) => {
      this.calls.push(`CGWindowListCopyWindowInfo(${option})`);
      const window = (n: number, pid: number, owner: string, name: string | null): bigint => {
        const entries = new Map<string, bigint>([
          ['kCGWindowNumber', this.make({ kind: 'number', n })],
          ['kCGWindowOwnerPID', this.make({ kind: 'number', n: pid })],
          ['kCGWindowOwnerName', this.str(owner)],
          ['kCGWindowLayer', this.make({ kind: 'number', n: 0 })],
          [
            'kCGWindowBounds',
            this.make({
              kind: 'dict',
              entries: new Map([['X', this.make({ kind: 'number', n: -100 })]]),
            }),
          ],
        ]);
        if (name !== null) {
          entries.set('kCGWindowName', this.str(name));
        }
        return this.make({ kind: 'dict', entries });
      };
      const items = [window(77, 42, 'Safari', 'Café'), window(78, 43, 'Notes', null)];
      const list = this.make({ kind: 'array', items });
      items.forEach((i) => this.release(i));
      return list;
    },
    CGRectMakeWithDictionaryRepresentation: (
      dict: bigint,
      out: { origin: { x: number; y: number }; size: { width: number; height: number } },
    ) => {
      const o = this.get(dict);
      const x = o.kind === 'dict' ? o.entries.get('X') : undefined;
      const xo = x === undefined ? undefined : this.get(x);
      out.origin = { x: xo?.kind === 'number' ? xo.n : 0, y: 5 };
      out.size = { width: 640, height: 480 };
      return true;
    },
    CGGetActiveDisplayList: (max: number, ids: Uint32Array, count: number[]) => {
      this.displayIds.slice(0, max).forEach((id, i) => (ids[i] = id));
      count[0] = this.displayIds.length;
      return 0;
    },
    CGMainDisplayID: () => 2,
    CGDisplayBounds: (id: number) =>
      id === 2
        ? { origin: { x: 0, y: 0 }, size: { width: 1512, height: 982 } }
        : { origin: { x: -1920, y: 0 }, size: { width: 1920, height: 1080 } },
    CGDisplayCopyDisplayMode: (id: number) =>
      this.make({
        kind: 'mode',
        pixelWidth: id === 2 ? 3024 : 1920,
        width: id === 2 ? 1512 : 1920,
      }),
    CGDisplayModeGetPixelWidth: (ref: bigint) => {
      const o = this.get(ref);
      return o.kind === 'mode' ? o.pixelWidth : 0;
    },
    CGDisplayModeGetWidth: (ref: bigint) => {
      const o = this.get(ref);
      return o.kind === 'mode' ? o.width : 0;
    },
    CGDisplayModeRelease: (ref: bigint) => this.release(ref),
    CGPreflightScreenCaptureAccess: () => false,
    IOHIDCheckAccess: () => 0,
  };

  runtime(): CRuntime {
    return {
      fn: (_framework, name) => {
        const f = this.functions[name];
        if (f === undefined || this.missing.has(name)) {
          throw new Error(`Cannot find function '${name}' in shared library`);
        }
        return f as unknown as CFunction;
      },
      pointerSymbol: (_framework, name) => this.symbols[name] ?? 0n,
      addressSymbol: (_framework, name) => this.symbols[name] ?? 0n,
    };
  }
}

function windowWorld(c: FakeC): { window: bigint; kids: bigint[] } {
  const kids = [1, 2, 3].map((i) =>
    c.element({ AXRole: c.str('AXButton'), AXTitle: c.str(`b${i}`) }),
  );
  const window = c.element({
    AXRole: c.str('AXWindow'),
    AXTitle: c.str('Café ☕ — naïve'),
    AXPosition: c.make({ kind: 'axvalue', type: 1, value: { x: -1900.5, y: 30 } }),
    AXSize: c.make({ kind: 'axvalue', type: 2, value: { width: 800, height: 600 } }),
    AXFocused: c.make({ kind: 'boolean', b: true }),
    AXEnabled: c.make({ kind: 'boolean', b: false }),
    AXChildren: c.make({ kind: 'array', items: kids }),
  });
  kids.forEach((k) => c.release(k)); // the children array owns them now
  return { window, kids };
}

describe('koffi AX backend logic', () => {
  it('decodes one multi-attribute call: strings (UTF-8), points, sizes, booleans, errors', () => {
    const c = new FakeC();
    const ax = createKoffiAxBackend(c.runtime());
    const { window } = windowWorld(c);
    const before = c.objects.size;
    expect(ax.copyAttributes(window, NODE_ATTRIBUTES)).toEqual([
      'AXWindow',
      undefined, // AXSubrole: an AXError value
      'Café ☕ — naïve',
      undefined,
      { x: -1900.5, y: 30 },
      { width: 800, height: 600 },
      true,
      false,
    ]);
    ax.copyAttributes(window, NODE_ATTRIBUTES);
    // the names array and its strings are made once; the values array is released each time
    expect(c.calls.filter((x) => x === 'CFArrayCreate')).toHaveLength(1);
    expect(c.objects.size).toBe(before + 1 + NODE_ATTRIBUTES.length);
  });

  it('keeps children beyond their array and gives every reference back', () => {
    const c = new FakeC();
    const ax = createKoffiAxBackend(c.runtime());
    const { window, kids } = windowWorld(c);
    expect(ax.childCount(window)).toBe(3);
    const two = ax.children(window, 2);
    expect(two).toEqual(kids.slice(0, 2));
    expect(two.map((k) => c.rc(k))).toEqual([2, 2]);
    two.forEach((k) => ax.release(k));
    expect(kids.map((k) => c.rc(k))).toEqual([1, 1, 1]);
    expect(ax.children(kids[0]!, 5)).toEqual([]);
    expect(ax.childCount(kids[0]!)).toBe(0);
  });

  it('maps AX errors: no value is null, a timeout throws kAXErrorCannotComplete', () => {
    const c = new FakeC();
    const ax = createKoffiAxBackend(c.runtime());
    const { window, kids } = windowWorld(c);
    expect(ax.copyElementAttribute(window, 'AXParent')).toBeNull();
    (c.get(kids[0]!) as { attrs: Map<string, bigint> }).attrs.set('AXParent', window);
    const parent = ax.copyElementAttribute(kids[0]!, 'AXParent');
    expect(parent).toBe(window);
    expect(c.rc(window)).toBe(2);
    ax.release(parent!);
    const hung = c.element({ AXRole: 'hang' });
    expect(() => ax.copyAttributes(hung, NODE_ATTRIBUTES)).toThrow(AxCallError);
    expect(() => ax.copyAttributes(hung, NODE_ATTRIBUTES)).toThrow(/kAXErrorCannotComplete/);
    expect(ax.pid(window)).toBe(42);
    expect(ax.sameElement(window, window)).toBe(true);
    expect(ax.isProcessTrusted()).toBe(true);
    expect(ax.setManualAccessibility(window)).toBe(true);
    expect(c.rc(c.symbols.kCFBooleanTrue!)).toBe(2);
  });
});

describe('koffi CoreGraphics/IOKit logic', () => {
  it('reads on-screen windows, releasing the list', () => {
    const c = new FakeC();
    const system = createKoffiSystem(c.runtime());
    const before = c.objects.size;
    expect(system.windows()).toEqual([
      {
        number: 77,
        pid: 42,
        ownerName: 'Safari',
        name: 'Café',
        layer: 0,
        bounds: { x: -100, y: 5, width: 640, height: 480 },
      },
      {
        number: 78,
        pid: 43,
        ownerName: 'Notes',
        name: null,
        layer: 0,
        bounds: { x: -100, y: 5, width: 640, height: 480 },
      },
    ]);
    // kCGWindowListOptionOnScreenOnly | kCGWindowListExcludeDesktopElements
    expect(c.calls).toContain('CGWindowListCopyWindowInfo(17)');
    expect(c.objects.size).toBe(before);
  });

  it('reads displays in CoreGraphics order with the backing scale of their mode', () => {
    const c = new FakeC();
    const system = createKoffiSystem(c.runtime());
    expect(system.displays()).toEqual([
      { id: 2, bounds: { x: 0, y: 0, width: 1512, height: 982 }, scale: 2, primary: true },
      { id: 1, bounds: { x: -1920, y: 0, width: 1920, height: 1080 }, scale: 1, primary: false },
    ]);
    expect([...c.objects.values()].some((o) => o.obj.kind === 'mode')).toBe(false);
  });

  it('maps permissions, and a missing function to unknown', () => {
    const c = new FakeC();
    const system = createKoffiSystem(c.runtime());
    expect(system.screenRecording()).toBe('denied');
    expect(system.inputMonitoring()).toBe('granted');
    c.missing.add('CGPreflightScreenCaptureAccess');
    expect(system.screenRecording()).toBe('unknown');
  });
});
