// The AxBackend and DarwinSystem of ax-backend.ts over koffi: AX elements are CFTypeRef pointers
// (BigInt in koffi 3), values are decoded from CoreFoundation types, and every owned reference is
// released by the caller (ax-reader.ts) or here. Runs only on macOS; built to the documented C
// API (docs/helper-protocol.md §3, §6). Its declarations are checked on Linux by
// tests/helpers/darwin/ffi-layout.test.ts, its logic against a scripted C runtime by
// tests/helpers/darwin/koffi-backend.test.ts.
import type {
  AxAttributeValue,
  AxBackend,
  CgDisplay,
  CgWindow,
  DarwinSystem,
  OsPermission,
  PointRect,
} from '../ax-backend';
import { AX_ERROR, AxCallError } from '../ax-backend';
import type { CFunction, DATA_SYMBOLS, Framework, PROTOTYPES } from './bindings';
import { addressSymbol, CONSTANTS, cfn, pointerSymbol } from './bindings';

type Ref = bigint;
type CGRectValue = { origin: { x: number; y: number }; size: { width: number; height: number } };

/** How the backend reaches C: koffi by default, a scripted fake in tests, with koffi's calling
 * conventions (pointers as BigInt or null, `_Out_` parameters as one-element arrays or objects,
 * `void *` buffers as Buffers or typed arrays). */
export type CRuntime = {
  fn<F extends Framework>(framework: F, name: keyof (typeof PROTOTYPES)[F] & string): CFunction;
  pointerSymbol<F extends Framework>(framework: F, name: (typeof DATA_SYMBOLS)[F][number]): bigint;
  addressSymbol<F extends Framework>(framework: F, name: (typeof DATA_SYMBOLS)[F][number]): bigint;
};

const KOFFI: CRuntime = { fn: cfn, pointerSymbol, addressSymbol };

const ABSENT: readonly number[] = [
  AX_ERROR.noValue,
  AX_ERROR.attributeUnsupported,
  AX_ERROR.notImplemented,
];

function check(code: number, call: string): void {
  if (code !== AX_ERROR.success) {
    throw new AxCallError(code, call);
  }
}

/** CoreFoundation over one runtime, with the CFStrings and CFArrays of attribute names it made
 * (a bounded set, kept for the helper's life). */
class CoreFoundation {
  private readonly strings = new Map<string, Ref>();
  private readonly nameArrays = new Map<string, Ref>();
  private typeIds: { string: bigint; number: bigint; boolean: bigint; axValue: bigint } | null =
    null;

  constructor(readonly rt: CRuntime) {}

  cf(name: keyof typeof PROTOTYPES.coreFoundation): CFunction {
    return this.rt.fn('coreFoundation', name);
  }

  ax(name: keyof typeof PROTOTYPES.applicationServices): CFunction {
    return this.rt.fn('applicationServices', name);
  }

  release(ref: Ref): void {
    this.cf('CFRelease')(ref);
  }

  string(text: string): Ref {
    let ref = this.strings.get(text);
    if (ref === undefined) {
      ref = this.cf('CFStringCreateWithCString')(
        null,
        text,
        CONSTANTS.kCFStringEncodingUTF8,
      ) as Ref;
      this.strings.set(text, ref);
    }
    return ref;
  }

  names(names: readonly string[]): Ref {
    const key = names.join('\n');
    let ref = this.nameArrays.get(key);
    if (ref === undefined) {
      const values = BigUint64Array.from(names.map((n) => this.string(n)));
      ref = this.cf('CFArrayCreate')(
        null,
        values,
        names.length,
        this.rt.addressSymbol('coreFoundation', 'kCFTypeArrayCallBacks'),
      ) as Ref;
      this.nameArrays.set(key, ref);
    }
    return ref;
  }

  jsString(ref: Ref): string {
    const length = Number(this.cf('CFStringGetLength')(ref));
    const size =
      Number(
        this.cf('CFStringGetMaximumSizeForEncoding')(length, CONSTANTS.kCFStringEncodingUTF8),
      ) + 1;
    const buffer = Buffer.alloc(size);
    if (this.cf('CFStringGetCString')(ref, buffer, size, CONSTANTS.kCFStringEncodingUTF8) === 0) {
      return '';
    }
    const end = buffer.indexOf(0);
    return buffer.toString('utf8', 0, end === -1 ? size : end);
  }

  private ids(): NonNullable<CoreFoundation['typeIds']> {
    const id = (fn: CFunction): bigint => BigInt(fn() as number | bigint);
    this.typeIds ??= {
      string: id(this.cf('CFStringGetTypeID')),
      number: id(this.cf('CFNumberGetTypeID')),
      boolean: id(this.cf('CFBooleanGetTypeID')),
      axValue: id(this.ax('AXValueGetTypeID')),
    };
    return this.typeIds;
  }

