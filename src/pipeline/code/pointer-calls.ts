// Click-family and drag descriptions → normalised calls (docs/pyautogui-code.md §3.3).
import type { ActionCall, ActionName } from '../../shared/domain/action';
import { invalidCode } from '../../shared/python/code-error';
import { pyFloatFromText } from './py-number-text';
import type { PyNumber } from '../../shared/python/py-value';
import { pyDivide, pyFloat, pyInt, pyMax, pyMin } from '../../shared/python/py-value';
import type { ScreenSize } from './screen-size';

/** Call names produced from a single `(x, y)` coordinate. */
export type ClickName = Extract<
  ActionName,
  'click' | 'doubleClick' | 'tripleClick' | 'rightClick' | 'middleClick'
>;

type Group = { inner: string; end: number };

/** The text between the first `(` at or after `from` and the next `)`. */
function parenthesised(text: string, from: number): Group | null {
  const open = text.indexOf('(', from);
  if (open === -1) {
    return null;
  }
  const close = text.indexOf(')', open + 1);
  if (close === -1) {
    return null;
  }
  return { inner: text.slice(open + 1, close), end: close + 1 };
}

/** `"1328, 745"` → `[1328, 745]` (Python floats), null when it is not exactly two floats. */
function coordinatePair(group: Group | null): [number, number] | null {
  if (group === null) {
    return null;
  }
  const parts = group.inner.split(',');
  if (parts.length !== 2) {
    return null;
  }
  const x = pyFloatFromText(parts[0] ?? '');
  const y = pyFloatFromText(parts[1] ?? '');
  return x === null || y === null ? null : [x, y];
}

function unparseable(description: string, what: string): never {
  throw invalidCode(
    `Cannot convert description ${JSON.stringify(description)}: ${what} (the OpenCUA converter aborts)`,
    { description },
  );
}

/** `max(0, min(v, side)) / side`: clamped in pixels first, so always a float. */
function clampPixelsThenNormalise(value: number, side: number): PyNumber {
  return pyDivide(pyMax(pyInt(0), pyMin(pyFloat(value), pyInt(side))), pyInt(side));
}

/** `max(0, min(v / side, 1))`: Python returns the literal int 0 or 1 when clamping (or on 0.0). */
function normaliseThenClamp(value: PyNumber, side: number): PyNumber {
  return pyMax(pyInt(0), pyMin(pyDivide(value, pyInt(side)), pyInt(1)));
}

// `Single left Click (x, y)` and friends → one call with normalised float `x`, `y`.
export function clickCalls(name: ClickName, description: string, screen: ScreenSize): ActionCall[] {
  const pair = coordinatePair(parenthesised(description, 0));
  if (pair === null) {
    return unparseable(description, 'no "(x, y)" coordinate');
  }
  const x = clampPixelsThenNormalise(pair[0], screen.width);
  const y = clampPixelsThenNormalise(pair[1], screen.height);
  return [{ name, args: { x, y } }];
}

// `Drag from (x1, y1) to (x2, y2)` → moveTo(from) + dragTo(to, button='left').
export function dragCalls(description: string, screen: ScreenSize): ActionCall[] {
  const fromGroup = parenthesised(description, 0);
  const from = coordinatePair(fromGroup);
  const to = fromGroup === null ? null : coordinatePair(parenthesised(description, fromGroup.end));
  if (from === null || to === null) {
    return unparseable(description, 'no "(x1, y1) to (x2, y2)" coordinates');
  }
  const point = ([x, y]: [number, number]): { x: PyNumber; y: PyNumber } => ({
    x: normaliseThenClamp(pyFloat(x), screen.width),
    y: normaliseThenClamp(pyFloat(y), screen.height),
  });
  return [
    { name: 'moveTo', args: point(from) },
    { name: 'dragTo', args: { ...point(to), button: 'left' } },
  ];
}

// The moveTo of a scroll with trace: first tick clamped in pixels, then normalised and clamped.
export function scrollAnchorCall(
  tick: { x: PyNumber; y: PyNumber },
  screen: ScreenSize,
): ActionCall {
  const clampX = pyMax(pyInt(0), pyMin(tick.x, pyInt(screen.width)));
  const clampY = pyMax(pyInt(0), pyMin(tick.y, pyInt(screen.height)));
  return {
    name: 'moveTo',
    args: {
      x: normaliseThenClamp(clampX, screen.width),
      y: normaliseThenClamp(clampY, screen.height),
    },
  };
}
