// The macOS helper's C declarations for koffi: the CoreFoundation, ApplicationServices (AX),
// CoreGraphics and IOKit functions it calls, as prototype strings koffi parses, and the struct
// layouts they use (CGPoint, CGSize, CGRect: doubles on 64-bit macOS). Frameworks are loaded on
// the first call of one of their functions, never at import, and each function is bound on its
// first call (a symbol missing on an old macOS fails that call only). Layouts and prototypes are
// tested on Linux (tests/helpers/darwin/ffi-layout.test.ts); the calls only run on macOS.
import koffi from 'koffi';
import type { LibraryHandle, TypeObject } from 'koffi';

/** A bound C function. */
export type CFunction = ReturnType<LibraryHandle['func']>;

/** Framework binaries (dlopen finds them in the dyld shared cache on macOS 11+). */
export const FRAMEWORKS = {
  coreFoundation: '/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation',
  applicationServices:
    '/System/Library/Frameworks/ApplicationServices.framework/ApplicationServices',
  coreGraphics: '/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics',
  ioKit: '/System/Library/Frameworks/IOKit.framework/IOKit',
} as const;

export type Framework = keyof typeof FRAMEWORKS;

/** Every function the helper calls, by framework; the key is how the code calls it, the
 * string's function name is the symbol (AXValueGetValue is bound twice, once per out type). */