  /** CFString, CFNumber, CFBoolean and AXValue point/size; AXValue errors are undefined. */
  decode(ref: Ref | null): AxAttributeValue | undefined {
    if (ref === null) {
      return undefined;
    }
    const t = BigInt(this.cf('CFGetTypeID')(ref) as number | bigint);
    const known = this.ids();
    if (t === known.string) {
      return this.jsString(ref);
    }
    if (t === known.boolean) {
      return this.cf('CFBooleanGetValue')(ref) !== 0;
    }
    if (t === known.number) {
      const out = Buffer.alloc(8);
      return this.cf('CFNumberGetValue')(ref, CONSTANTS.kCFNumberFloat64Type, out) === 0
        ? undefined
        : out.readDoubleLE(0);
    }
    if (t === known.axValue) {
      const type = Number(this.ax('AXValueGetType')(ref));
      if (type === CONSTANTS.kAXValueCGPointType) {
        const point = { x: 0, y: 0 };
        return this.ax('AXValueGetPoint')(ref, type, point) === 0 ? undefined : point;
      }
      if (type === CONSTANTS.kAXValueCGSizeType) {
        const size = { width: 0, height: 0 };
        return this.ax('AXValueGetSize')(ref, type, size) === 0 ? undefined : size;
      }
      return type === CONSTANTS.kAXValueAXErrorType ? undefined : null;
    }
    return null;
  }

  /** The values of a CFArray (not retained: valid while the array is). */
  values(array: Ref): Ref[] {
    const count = Number(this.cf('CFArrayGetCount')(array));
    const out: Ref[] = [];
    for (let i = 0; i < count; i++) {
      out.push(this.cf('CFArrayGetValueAtIndex')(array, i) as Ref);
    }
    return out;
  }
}

/** The AX C API over koffi (or `rt`). */
export function createKoffiAxBackend(rt: CRuntime = KOFFI): AxBackend<Ref> {
  const c = new CoreFoundation(rt);
  const ax = (name: keyof typeof PROTOTYPES.applicationServices): CFunction => c.ax(name);
  let promptOptions: Ref | null = null;
  return {
    isProcessTrusted(prompt = false) {
      if (!prompt) {
        return ax('AXIsProcessTrusted')() !== 0;
      }
      promptOptions ??= c.cf('CFDictionaryCreate')(
        null,
        BigUint64Array.of(rt.pointerSymbol('applicationServices', 'kAXTrustedCheckOptionPrompt')),
        BigUint64Array.of(rt.pointerSymbol('coreFoundation', 'kCFBooleanTrue')),
        1,
        rt.addressSymbol('coreFoundation', 'kCFTypeDictionaryKeyCallBacks'),
        rt.addressSymbol('coreFoundation', 'kCFTypeDictionaryValueCallBacks'),
      ) as Ref;
      return ax('AXIsProcessTrustedWithOptions')(promptOptions) !== 0;
    },
    systemWide: () => ax('AXUIElementCreateSystemWide')() as Ref,
    application: (pid) => ax('AXUIElementCreateApplication')(pid) as Ref,
    elementAtPosition(systemWide, x, y) {
      const out: (Ref | null)[] = [null];
      const code = ax('AXUIElementCopyElementAtPosition')(systemWide, x, y, out) as number;
      if (code === AX_ERROR.noValue || code === AX_ERROR.illegalArgument) {
        return null;
      }
      check(code, 'AXUIElementCopyElementAtPosition');
      return out[0] ?? null;
    },
    copyAttributes(element, names) {
      const out: (Ref | null)[] = [null];
      const code = ax('AXUIElementCopyMultipleAttributeValues')(
        element,
        c.names(names),
        0,
        out,
      ) as number;
      check(code, 'AXUIElementCopyMultipleAttributeValues');
      const array = out[0] ?? null;
      if (array === null) {
        return names.map(() => undefined);
      }
      try {
        const values = c.values(array).map((v) => c.decode(v));
        return names.map((_, i) => values[i]);
      } finally {
        c.release(array);
      }
    },
    copyElementAttribute(element, name) {
      const out: (Ref | null)[] = [null];
      const code = ax('AXUIElementCopyAttributeValue')(element, c.string(name), out) as number;
      if (ABSENT.includes(code)) {
        return null;
      }
      check(code, `AXUIElementCopyAttributeValue(${name})`);
      return out[0] ?? null;
    },
    childCount(element) {
      const out: (number | bigint)[] = [0];
      const code = ax('AXUIElementGetAttributeValueCount')(
        element,
        c.string('AXChildren'),
        out,
      ) as number;
      if (ABSENT.includes(code)) {
        return 0;
      }
      check(code, 'AXUIElementGetAttributeValueCount(AXChildren)');
      return Number(out[0] ?? 0);
    },
    children(element, max) {
      const out: (Ref | null)[] = [null];
      const code = ax('AXUIElementCopyAttributeValues')(
        element,
        c.string('AXChildren'),
        0,
        max,
        out,
      ) as number;
      if (ABSENT.includes(code) || code === AX_ERROR.illegalArgument) {
        return [];
      }
      check(code, 'AXUIElementCopyAttributeValues(AXChildren)');
      const array = out[0] ?? null;
      if (array === null) {
        return [];
      }
      try {
        // the array owns its elements: keep each beyond it
        return c.values(array).map((ref) => c.cf('CFRetain')(ref) as Ref);
      } finally {
        c.release(array);
      }
    },
    setMessagingTimeout(element, seconds) {
      // an invalid element fails its next real call, which says why
      ax('AXUIElementSetMessagingTimeout')(element, seconds);
    },
    pid(element) {
      const out = [0];
      return ax('AXUIElementGetPid')(element, out) === AX_ERROR.success ? (out[0] ?? null) : null;
    },
    setManualAccessibility(applicationElement) {
      const code = ax('AXUIElementSetAttributeValue')(
        applicationElement,
        c.string('AXManualAccessibility'),
        rt.pointerSymbol('coreFoundation', 'kCFBooleanTrue'),
      ) as number;
      return code === AX_ERROR.success;
    },
    sameElement: (a, b) => c.cf('CFEqual')(a, b) !== 0,
    release(element) {
      c.release(element);
    },
  };
}

