// The AxBackend and DarwinSystem of ax-backend.ts over koffi: AX elements are CFTypeRef pointers
// (BigInt in koffi 3), values are decoded from CoreFoundation types, and every owned reference is
// released by the caller (ax-reader.ts) or here. Runs only on macOS; built to the documented C
// API (docs/helper-protocol.md §3, §6), its declarations checked on Linux by
// tests/helpers/darwin/ffi-layout.test.ts.
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
import type { CFunction, DATA_SYMBOLS, PROTOTYPES } from './bindings';
import { addressSymbol, CONSTANTS, cfn, pointerSymbol } from './bindings';

type Ref = bigint;
type CGRectValue = { origin: { x: number; y: number }; size: { width: number; height: number } };

const cf = (name: keyof typeof PROTOTYPES.coreFoundation): CFunction => cfn('coreFoundation', name);
const ax = (name: keyof typeof PROTOTYPES.applicationServices): CFunction =>
  cfn('applicationServices', name);
const cg = (name: keyof typeof PROTOTYPES.coreGraphics): CFunction => cfn('coreGraphics', name);

// CFStrings of attribute names and keys live as long as the helper: a bounded set, made once
const cfStrings = new Map<string, Ref>();

function cfString(text: string): Ref {
  let ref = cfStrings.get(text);
  if (ref === undefined) {
    ref = cf('CFStringCreateWithCString')(null, text, CONSTANTS.kCFStringEncodingUTF8) as Ref;
    cfStrings.set(text, ref);
  }
  return ref;
}

function jsString(ref: Ref): string {
  const length = Number(cf('CFStringGetLength')(ref));
  const size =
    Number(cf('CFStringGetMaximumSizeForEncoding')(length, CONSTANTS.kCFStringEncodingUTF8)) + 1;
  const buffer = Buffer.alloc(size);
  if (cf('CFStringGetCString')(ref, buffer, size, CONSTANTS.kCFStringEncodingUTF8) === 0) {
    return '';
  }
  const end = buffer.indexOf(0);
  return buffer.toString('utf8', 0, end === -1 ? size : end);
}

let typeIds: { string: bigint; number: bigint; boolean: bigint; axValue: bigint } | null = null;

function ids(): NonNullable<typeof typeIds> {
  typeIds ??= {
    string: BigInt(cf('CFStringGetTypeID')() as number | bigint),
    number: BigInt(cf('CFNumberGetTypeID')() as number | bigint),
    boolean: BigInt(cf('CFBooleanGetTypeID')() as number | bigint),
    axValue: BigInt(ax('AXValueGetTypeID')() as number | bigint),
  };
  return typeIds;
}

function jsNumber(ref: Ref): number | undefined {
  const out = Buffer.alloc(8);
  return cf('CFNumberGetValue')(ref, CONSTANTS.kCFNumberFloat64Type, out) === 0
    ? undefined
    : out.readDoubleLE(0);
}

// CFString, CFNumber, CFBoolean and AXValue point/size; AXValue errors come back as undefined
function decode(ref: Ref | null): AxAttributeValue | undefined {
  if (ref === null) {
    return undefined;
  }
  const t = BigInt(cf('CFGetTypeID')(ref) as number | bigint);
  const known = ids();
  if (t === known.string) {
    return jsString(ref);
  }
  if (t === known.boolean) {
    return cf('CFBooleanGetValue')(ref) !== 0;
  }
  if (t === known.number) {
    return jsNumber(ref);
  }
  if (t === known.axValue) {
    const type = Number(ax('AXValueGetType')(ref));
    if (type === CONSTANTS.kAXValueCGPointType) {
      const point = { x: 0, y: 0 };
      return ax('AXValueGetPoint')(ref, type, point) === 0 ? undefined : point;
    }
    if (type === CONSTANTS.kAXValueCGSizeType) {
      const size = { width: 0, height: 0 };
      return ax('AXValueGetSize')(ref, type, size) === 0 ? undefined : size;
    }
    return type === CONSTANTS.kAXValueAXErrorType ? undefined : null;
  }
  return null;
}

function arrayValues(array: Ref): Ref[] {
  const count = Number(cf('CFArrayGetCount')(array));
  const out: Ref[] = [];
  for (let i = 0; i < count; i++) {
    out.push(cf('CFArrayGetValueAtIndex')(array, i) as Ref);
  }
  return out;
}