export const PROTOTYPES = {
  coreFoundation: {
    CFRelease: 'void CFRelease(CFTypeRef cf)',
    CFRetain: 'CFTypeRef CFRetain(CFTypeRef cf)',
    CFEqual: 'Boolean CFEqual(CFTypeRef a, CFTypeRef b)',
    CFGetTypeID: 'CFTypeID CFGetTypeID(CFTypeRef cf)',
    CFStringGetTypeID: 'CFTypeID CFStringGetTypeID()',
    CFNumberGetTypeID: 'CFTypeID CFNumberGetTypeID()',
    CFBooleanGetTypeID: 'CFTypeID CFBooleanGetTypeID()',
    CFArrayGetTypeID: 'CFTypeID CFArrayGetTypeID()',
    CFDictionaryGetTypeID: 'CFTypeID CFDictionaryGetTypeID()',
    CFStringCreateWithCString:
      'CFStringRef CFStringCreateWithCString(CFAllocatorRef alloc, const char *cStr, CFStringEncoding encoding)',
    CFStringGetLength: 'CFIndex CFStringGetLength(CFStringRef theString)',
    CFStringGetMaximumSizeForEncoding:
      'CFIndex CFStringGetMaximumSizeForEncoding(CFIndex length, CFStringEncoding encoding)',
    CFStringGetCString:
      'Boolean CFStringGetCString(CFStringRef theString, void *buffer, CFIndex bufferSize, CFStringEncoding encoding)',
    CFArrayCreate:
      'CFArrayRef CFArrayCreate(CFAllocatorRef alloc, void *values, CFIndex numValues, const void *callBacks)',
    CFArrayGetCount: 'CFIndex CFArrayGetCount(CFArrayRef theArray)',
    CFArrayGetValueAtIndex: 'CFTypeRef CFArrayGetValueAtIndex(CFArrayRef theArray, CFIndex idx)',
    CFNumberGetValue:
      'Boolean CFNumberGetValue(CFNumberRef number, CFNumberType theType, void *valuePtr)',
    CFBooleanGetValue: 'Boolean CFBooleanGetValue(CFBooleanRef boolean)',
    CFDictionaryCreate:
      'CFDictionaryRef CFDictionaryCreate(CFAllocatorRef alloc, void *keys, void *values, CFIndex numValues, const void *keyCallBacks, const void *valueCallBacks)',
    CFDictionaryGetValue:
      'CFTypeRef CFDictionaryGetValue(CFDictionaryRef theDict, const void *key)',
  },
  applicationServices: {
    AXIsProcessTrusted: 'Boolean AXIsProcessTrusted()',
    AXIsProcessTrustedWithOptions: 'Boolean AXIsProcessTrustedWithOptions(CFDictionaryRef options)',
    AXUIElementGetTypeID: 'CFTypeID AXUIElementGetTypeID()',
    AXValueGetTypeID: 'CFTypeID AXValueGetTypeID()',
    AXUIElementCreateSystemWide: 'AXUIElementRef AXUIElementCreateSystemWide()',
    AXUIElementCreateApplication: 'AXUIElementRef AXUIElementCreateApplication(pid_t pid)',
    AXUIElementCopyElementAtPosition:
      'AXError AXUIElementCopyElementAtPosition(AXUIElementRef application, float x, float y, _Out_ AXUIElementRef *element)',
    AXUIElementCopyAttributeValue:
      'AXError AXUIElementCopyAttributeValue(AXUIElementRef element, CFStringRef attribute, _Out_ CFTypeRef *value)',
    AXUIElementCopyMultipleAttributeValues:
      'AXError AXUIElementCopyMultipleAttributeValues(AXUIElementRef element, CFArrayRef attributes, AXCopyMultipleAttributeOptions options, _Out_ CFArrayRef *values)',
    AXUIElementGetAttributeValueCount:
      'AXError AXUIElementGetAttributeValueCount(AXUIElementRef element, CFStringRef attribute, _Out_ CFIndex *count)',
    AXUIElementCopyAttributeValues:
      'AXError AXUIElementCopyAttributeValues(AXUIElementRef element, CFStringRef attribute, CFIndex index, CFIndex maxValues, _Out_ CFArrayRef *values)',
    AXUIElementSetAttributeValue:
      'AXError AXUIElementSetAttributeValue(AXUIElementRef element, CFStringRef attribute, CFTypeRef value)',
    AXUIElementSetMessagingTimeout:
      'AXError AXUIElementSetMessagingTimeout(AXUIElementRef element, float timeoutInSeconds)',
    AXUIElementGetPid: 'AXError AXUIElementGetPid(AXUIElementRef element, _Out_ pid_t *pid)',
    AXValueGetType: 'AXValueType AXValueGetType(AXValueRef value)',
    AXValueGetPoint:
      'Boolean AXValueGetValue(AXValueRef value, AXValueType theType, _Out_ CGPoint *point)',
    AXValueGetSize:
      'Boolean AXValueGetValue(AXValueRef value, AXValueType theType, _Out_ CGSize *size)',
  },
  coreGraphics: {
    CGWindowListCopyWindowInfo:
      'CFArrayRef CGWindowListCopyWindowInfo(CGWindowListOption option, CGWindowID relativeToWindow)',
    CGRectMakeWithDictionaryRepresentation:
      'bool CGRectMakeWithDictionaryRepresentation(CFDictionaryRef dict, _Out_ CGRect *rect)',
    CGGetActiveDisplayList:
      'CGError CGGetActiveDisplayList(uint32_t maxDisplays, void *activeDisplays, _Out_ uint32_t *displayCount)',
    CGMainDisplayID: 'CGDirectDisplayID CGMainDisplayID()',
    CGDisplayBounds: 'CGRect CGDisplayBounds(CGDirectDisplayID display)',
    CGDisplayCopyDisplayMode:
      'CGDisplayModeRef CGDisplayCopyDisplayMode(CGDirectDisplayID display)',
    CGDisplayModeGetPixelWidth: 'size_t CGDisplayModeGetPixelWidth(CGDisplayModeRef mode)',
    CGDisplayModeGetWidth: 'size_t CGDisplayModeGetWidth(CGDisplayModeRef mode)',
    CGDisplayModeRelease: 'void CGDisplayModeRelease(CGDisplayModeRef mode)',
    CGPreflightScreenCaptureAccess: 'bool CGPreflightScreenCaptureAccess()',
  },
  ioKit: {
    IOHIDCheckAccess: 'IOHIDAccessType IOHIDCheckAccess(IOHIDRequestType requestType)',
  },
} as const satisfies Record<Framework, Record<string, string>>;

/** Exported variables read by address (CFStringRef constants, callback structs). */
export const DATA_SYMBOLS = {
  coreFoundation: [
    'kCFTypeArrayCallBacks',
    'kCFTypeDictionaryKeyCallBacks',
    'kCFTypeDictionaryValueCallBacks',
    'kCFBooleanTrue',
  ],
  applicationServices: ['kAXTrustedCheckOptionPrompt'],
  coreGraphics: [
    'kCGWindowNumber',
    'kCGWindowOwnerPID',
    'kCGWindowOwnerName',
    'kCGWindowName',
    'kCGWindowLayer',
    'kCGWindowBounds',
  ],
  ioKit: [],
} as const satisfies Record<Framework, readonly string[]>;

