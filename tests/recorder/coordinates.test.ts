import { describe, expect, it } from 'vitest';
import type { AxElementRecord, AxNode, AxSnapshot } from '../../src/axtree/model';
import {
  clipToDisplay,
  coordinateSpace,
  isOnDisplay,
  mapElementRecord,
  mapInputEvents,
  mapSnapshot,
  recordedDisplayOf,
  toRecordingBounds,
} from '../../src/recorder/coordinates';
import type { DisplayInfo } from '../../src/recorder/display-info';
import type { InputEvent } from '../../src/recorder/input/normalize-input-event';

function info(over: Partial<DisplayInfo> = {}): DisplayInfo {
  return {
    display: ':99',
    width: 1920,
    height: 1080,
    scale: 1,
    monitors: [],
    vendor: null,
    ...over,
  };
}

function event(kind: InputEvent['kind'], x: number | null, y: number | null): InputEvent {
  return {
    tMs: 10,
    kind,
    x,
    y,
    button: kind === 'down' ? 'left' : null,
    keycode: null,
    key: null,
    char: null,
    keyRaw: null,
    modifiers: 0,
    dx: kind === 'wheel' ? 0 : null,
    dy: kind === 'wheel' ? -1 : null,
    flags: 0,
  };
}

function node(role: string, x: number, y: number, w: number, h: number, children: AxNode[] = []) {
  return { role, name: role, states: [], bounds: { x, y, width: w, height: h }, children };
}

describe('coordinate contract', () => {
  it('keeps Linux exactly as it was: the whole X screen at 0,0 in pixels hands on the same objects', () => {
    const space = coordinateSpace(info());
    expect(recordedDisplayOf(info())).toEqual({ x: 0, y: 0, width: 1920, height: 1080, scale: 1 });
    const batch = [event('move', 5, 6)];
    expect(mapInputEvents(space, batch)).toBe(batch);
    const record: AxElementRecord = {
      tMs: 1,
      x: 5,
      y: 6,
      path: [node('push button', 0, 0, 10, 10)],
      app: 'a',
      isSecure: false,
    };
    expect(mapElementRecord(space, record)).toBe(record);
  });

  it('subtracts a negative origin: a monitor at -1920,0 left of the primary one', () => {
    const space = coordinateSpace(info({ origin: { x: -1920, y: 0 } }));
    const out = mapInputEvents(space, [
      event('move', -1900, 40),
      event('down', -1, 1079),
      event('keydown', null, null),
      event('wheel', -960, 540),
    ]);
    expect(out.map((e) => [e.x, e.y])).toEqual([
      [20, 40],
      [1919, 1079],
      [null, null],
      [960, 540],
    ]);
    // wheel deltas are not positions
    expect(out[3]!.dy).toBe(-1);
    // a pointer on the primary monitor (x ≥ 0) lies right of the recorded display
    const [onPrimary] = mapInputEvents(space, [event('move', 100, 100)]);
    expect(onPrimary!.x).toBe(2020);
    expect(isOnDisplay(space.display, onPrimary!.x!, onPrimary!.y!)).toBe(false);
  });

  it('subtracts a negative y origin too (a monitor above the primary one)', () => {
    const space = coordinateSpace(info({ origin: { x: 200, y: -1440 }, height: 1440 }));
    const [e] = mapInputEvents(space, [event('down', 210, -1)]);
    expect([e!.x, e!.y]).toEqual([10, 1439]);
  });

  it('turns points into pixels on a 2x display before subtracting the origin', () => {
    // a Retina display right of a 1440-pt-wide primary: origin 2880 px, 2560x1600 px, scale 2
    const space = coordinateSpace(
      info({ origin: { x: 2880, y: 0 }, width: 2560, height: 1600, scale: 2 }),
      'points',
    );
    const [e] = mapInputEvents(space, [event('down', 1540.5, 100.25)]);
    expect([e!.x, e!.y]).toEqual([201, 200.5]);
  });

  it('maps every bound of an element path and a snapshot tree, not clipping what lies off the display', () => {
    const space = coordinateSpace(info({ origin: { x: -1920, y: 0 } }));
    const record: AxElementRecord = {
      tMs: 1,
      x: -1800,
      y: 300,
      // the window hangs 100 px over the left edge of the recorded monitor
      path: [node('push button', -1810, 290, 40, 20), node('frame', -2020, 0, 800, 600)],
      app: 'gedit',
      isSecure: false,
    };
    const mapped = mapElementRecord(space, record);
    expect([mapped.x, mapped.y]).toEqual([120, 300]);
    expect(mapped.path.map((n) => n.bounds)).toEqual([
      { x: 110, y: 290, width: 40, height: 20 },
      { x: -100, y: 0, width: 800, height: 600 },
    ]);
    // the input record is left alone
    expect(record.path[1]!.bounds!.x).toBe(-2020);
    const snap: AxSnapshot = {
      tMs: 2,
      durationMs: 1,
      root: node('frame', -2020, 0, 800, 600, [
        node('panel', -2000, 10, 100, 100, [node('push button', -1990, 20, 10, 10)]),
      ]),
      nodeCount: 3,
      truncated: false,
    };
    const s = mapSnapshot(space, snap);
    expect(s.root!.bounds).toEqual({ x: -100, y: 0, width: 800, height: 600 });
    expect(s.root!.children[0]!.children[0]!.bounds).toEqual({
      x: -70,
      y: 20,
      width: 10,
      height: 10,
    });
    expect(s.nodeCount).toBe(3);
    // the visible part of the window, and nothing for a rectangle wholly off the display
    expect(clipToDisplay(space.display, s.root!.bounds!)).toEqual({
      x: 0,
      y: 0,
      width: 700,
      height: 600,
    });
    expect(clipToDisplay(space.display, s.root!.children[0]!.children[0]!.bounds!)).toBeNull();
    expect(
      clipToDisplay(
        space.display,
        toRecordingBounds(space.display, { x: -10, y: 1070, width: 30, height: 30 }),
      ),
    ).toEqual({ x: 1910, y: 1070, width: 10, height: 10 });
  });

  it('keeps a node without bounds and a snapshot without a root', () => {
    const space = coordinateSpace(info({ origin: { x: -1920, y: 0 } }));
    const bare = { role: 'filler', name: '', states: [], bounds: null, children: [] };
    const snap: AxSnapshot = { tMs: 1, durationMs: 0, root: bare, nodeCount: 1, truncated: false };
    expect(mapSnapshot(space, snap).root!.bounds).toBeNull();
    const empty: AxSnapshot = { tMs: 1, durationMs: 0, root: null, nodeCount: 0, truncated: false };
    expect(mapSnapshot(space, empty)).toBe(empty);
  });
});