// CFArrays of attribute names, one per list the reader asks for (a handful)
const nameArrays = new Map<string, Ref>();

function namesArray(names: readonly string[]): Ref {
  const key = names.join('\n');
  let ref = nameArrays.get(key);
  if (ref === undefined) {
    const values = BigUint64Array.from(names.map(cfString));
    ref = cf('CFArrayCreate')(
      null,
      values,
      names.length,
      addressSymbol('coreFoundation', 'kCFTypeArrayCallBacks'),
    ) as Ref;
    nameArrays.set(key, ref);
  }
  return ref;
}

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

let promptOptions: Ref | null = null;

/** The AX C API over koffi. */
export function createKoffiAxBackend(): AxBackend<Ref> {
  return {
    isProcessTrusted(prompt = false) {
      if (!prompt) {
        return ax('AXIsProcessTrusted')() !== 0;
      }
      promptOptions ??= cf('CFDictionaryCreate')(
        null,
        BigUint64Array.of(pointerSymbol('applicationServices', 'kAXTrustedCheckOptionPrompt')),
        BigUint64Array.of(pointerSymbol('coreFoundation', 'kCFBooleanTrue')),
        1,
        addressSymbol('coreFoundation', 'kCFTypeDictionaryKeyCallBacks'),
        addressSymbol('coreFoundation', 'kCFTypeDictionaryValueCallBacks'),
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
        namesArray(names),
        0,
        out,
      ) as number;
      check(code, 'AXUIElementCopyMultipleAttributeValues');
      const array = out[0] ?? null;
      if (array === null) {
        return names.map(() => undefined);
      }
      try {
        const values = arrayValues(array).map(decode);
        return names.map((_, i) => values[i]);
      } finally {
        cf('CFRelease')(array);
      }
    },
    copyElementAttribute(element, name) {
      const out: (Ref | null)[] = [null];
      const code = ax('AXUIElementCopyAttributeValue')(element, cfString(name), out) as number;
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
        cfString('AXChildren'),
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
        cfString('AXChildren'),
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
        return arrayValues(array).map((ref) => cf('CFRetain')(ref) as Ref);
      } finally {
        cf('CFRelease')(array);
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
        cfString('AXManualAccessibility'),
        pointerSymbol('coreFoundation', 'kCFBooleanTrue'),
      ) as number;
      return code === AX_ERROR.success;
    },
    sameElement: (a, b) => cf('CFEqual')(a, b) !== 0,
    release(element) {
      cf('CFRelease')(element);
    },
  };
}

function dictValue(dict: Ref, key: Ref): Ref | null {
  return (cf('CFDictionaryGetValue')(dict, key) as Ref | null) ?? null;
}

function toRect(rect: CGRectValue): PointRect {
  return {
    x: rect.origin.x,
    y: rect.origin.y,
    width: rect.size.width,
    height: rect.size.height,
  };
}

function readWindow(dict: Ref): CgWindow | null {
  const key = (name: (typeof DATA_SYMBOLS.coreGraphics)[number]): Ref =>
    pointerSymbol('coreGraphics', name);
  const boundsDict = dictValue(dict, key('kCGWindowBounds'));
  const rect: CGRectValue = { origin: { x: 0, y: 0 }, size: { width: 0, height: 0 } };
  if (boundsDict === null || !cg('CGRectMakeWithDictionaryRepresentation')(boundsDict, rect)) {
    return null;
  }
  const number = decode(dictValue(dict, key('kCGWindowNumber')));
  const pid = decode(dictValue(dict, key('kCGWindowOwnerPID')));
  const owner = decode(dictValue(dict, key('kCGWindowOwnerName')));
  const name = decode(dictValue(dict, key('kCGWindowName')));
  const layer = decode(dictValue(dict, key('kCGWindowLayer')));
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

// A function that may be missing on an old macOS: unknown instead of a failed request.
function permission(read: () => OsPermission): OsPermission {
  try {
    return read();
  } catch {
    return 'unknown';
  }
}

/** CoreGraphics and IOKit over koffi. */
export function createKoffiSystem(): DarwinSystem {
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
        return arrayValues(list)
          .map(readWindow)
          .filter((w): w is CgWindow => w !== null);
      } finally {
        cf('CFRelease')(list);
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
        const access = cfn(
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
