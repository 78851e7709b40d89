import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/shared/errors';
import {
  absoluteToRelative,
  pyRound,
  relativeToAbsolute,
  smartResize,
} from '../../../src/pipeline/eval/smart-resize';

// docs/pyautogui-code.md §7 vectors (verified), written w×h → w̄×h̄ like the table.
const RESIZE: readonly (readonly [w: number, h: number, wBar: number, hBar: number])[] = [
  [1276, 718, 1288, 728],
  [1366, 768, 1372, 756],
  [1920, 1080, 1932, 1092],
  [2560, 1600, 2548, 1596],
  [1212, 758, 1204, 756],
  [3840, 2160, 3836, 2156],
  [1302, 700, 1288, 700], // 46.5 rounds to 46 (half to even)
  [5120, 2880, 4760, 2688],
  [7680, 4320, 4760, 2688],
  [1468, 956, 1456, 952],
  [1280, 720, 1288, 728],
  [28, 28, 56, 56],
  [40, 40, 56, 56],
  [56, 56, 56, 56],
  [100, 30, 112, 28],
];

describe('smartResize', () => {
  it.each(RESIZE)('%i×%i → %i×%i', (w, h, wBar, hBar) => {
    expect(smartResize(h, w)).toEqual({ height: hBar, width: wBar });
  });

  it.each([
    [20, 100],
    [100, 20],
  ])('rejects height %i, width %i (a side below 28)', (h, w) => {
    let caught: unknown;
    try {
      smartResize(h, w);
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'INVALID_PAYLOAD')).toBe(true);
  });
});

describe('pyRound', () => {
  it('rounds halves to even like Python', () => {
    expect([0.5, 1.5, 2.5, 46.5, 45.5, 2.4, 2.6].map(pyRound)).toEqual([0, 2, 2, 46, 46, 2, 3]);
  });
});

describe('relativeToAbsolute', () => {
  it('truncates x_rel·w̄ and y_rel·h̄', () => {
    expect(relativeToAbsolute(0.5, 0.5, { width: 1288, height: 728 })).toEqual({ x: 644, y: 364 });
    expect(relativeToAbsolute(0.9999, 0.0008, { width: 1288, height: 728 })).toEqual({
      x: 1287,
      y: 0,
    });
    expect(relativeToAbsolute(1, 1, { width: 1288, height: 728 })).toEqual({ x: 1288, y: 728 });
  });
});

describe('absoluteToRelative', () => {
  it.each([
    [0, 1288, '0'],
    [1288, 1288, '1'],
    [644, 1288, '0.5'],
    [1, 1288, '0.0008'],
    [40, 1280, '0.0312'], // 0.03125 is an exact tie: Python rounds to even, toFixed would not
  ] as const)('%i / %i → %s', (v, side, expected) => {
    expect(absoluteToRelative(v, side)).toBe(expected);
  });

  it('keeps toFixed rounding away from exact ties and round-trips relativeToAbsolute', () => {
    expect(absoluteToRelative(120, 1280)).toBe('0.0938'); // 0.09375 tie → even 938
    expect(absoluteToRelative(1287, 1288)).toBe('0.9992');
    expect(absoluteToRelative(2576, 1288)).toBe('2');
  });

  it('rejects a non-positive side', () => {
    expect(() => absoluteToRelative(1, 0)).toThrow();
  });
});
