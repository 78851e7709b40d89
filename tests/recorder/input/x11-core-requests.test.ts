// The core X11 requests of the window lookups, as bytes: each request body against the layout of
// the X protocol (§9 "Requests"), each reply decoder on a reply built byte by byte, and how the
// lookup reads names, WM_CLASS and _NET_WM_PID the way xwininfo and xprop print them
// (src/recorder/privacy/x11-pointer-query.ts). The live comparison with the X tools is
// tests/recorder/privacy/x11-pointer-query.test.ts.
import { describe, expect, it } from 'vitest';
import {
  X11_ATOM,
  X11_OPCODE,
  getPropertyRequest,
  internAtomRequest,
  parseGetGeometryReply,
  parseGetPropertyReply,
  parseInternAtomReply,
  parseQueryPointerReply,
  parseQueryTreeReply,
  parseTranslateCoordinatesReply,
  translateCoordinatesRequest,
  windowRequest,
  type GetPropertyReply,
} from '../../../src/recorder/input/x11/core-requests';
import {
  isXwininfoUtf8,
  printedClass,
  printedName,
  propertyNumber,
} from '../../../src/recorder/privacy/x11-pointer-query';

const hex = (b: Buffer) => b.toString('hex');

// A reply: type 1, `data` in byte 1, sequence 7, length in 4-byte units after 32, then `fields`
// written at their offsets and `extra` after byte 32.
function reply(
  data: number,
  fields: [number, 'u32' | 'u16' | 'i16', number][],
  extra = Buffer.alloc(0),
) {
  const bytes = Buffer.alloc(32 + extra.length);
  bytes[0] = 1;
  bytes[1] = data;
  bytes.writeUInt16LE(7, 2);
  bytes.writeUInt32LE(extra.length / 4, 4);
  for (const [at, kind, value] of fields) {
    if (kind === 'u32') {
      bytes.writeUInt32LE(value, at);
    } else if (kind === 'u16') {
      bytes.writeUInt16LE(value, at);
    } else {
      bytes.writeInt16LE(value, at);
    }
  }
  extra.copy(bytes, 32);
  return bytes;
}

const property = (type: number, format: number, value: Buffer): GetPropertyReply => ({
  type,
  format,
  bytesAfter: 0,
  itemCount: format === 0 ? 0 : value.length / (format / 8),
  value,
});

const UTF8_STRING = 300; // an interned atom's number
const COMPOUND_TEXT = 301;

describe('core request bodies', () => {
  it('encodes window, InternAtom, GetProperty and TranslateCoordinates bodies', () => {
    expect(windowRequest(X11_OPCODE.queryPointer, 0x50d)).toEqual({
      major: 38,
      data: 0,
      body: Buffer.from('0d050000', 'hex'),
    });
    expect(windowRequest(X11_OPCODE.queryTree, 0xffffffff).body).toEqual(
      Buffer.from('ffffffff', 'hex'),
    );
    const intern = internAtomRequest('WM_STATE', true);
    expect([intern.major, intern.data, hex(intern.body)]).toEqual([
      16,
      1,
      '08000000' + Buffer.from('WM_STATE').toString('hex'),
    ]);
    expect(internAtomRequest('UTF8_STRING').data).toBe(0);
    const get = getPropertyRequest({
      window: 0x400003,
      property: X11_ATOM.wmClass,
      type: X11_ATOM.string,
      longOffset: 2,
      longLength: 8192,
    });
    expect([get.major, get.data, hex(get.body)]).toEqual([
      20,
      0,
      '03004000' + '43000000' + '1f000000' + '02000000' + '00200000',
    ]);
    const translate = translateCoordinatesRequest(0x400003, 0x50d, -3, 20);
    expect([translate.major, hex(translate.body)]).toEqual([
      40,
      '03004000' + '0d050000' + 'fdff' + '1400',
    ]);
  });
});

describe('core reply decoders', () => {
  it('QueryPointer: screen, root, child and position', () => {
    const bytes = reply(1, [
      [8, 'u32', 0x50d],
      [12, 'u32', 0x200261],
      [16, 'i16', 311],
      [18, 'i16', -4],
    ]);
    expect(parseQueryPointerReply(bytes)).toEqual({
      isSameScreen: true,
      root: 0x50d,
      child: 0x200261,
      rootX: 311,
      rootY: -4,
    });
    expect(parseQueryPointerReply(reply(0, [])).isSameScreen).toBe(false);
  });

  it('QueryTree: root, parent and the children bottom-most first', () => {
    const children = Buffer.alloc(12);
    [0x200262, 0x2002ad, 0x400003].forEach((id, i) => children.writeUInt32LE(id, 4 * i));
    const bytes = reply(
      0,
      [
        [8, 'u32', 0x50d],
        [12, 'u32', 0],
        [16, 'u16', 3],
      ],
      children,
    );
    expect(parseQueryTreeReply(bytes)).toEqual({
      root: 0x50d,
      parent: 0,
      children: [0x200262, 0x2002ad, 0x400003],
    });
  });

  it('GetProperty: format, type, bytes after and exactly the value bytes', () => {
    const value = Buffer.from('note\0Xmessage\0\0\0', 'latin1'); // 14 bytes, padded to 16
    const bytes = reply(
      8,
      [
        [8, 'u32', X11_ATOM.string],
        [12, 'u32', 5],
        [16, 'u32', 14],
      ],
      value,
    );
    const decoded = parseGetPropertyReply(bytes);
    expect(decoded).toEqual({
      format: 8,
      type: X11_ATOM.string,
      bytesAfter: 5,
      itemCount: 14,
      value: Buffer.from('note\0Xmessage\0', 'latin1'),
    });
    const pid = Buffer.alloc(4);
    pid.writeUInt32LE(13553, 0);
    const cardinal = parseGetPropertyReply(
      reply(
        32,
        [
          [8, 'u32', 6],
          [16, 'u32', 1],
        ],
        pid,
      ),
    );
    expect([cardinal.itemCount, cardinal.value.readUInt32LE(0)]).toEqual([1, 13553]);
    expect(parseGetPropertyReply(reply(0, [])).value.length).toBe(0);
  });

  it('GetGeometry, TranslateCoordinates (signed positions) and InternAtom', () => {
    expect(
      parseGetGeometryReply(
        reply(24, [
          [8, 'u32', 0x50d],
          [12, 'i16', -1],
          [14, 'i16', 20],
          [16, 'u16', 420],
          [18, 'u16', 460],
          [20, 'u16', 2],
        ]),
      ),
    ).toEqual({ root: 0x50d, x: -1, y: 20, width: 420, height: 460, borderWidth: 2 });
    expect(
      parseTranslateCoordinatesReply(
        reply(1, [
          [8, 'u32', 0],
          [12, 'i16', -100],
          [14, 'i16', 119],
        ]),
      ),
    ).toEqual({ isSameScreen: true, child: 0, x: -100, y: 119 });
    expect(parseInternAtomReply(reply(0, [[8, 'u32', 312]]))).toBe(312);
  });
});

