// Pure parts of the X RECORD hook: DISPLAY parsing, Xauthority entries and cookie choice, the
// multi-click resource, the read pacing, and the translator's state rules that the live parity test
// (x11-hook-parity.test.ts) cannot reach on Xvfb: 32-bit time wrap, a Num Lock on another
// modifier bit, modifiers held before capture, unknown keycodes and buttons.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FLOOD_EVENTS,
  FLOOD_HOLD_MS,
  READ_PACE_MS,
  ReadPacer,
} from '../../../src/recorder/input/x11/read-pacer';
import { multiClickFromResources } from '../../../src/recorder/input/x11/record-hook';
import { RecordTranslator, X_EVENT } from '../../../src/recorder/input/x11/record-translator';
import {
  findCookie,
  parseDisplay,
  parseXauthority,
} from '../../../src/recorder/input/x11/x11-connection';

function xauthEntry(family: number, address: string, number: string, data: Buffer): Buffer {
  const field = (value: Buffer): Buffer => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(value.length, 0);
    return Buffer.concat([length, value]);
  };
  const head = Buffer.alloc(2);
  head.writeUInt16BE(family, 0);
  return Buffer.concat([
    head,
    field(Buffer.from(address)),
    field(Buffer.from(number)),
    field(Buffer.from('MIT-MAGIC-COOKIE-1')),
    field(data),
  ]);
}

function xEvent(type: number, detail: number, time: number, x = 0, y = 0, state = 0): Buffer {
  const b = Buffer.alloc(32);
  b[0] = type;
  b[1] = detail;
  b.writeUInt32LE(time >>> 0, 4);
  b.writeInt16LE(x, 20);
  b.writeInt16LE(y, 22);
  b.writeUInt16LE(state, 28);
  return b;
}

describe('parseDisplay', () => {
  it('maps local displays to their socket and remote ones to TCP', () => {
    expect(parseDisplay(':99')).toMatchObject({ socketPath: '/tmp/.X11-unix/X99', number: 99 });
    expect(parseDisplay('unix:3.0')).toMatchObject({ socketPath: '/tmp/.X11-unix/X3', number: 3 });
    expect(parseDisplay('example.org:1')).toEqual({
      socketPath: null,
      host: 'example.org',
      number: 1,
    });
  });

  it('refuses what is not a display', () => {
    expect(() => parseDisplay('')).toThrow(/not of the form/);
    expect(() => parseDisplay('wayland-0')).toThrow(/not of the form/);
  });
});

