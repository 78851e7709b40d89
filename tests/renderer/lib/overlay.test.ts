import { describe, expect, it } from 'vitest';
import {
  callsOverlay,
  clientToNormalised,
  polylinePath,
  screenToImageScale,
  scrollArrow,
  stepOverlay,
  toImagePx,
} from '../../../src/renderer/lib/overlay';
import { makeStep } from '../helpers/dto';

// the fixture: 1366×768 screen, 1276×718 video (the keyframe's size)
const SCREEN = { width: 1366, height: 768 };
const IMAGE = { width: 1276, height: 718 };

describe('stepOverlay', () => {
  it('puts the click at the recorded screen pixel, scaled to the keyframe', () => {
    const step = makeStep('a', 0, {
      calls: [{ name: 'click', args: { x: { float: 0.9722 }, y: { float: 0.9701 } } }],
      coordinate: { x: 1328, y: 745 },
    });
    const model = stepOverlay(step, SCREEN);
    expect(model.click?.variant).toBe('click');
    const px = toImagePx(model.click!, IMAGE);
    const { sx, sy } = screenToImageScale(SCREEN, IMAGE);
    expect(px.x).toBeCloseTo(1328 * sx, 6);
    expect(px.y).toBeCloseTo(745 * sy, 6);
    expect(px.x).toBeCloseTo(1240.5, 1);
  });

  it('draws a drag from its recorded path (screen px) over the calls', () => {
    const step = makeStep('d', 0, {
      kind: 'dragTo',
      calls: [
        { name: 'moveTo', args: { x: { float: 0.4546 }, y: { float: 0.2682 } } },
        { name: 'dragTo', args: { x: { float: 0.4107 }, y: { float: 0.2773 }, button: 'left' } },
      ],
      coordinate: { x: 621, y: 206 },
      overlay: {
        dragPath: [
          [621, 206],
          [590, 210],
          [561, 213],
        ],
      },
    });
    const model = stepOverlay(step, SCREEN);
    expect(model.drag?.points).toHaveLength(3);
    expect(model.drag?.points[2]).toEqual({ x: 561 / 1366, y: 213 / 768 });
    expect(model.click).toBeNull();
    expect(polylinePath(model.drag!.points.slice(0, 2), IMAGE)).toBe(
      `M${Math.round((621 / 1366) * 1276 * 10) / 10} ${Math.round((206 / 768) * 718 * 10) / 10} L${Math.round((590 / 1366) * 1276 * 10) / 10} ${Math.round((210 / 768) * 718 * 10) / 10}`,
    );
  });

  it('falls back to the calls for drags without a path', () => {
    const model = callsOverlay([
      { name: 'moveTo', args: { x: { float: 0.1 }, y: { float: 0.2 } } },
      { name: 'dragTo', args: { x: { float: 0.3 }, y: { float: 0.4 }, button: 'left' } },
    ]);
    expect(model.drag?.points).toEqual([
      { x: 0.1, y: 0.2 },
      { x: 0.3, y: 0.4 },
    ]);
  });

  it('reads scrolls, typed text and keys', () => {
    expect(
      callsOverlay([
        { name: 'moveTo', args: { x: { float: 0.396 }, y: { float: 0.7839 } } },
        { name: 'hscroll', args: { clicks: { int: 2 } } },
        { name: 'scroll', args: { clicks: { int: -3 } } },
      ]),
    ).toMatchObject({ pointer: { x: 0.396, y: 0.7839 }, scroll: { dx: 2, dy: -3 } });
    expect(
      callsOverlay([
        { name: 'write', args: { message: 'SPOTIFY' } },
        { name: 'press', args: { keys: ['enter'] } },
        { name: 'hotkey', args: { keys: ['ctrl', 'c'] } },
      ]),
    ).toMatchObject({ text: 'SPOTIFY', keys: ['enter', 'ctrl+c'] });
    // positional forms too
    expect(callsOverlay([{ name: 'write', args: ['hi'] }]).text).toBe('hi');
    // the step's overlay data wins
    const step = makeStep('t', 0, {
      calls: [{ name: 'write', args: { message: 'ab' } }],
      coordinate: null,
      overlay: { text: 'abc', keys: ['ctrl+a'] },
    });
    expect(stepOverlay(step, SCREEN)).toMatchObject({ text: 'abc', keys: ['ctrl+a'] });
  });
});

describe('scrollArrow', () => {
  it('points up for a positive (upward) scroll and down for a negative one', () => {
    const up = scrollArrow({ dx: 0, dy: 3 }, { x: 0.5, y: 0.5 }, IMAGE)!;
    const down = scrollArrow({ dx: 0, dy: -3 }, { x: 0.5, y: 0.5 }, IMAGE)!;
    expect(up.to.y).toBeLessThan(up.from.y);
    expect(down.to.y).toBeGreaterThan(down.from.y);
    expect(up.to.x).toBeCloseTo(up.from.x, 6);
    expect(up.label).toBe('↑3');
    expect(down.label).toBe('↓3');
  });

  it('points right for a positive horizontal scroll and stays inside the image', () => {
    const right = scrollArrow({ dx: 40, dy: 0 }, { x: 0.99, y: 0.5 }, IMAGE)!;
    expect(right.to.x).toBeLessThanOrEqual(IMAGE.width);
    expect(right.to.x).toBeGreaterThan(right.from.x);
    expect(right.label).toBe('→40');
  });

  it('is null for a zero scroll', () => {
    expect(scrollArrow({ dx: 0, dy: 0 }, null, IMAGE)).toBeNull();
  });
});

describe('clientToNormalised', () => {
  it.each([
    [100, 50, { x: 0, y: 0 }],
    [738, 409, { x: 0.5, y: 0.5 }],
    [2000, -5, { x: 1, y: 0 }], // clamped
    [300, 130, { x: 0.1567, y: 0.1114 }], // rounded to 4 decimals
  ])('client (%i, %i)', (cx, cy, expected) => {
    expect(clientToNormalised(cx, cy, { left: 100, top: 50, width: 1276, height: 718 })).toEqual(
      expected,
    );
  });
});