describe('names, classes and pids as xwininfo and xprop print them', () => {
  it('a name: STRING up to its NUL, valid UTF8_STRING whole, none, or unreadable', () => {
    const cases: [string, GetPropertyReply, string | null | undefined][] = [
      ['no property', property(X11_ATOM.any, 0, Buffer.alloc(0)), null],
      ['empty UTF8_STRING', property(UTF8_STRING, 8, Buffer.alloc(0)), null],
      ['STRING', property(X11_ATOM.string, 8, Buffer.from('Plain Note')), 'Plain Note'],
      ['STRING cut at NUL', property(X11_ATOM.string, 8, Buffer.from('ab\0cd')), 'ab'],
      ['STRING starting with NUL', property(X11_ATOM.string, 8, Buffer.from('\0x')), ''],
      ['UTF8_STRING', property(UTF8_STRING, 8, Buffer.from('Fenêtre ✓')), 'Fenêtre ✓'],
      ['backslash pair', property(UTF8_STRING, 8, Buffer.from('a\\"b')), 'a\\"b'],
      // read as it is (the tools' printed line could not be read: they named no window)
      ['quote', property(UTF8_STRING, 8, Buffer.from('say "hi"')), 'say "hi"'],
      ['trailing lone backslash', property(X11_ATOM.string, 8, Buffer.from('a\\')), 'a\\'],
      ['invalid UTF-8', property(UTF8_STRING, 8, Buffer.from([0x61, 0xff])), undefined],
      ['COMPOUND_TEXT', property(COMPOUND_TEXT, 8, Buffer.from('x')), undefined],
    ];
    expect(cases.map(([name, p]) => [name, printedName(p, UTF8_STRING)])).toEqual(
      cases.map(([name, , expected]) => [name, expected]),
    );
  });

  it('WM_CLASS: instance and class up to their NULs, none without a NUL or as another type', () => {
    expect(
      printedClass(property(X11_ATOM.string, 8, Buffer.from('gtk-form.py\0Gtk-form.py\0'))),
    ).toEqual(['gtk-form.py', 'Gtk-form.py']);
    expect(printedClass(property(X11_ATOM.string, 8, Buffer.from('gtk-form.py\0\0')))).toEqual([
      'gtk-form.py',
      '',
    ]);
    expect(printedClass(property(X11_ATOM.string, 8, Buffer.from('only')))).toBeNull();
    expect(printedClass(property(X11_ATOM.any, 0, Buffer.alloc(0)))).toBeNull();
    expect(printedClass(property(UTF8_STRING, 8, Buffer.from('a\0b\0')))).toBeNull();
  });

  it('_NET_WM_PID: CARDINAL unsigned, INTEGER signed, other types none', () => {
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n >>> 0, 0);
      return b;
    };
    expect(propertyNumber(property(X11_ATOM.cardinal, 32, u32(13553)))).toBe(13553);
    expect(propertyNumber(property(X11_ATOM.cardinal, 32, u32(0xfffffffe)))).toBe(0xfffffffe);
    expect(propertyNumber(property(X11_ATOM.integer, 32, u32(-2)))).toBe(-2);
    expect(propertyNumber(property(X11_ATOM.cardinal, 16, Buffer.from([0x34, 0x12])))).toBe(0x1234);
    expect(propertyNumber(property(X11_ATOM.string, 8, Buffer.from('42')))).toBeNull();
    expect(propertyNumber(property(X11_ATOM.any, 0, Buffer.alloc(0)))).toBeNull();
  });

  it("xwininfo's UTF-8 check", () => {
    const vectors: [number[], boolean][] = [
      [[0x41, 0x42], true],
      [[0xc3, 0xa9], true], // é
      [[0xe2, 0x9c, 0x93], true], // ✓
      [[0xf0, 0x9f, 0x98, 0x80], true], // 😀
      [[0xc0, 0x80], false], // overlong NUL
      [[0x80], false], // continuation without a lead
      [[0xc3, 0x41], false], // lead cut by an ASCII byte
      [[0xf8, 0x88, 0x80, 0x80], false], // five-byte lead
      [[0xf5, 0x80, 0x80, 0x80], false], // above U+10FFFF
      [[0xe2, 0x9c], true], // cut at the end: xwininfo lets it through
    ];
    expect(vectors.map(([bytes]) => isXwininfoUtf8(Buffer.from(bytes)))).toEqual(
      vectors.map(([, ok]) => ok),
    );
  });
});