function toRect(rect: CGRectValue): PointRect {
  return {
    x: rect.origin.x,
    y: rect.origin.y,
    width: rect.size.width,
    height: rect.size.height,
  };
}

// A function that may be missing on an old macOS: unknown instead of a failed request.
function permission(read: () => OsPermission): OsPermission {
  try {
    return read();
  } catch {
    return 'unknown';
  }
}

/** CoreGraphics and IOKit over koffi (or `rt`). */
export function createKoffiSystem(rt: CRuntime = KOFFI): DarwinSystem {
  const c = new CoreFoundation(rt);
  const cg = (name: keyof typeof PROTOTYPES.coreGraphics): CFunction => rt.fn('coreGraphics', name);
  const value = (dict: Ref, key: (typeof DATA_SYMBOLS.coreGraphics)[number]): Ref | null =>
    (c.cf('CFDictionaryGetValue')(dict, rt.pointerSymbol('coreGraphics', key)) as Ref | null) ??
    null;

  function readWindow(dict: Ref): CgWindow | null {
    const boundsDict = value(dict, 'kCGWindowBounds');
    const rect: CGRectValue = { origin: { x: 0, y: 0 }, size: { width: 0, height: 0 } };
    if (boundsDict === null || !cg('CGRectMakeWithDictionaryRepresentation')(boundsDict, rect)) {
      return null;
    }
    const number = c.decode(value(dict, 'kCGWindowNumber'));
    const pid = c.decode(value(dict, 'kCGWindowOwnerPID'));
    const owner = c.decode(value(dict, 'kCGWindowOwnerName'));
    const name = c.decode(value(dict, 'kCGWindowName'));
    const layer = c.decode(value(dict, 'kCGWindowLayer'));
    if (typeof number !== 'number' || typeof pid !== 'number') {
      return null;
    }
    return {
      number,
      pid,
      ownerName: typeof owner === 'string' ? owner : '',
      name: typeof name === 'string' ? name : null,
      layer: typeof layer === 'number' ? layer : 0,
      bounds: toRect(rect),
    };
  }

  return {
    windows() {
      const list = cg('CGWindowListCopyWindowInfo')(
        CONSTANTS.kCGWindowListOptionOnScreenOnly | CONSTANTS.kCGWindowListExcludeDesktopElements,
        CONSTANTS.kCGNullWindowID,
      ) as Ref | null;
      if (list === null) {
        return [];
      }
      try {
        return c
          .values(list)
          .map(readWindow)
          .filter((w): w is CgWindow => w !== null);
      } finally {
        c.release(list);
      }
    },
    displays() {
      const max = 32;
      const ids = new Uint32Array(max);
      const count = [0];
      if (cg('CGGetActiveDisplayList')(max, ids, count) !== 0) {
        return [];
      }
      const main = cg('CGMainDisplayID')() as number;
      const out: CgDisplay[] = [];
      for (const id of ids.subarray(0, Math.min(max, count[0] ?? 0))) {
        const bounds = toRect(cg('CGDisplayBounds')(id) as CGRectValue);
        let scale = 1;
        const mode = cg('CGDisplayCopyDisplayMode')(id) as Ref | null;
        if (mode !== null) {
          const pixelWidth = Number(cg('CGDisplayModeGetPixelWidth')(mode));
          const width = Number(cg('CGDisplayModeGetWidth')(mode));
          if (pixelWidth > 0 && width > 0) {
            scale = pixelWidth / width;
          }
          cg('CGDisplayModeRelease')(mode);
        }
        out.push({ id, bounds, scale, primary: id === main });
      }
      return out;
    },
    screenRecording: () =>
      permission(() => (cg('CGPreflightScreenCaptureAccess')() ? 'granted' : 'denied')),
    inputMonitoring: () =>
      permission(() => {
        const access = rt.fn(
          'ioKit',
          'IOHIDCheckAccess',
        )(CONSTANTS.kIOHIDRequestTypeListenEvent) as number;
        if (access === CONSTANTS.kIOHIDAccessTypeGranted) {
          return 'granted';
        }
        return access === CONSTANTS.kIOHIDAccessTypeDenied ? 'denied' : 'unknown';
      }),
  };
}
