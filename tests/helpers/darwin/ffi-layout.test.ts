// The macOS helper's koffi declarations, checked on Linux with the real koffi: struct layouts as
// in the CoreGraphics headers (CGFloat = double on 64-bit macOS), and every prototype string the
// bindings pass to lib.func parsed by koffi down to the missing symbol. The frameworks
// themselves only exist on macOS.
import koffi from 'koffi';
import type { TypeObject } from 'koffi';
import { describe, expect, it } from 'vitest';
import {
  CONSTANTS,
  DATA_SYMBOLS,
  defineTypes,
  FRAMEWORKS,
  PROTOTYPES,
} from '../../../src/helpers/darwin/ffi/bindings';

const all = Object.entries(PROTOTYPES).flatMap(([framework, protos]) =>
  Object.entries(protos).map(([key, proto]) => ({ framework, key, proto: String(proto) })),
);

// koffi 3 reports prototype arguments as {type, direction} (its .d.ts says TypeObject)
type ParsedPrototype = {
  arguments: { type: TypeObject; direction: 'Input' | 'Output' | 'InOut' }[];
  result: TypeObject;
};

// Parses a prototype under a fresh name (koffi.proto registers the name as a type).
let probes = 0;
function parse(proto: string): ParsedPrototype {
  const renamed = proto.replace(/(\w+)\(/, () => `darwin_probe_${++probes}(`);
  const type = koffi.proto(renamed);
  if (type.proto === undefined) {
    throw new Error(`no prototype info for ${proto}`);
  }
  return type.proto as unknown as ParsedPrototype;
}

describe('darwin koffi layouts', () => {
  it('lays out CGPoint, CGSize and CGRect as the headers do', () => {
    const { CGPoint, CGSize, CGRect } = defineTypes();
    expect(koffi.sizeof(CGPoint)).toBe(16);
    expect(koffi.offsetof(CGPoint, 'x')).toBe(0);
    expect(koffi.offsetof(CGPoint, 'y')).toBe(8);
    expect(koffi.sizeof(CGSize)).toBe(16);
    expect(koffi.offsetof(CGSize, 'width')).toBe(0);
    expect(koffi.offsetof(CGSize, 'height')).toBe(8);
    expect(koffi.sizeof(CGRect)).toBe(32);
    expect(koffi.alignof(CGRect)).toBe(8);
    expect(koffi.offsetof(CGRect, 'origin')).toBe(0);
    expect(koffi.offsetof(CGRect, 'size')).toBe(16);
    // decoding a CGRect from its bytes gives the four doubles in order
    const bytes = Buffer.alloc(32);
    [-1920, 25, 1920, 1080].forEach((v, i) => bytes.writeDoubleLE(v, i * 8));
    expect(koffi.decode(bytes, CGRect)).toEqual({
      origin: { x: -1920, y: 25 },
      size: { width: 1920, height: 1080 },
    });
  });

  it('gives the CF/AX scalar types their macOS widths', () => {
    defineTypes();
    expect(koffi.sizeof('CFIndex')).toBe(8);
    expect(koffi.sizeof('CFTypeID')).toBe(8);
    expect(koffi.sizeof('CFTypeRef')).toBe(8);
    expect(koffi.sizeof('Boolean')).toBe(1);
    expect(koffi.sizeof('AXError')).toBe(4);
    expect(koffi.sizeof('CGDirectDisplayID')).toBe(4);
    expect(koffi.sizeof('pid_t')).toBe(4);
    // defining twice (a second module instance) reuses the registered types
    expect(defineTypes().CGRect).toBe(defineTypes().CGRect);
  });

  it('parses every prototype down to the missing symbol', () => {
    defineTypes();
    const self = koffi.load(null);
    expect(all.length).toBeGreaterThan(40);
    for (const { proto } of all) {
      const symbol = /(\w+)\(/.exec(proto)?.[1];
      // a bad type or syntax fails earlier with "Unknown or invalid type name" and the like
      expect(() => self.func(proto), proto).toThrow(`Cannot find function '${symbol}'`);
    }
  });

  it('declares the argument layouts the AX and CG calls need', () => {
    defineTypes();
    const at = parse(PROTOTYPES.applicationServices.AXUIElementCopyElementAtPosition);
    expect(at.arguments.map((a) => [a.type.size, a.direction])).toEqual([
      [8, 'Input'],
      [4, 'Input'], // float x
      [4, 'Input'], // float y
      [8, 'Output'],
    ]);
    expect(at.result.size).toBe(4);
    const multi = parse(PROTOTYPES.applicationServices.AXUIElementCopyMultipleAttributeValues);
    expect(multi.arguments.map((a) => a.direction)).toEqual(['Input', 'Input', 'Input', 'Output']);
    const timeout = parse(PROTOTYPES.applicationServices.AXUIElementSetMessagingTimeout);
    expect(timeout.arguments[1]?.type.primitive).toBe('Float32');
    const point = parse(PROTOTYPES.applicationServices.AXValueGetPoint);
    expect(point.arguments[2]?.direction).toBe('Output');
    expect(point.arguments[2]?.type.ref?.size).toBe(16);
    const bounds = parse(PROTOTYPES.coreGraphics.CGDisplayBounds);
    expect(bounds.result.size).toBe(32);
    expect(bounds.result.primitive).toBe('Record');
    const dict = parse(PROTOTYPES.coreGraphics.CGRectMakeWithDictionaryRepresentation);
    expect(dict.arguments[1]?.type.ref?.size).toBe(32);
    const count = parse(PROTOTYPES.applicationServices.AXUIElementGetAttributeValueCount);
    expect(count.arguments[2]?.type.ref?.size).toBe(8);
    const values = parse(PROTOTYPES.applicationServices.AXUIElementCopyAttributeValues);
    expect(values.arguments.map((a) => a.type.size)).toEqual([8, 8, 8, 8, 8]);
  });

  it('binds every function the brief names, from the system frameworks', () => {
    const symbols = new Set(all.map(({ proto }) => /(\w+)\(/.exec(proto)?.[1]));
    for (const name of [
      'CFRelease',
      'CFRetain',
      'CFStringCreateWithCString',
      'CFStringGetCString',
      'CFStringGetLength',
      'CFArrayGetCount',
      'CFArrayGetValueAtIndex',
      'CFNumberGetValue',
      'CFBooleanGetValue',
      'CFGetTypeID',
      'CFDictionaryGetValue',
      'AXIsProcessTrusted',
      'AXIsProcessTrustedWithOptions',
      'AXUIElementCreateSystemWide',
      'AXUIElementCreateApplication',
      'AXUIElementCopyElementAtPosition',
      'AXUIElementCopyAttributeValue',
      'AXUIElementCopyMultipleAttributeValues',
      'AXUIElementSetAttributeValue',
      'AXUIElementSetMessagingTimeout',
      'AXUIElementGetPid',
      'AXValueGetValue',
      'CGWindowListCopyWindowInfo',
      'CGGetActiveDisplayList',
      'CGDisplayBounds',
      'CGMainDisplayID',
      'CGDisplayCopyDisplayMode',
      'CGDisplayModeGetPixelWidth',
      'CGDisplayModeGetWidth',
      'CGPreflightScreenCaptureAccess',
      'IOHIDCheckAccess',
    ]) {
      expect(symbols.has(name), name).toBe(true);
    }
    expect(
      Object.values(FRAMEWORKS).every((p) => p.startsWith('/System/Library/Frameworks/')),
    ).toBe(true);
    expect(DATA_SYMBOLS.coreGraphics).toContain('kCGWindowBounds');
    expect(
      CONSTANTS.kCGWindowListOptionOnScreenOnly | CONSTANTS.kCGWindowListExcludeDesktopElements,
    ).toBe(17);
  });
});