/** Constants of the headers the helper passes. */
export const CONSTANTS = {
  kCFStringEncodingUTF8: 0x08000100,
  kCFNumberFloat64Type: 6,
  kAXValueCGPointType: 1,
  kAXValueCGSizeType: 2,
  kAXValueAXErrorType: 5,
  kCGWindowListOptionOnScreenOnly: 1 << 0,
  kCGWindowListExcludeDesktopElements: 1 << 4,
  kCGNullWindowID: 0,
  kIOHIDRequestTypeListenEvent: 1,
  kIOHIDAccessTypeGranted: 0,
  kIOHIDAccessTypeDenied: 1,
} as const;

/** The struct types of the prototypes. */
export type DarwinTypes = { CGPoint: TypeObject; CGSize: TypeObject; CGRect: TypeObject };

let types: DarwinTypes | null = null;

// koffi type names are global to the process: reuse one that exists (a second module instance,
// as test runners make), declare it otherwise
function declare(name: string, make: () => TypeObject): TypeObject {
  try {
    return koffi.type(name);
  } catch {
    return make();
  }
}

/** Declares the C types once per process. */
export function defineTypes(): DarwinTypes {
  if (types !== null) {
    return types;
  }
  // every CoreFoundation object is a pointer; koffi 3 passes pointers as BigInt
  for (const name of [
    'CFTypeRef',
    'CFStringRef',
    'CFArrayRef',
    'CFDictionaryRef',
    'CFNumberRef',
    'CFBooleanRef',
    'CFAllocatorRef',
    'AXUIElementRef',
    'AXValueRef',
    'CGDisplayModeRef',
  ]) {
    declare(name, () => koffi.alias(name, 'void *'));
  }
  const scalars: [string, string][] = [
    ['CFIndex', 'intptr_t'], // signed long, 8 bytes on 64-bit macOS
    ['CFNumberType', 'CFIndex'],
    ['CFTypeID', 'uintptr_t'], // unsigned long
    ['CFStringEncoding', 'uint32_t'],
    ['Boolean', 'uint8_t'], // MacTypes.h: unsigned char
    ['pid_t', 'int32_t'],
    ['AXError', 'int32_t'],
    ['AXValueType', 'uint32_t'],
    ['AXCopyMultipleAttributeOptions', 'uint32_t'],
    ['CGError', 'int32_t'],
    ['CGDirectDisplayID', 'uint32_t'],
    ['CGWindowID', 'uint32_t'],
    ['CGWindowListOption', 'uint32_t'],
    ['IOHIDRequestType', 'uint32_t'],
    ['IOHIDAccessType', 'uint32_t'],
  ];
  for (const [name, type] of scalars) {
    declare(name, () => koffi.alias(name, type));
  }
  // CGFloat is double on every 64-bit macOS
  const CGPoint = declare('CGPoint', () => koffi.struct('CGPoint', { x: 'double', y: 'double' }));
  const CGSize = declare('CGSize', () =>
    koffi.struct('CGSize', { width: 'double', height: 'double' }),
  );
  const CGRect = declare('CGRect', () => koffi.struct('CGRect', { origin: CGPoint, size: CGSize }));
  types = { CGPoint, CGSize, CGRect };
  return types;
}

const libraries = new Map<Framework, LibraryHandle>();
const functions = new Map<string, CFunction>();

function library(framework: Framework): LibraryHandle {
  let lib = libraries.get(framework);
  if (lib === undefined) {
    defineTypes();
    lib = koffi.load(FRAMEWORKS[framework]);
    libraries.set(framework, lib);
  }
  return lib;
}

/** The bound function `name` of `framework`, loading the framework on first use. */
export function cfn<F extends Framework>(
  framework: F,
  name: keyof (typeof PROTOTYPES)[F] & string,
): CFunction {
  const key = `${framework}.${name}`;
  let fn = functions.get(key);
  if (fn === undefined) {
    const prototypes: Record<string, string> = PROTOTYPES[framework];
    fn = library(framework).func(prototypes[name] as string);
    functions.set(key, fn);
  }
  return fn;
}

/** The value of an exported pointer variable (a CFStringRef constant, kCFBooleanTrue). */
export function pointerSymbol<F extends Framework>(
  framework: F,
  name: (typeof DATA_SYMBOLS)[F][number],
): bigint {
  return koffi.decode(library(framework).symbol(name), 'void *') as bigint;
}

/** The address of an exported variable (the callback structs CFArrayCreate takes). */
export function addressSymbol<F extends Framework>(
  framework: F,
  name: (typeof DATA_SYMBOLS)[F][number],
): bigint {
  return library(framework).symbol(name) as bigint;
}