describe('Xauthority', () => {
  it('parses entries and picks the cookie of this host and display', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cua-xauth-'));
    const file = path.join(dir, 'auth');
    const mine = Buffer.alloc(16, 7);
    fs.writeFileSync(
      file,
      Buffer.concat([
        xauthEntry(256, os.hostname(), '5', Buffer.alloc(16, 1)),
        xauthEntry(256, 'another-host', '7', Buffer.alloc(16, 2)),
        xauthEntry(256, os.hostname(), '7', mine),
      ]),
    );
    expect(parseXauthority(fs.readFileSync(file))).toHaveLength(3);
    expect(findCookie(parseDisplay(':7'), { XAUTHORITY: file })?.data).toEqual(mine);
    expect(findCookie(parseDisplay(':8'), { XAUTHORITY: file })).toBeNull();
    expect(findCookie(parseDisplay(':7'), { XAUTHORITY: path.join(dir, 'missing') })).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('stops at a truncated entry instead of reading past it', () => {
    const whole = xauthEntry(256, 'h', '1', Buffer.alloc(16));
    expect(parseXauthority(Buffer.concat([whole, whole.subarray(0, 9)]))).toHaveLength(1);
  });
});

describe('multiClickFromResources', () => {
  it('reads *multiClickTime as Xt does and defaults to 200 ms', () => {
    expect(multiClickFromResources('Xft.dpi:\t96\n*multiClickTime:\t400\n')).toBe(400);
    expect(multiClickFromResources('*.multiClickTime: 350')).toBe(350);
    expect(multiClickFromResources('Xft.dpi:\t96\n')).toBe(200);
  });
});

describe('RecordTranslator', () => {
  const options = { pointerMap: [1, 2, 3, 4, 5, 6, 7, 8, 9], numLockMask: 0x10, multiClickMs: 200 };

  it('counts clicks across the 32-bit wrap of X time', () => {
    const t = new RecordTranslator(options);
    const near = 0xffffffa0;
    t.translate(xEvent(X_EVENT.buttonPress, 1, near));
    t.translate(xEvent(X_EVENT.buttonRelease, 1, near + 10));
    const second = t.translate(xEvent(X_EVENT.buttonPress, 1, near + 150)); // wraps to 54
    expect(second).toMatchObject({ type: 7, button: 1, clicks: 2 });
    const late = t.translate(xEvent(X_EVENT.buttonPress, 1, near + 900));
    expect(late).toMatchObject({ clicks: 1 });
  });

  it('takes Num Lock from the modifier bit the server names', () => {
    const t = new RecordTranslator({ ...options, numLockMask: 0x20 });
    // keypad 7 is keycode 79; Mod2 (0x10) set but Num Lock lives on Mod3 (0x20) here
    expect(t.translate(xEvent(X_EVENT.keyPress, 79, 1, 0, 0, 0x10))).toMatchObject({
      keycode: 0xee47,
    });
    expect(t.translate(xEvent(X_EVENT.keyPress, 79, 2, 0, 0, 0x20))).toMatchObject({
      keycode: 0x0047,
    });
  });

  it('knows modifiers held before capture and clears them on release', () => {
    const t = new RecordTranslator(options);
    const keymap = new Uint8Array(32);
    keymap[37 >> 3]! |= 1 << (37 & 7); // Control_L
    t.seedHeldKeys(keymap);
    expect(t.translate(xEvent(X_EVENT.keyPress, 38, 1))).toMatchObject({ ctrlKey: true });
    expect(t.translate(xEvent(X_EVENT.keyRelease, 37, 2))).toMatchObject({
      keycode: 0x001d,
      ctrlKey: false,
    });
  });

  it('reports unknown keys as 0 and buttons past 9 as 0, and drops wheel releases', () => {
    const t = new RecordTranslator(options);
    expect(t.translate(xEvent(X_EVENT.keyPress, 254, 1))).toMatchObject({ keycode: 0 });
    expect(t.translate(xEvent(X_EVENT.buttonPress, 12, 2))).toMatchObject({ button: 0 });
    expect(t.translate(xEvent(X_EVENT.buttonRelease, 4, 3))).toBeNull();
    expect(t.translate(xEvent(X_EVENT.buttonPress, 7, 4, -5, 9))).toMatchObject({
      type: 11,
      x: -5,
      y: 9,
      direction: 4,
      rotation: 1,
      amount: 3,
    });
    expect(t.translate(xEvent(33, 0, 5))).toBeNull();
  });
});

describe('ReadPacer', () => {
  // reads at the given times with their event counts; the waits the pacer asks for
  const waits = (pacer: ReadPacer, reads: [number, number][]): number[] =>
    reads.map(([at, events]) => pacer.afterRead(at, events));
  // two reads 2 ms apart: input is fast, the second read is followed by a pause
  const pacingPacer = (): ReadPacer => {
    const pacer = new ReadPacer();
    expect(
      waits(pacer, [
        [0, 1],
        [2, 1],
      ]),
    ).toEqual([0, READ_PACE_MS]);
    return pacer;
  };

  it('reads slow input as it comes', () => {
    // 50 Hz: one event every 20 ms, never closer than the pace
    const reads = Array.from({ length: 10 }, (_, i): [number, number] => [i * 20, 1]);
    expect(waits(new ReadPacer(), reads)).toEqual(Array(10).fill(0));
  });

  it('reads fast input once per pace interval, and as it comes again once it slows down', () => {
    const pacer = pacingPacer();
    // every read after the pause brings several events
    expect(
      waits(pacer, [
        [22, 8],
        [42, 8],
        [62, 7],
      ]),
    ).toEqual(Array(3).fill(READ_PACE_MS));
    // a pause that gathered one event: slow again
    expect(pacer.afterRead(82, 1)).toBe(0);
    expect(pacer.afterRead(150, 1)).toBe(0);
  });

  it('reads a flood as it comes, for a while', () => {
    const pacer = pacingPacer();
    // a read that brings more than a flood's worth: no more waiting, even for fast small reads
    expect(pacer.afterRead(22, FLOOD_EVENTS + 1)).toBe(0);
    expect(
      waits(pacer, [
        [23, 5],
        [24, 5],
        [FLOOD_HOLD_MS, 5],
      ]),
    ).toEqual([0, 0, 0]);
    // the hold is over: fast input is paced again
    expect(
      waits(pacer, [
        [FLOOD_HOLD_MS + 30, 2],
        [FLOOD_HOLD_MS + 31, 2],
      ]),
    ).toEqual([0, READ_PACE_MS]);
  });

  it('does not pace reads without events', () => {
    expect(
      waits(new ReadPacer(), [
        [0, 0],
        [1, 0],
        [2, 0],
      ]),
    ).toEqual([0, 0, 0]);
  });
});
