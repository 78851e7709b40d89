// `Scroll …` descriptions → moveTo/scroll/hscroll calls (docs/pyautogui-code.md §3.3, §3.6).
import type { ActionCall } from '../../shared/domain/action';
import { invalidCode } from '../../shared/python/code-error';
import { scrollAnchorCall } from './pointer-calls';
import { pyIntFromText } from './py-number-text';
import { pyNumberFromJson } from '../../shared/python/py-value';
import type { ScreenSize } from './screen-size';

/** One scroll tick of a complete row's `trace`. */
export type ScrollTick = {
  /** Pointer x in screen pixels. */
  x: number;
  /** Pointer y in screen pixels. */
  y: number;
  /** Horizontal notches (> 0 = right). */
  dx: number;
  /** Vertical notches (> 0 = up). */
  dy: number;
};

type Cardinal = { up: number; down: number; left: number; right: number };

/** Arrow icon → the cardinal counters it increments (exact token match, as the reference). */
const ARROWS: ReadonlyMap<string, readonly (keyof Cardinal)[]> = new Map([
  ['\u2B07\uFE0F', ['down']],
  ['\u2B06\uFE0F', ['up']],
  ['\u2B05\uFE0F', ['left']],
  ['\u27A1\uFE0F', ['right']],
  ['\u2199', ['down', 'left']],
  ['\u2198', ['down', 'right']],
  ['\u2196', ['up', 'left']],
  ['\u2197\uFE0F', ['up', 'right']],
] as const);

function abort(description: string, what: string): never {
  throw invalidCode(
    `Cannot convert scroll description ${JSON.stringify(description)}: ${what} ` +
      '(the OpenCUA converter aborts)',
    { description },
  );
}

// `parse_scroll_to_cardinal`: sums the `<arrow>×<n>` tokens per direction; unknown arrows ignored.
export function scrollCardinal(description: string): Cardinal {
  const counts: Cardinal = { up: 0, down: 0, left: 0, right: 0 };
  const tokens = description
    .replaceAll('Scroll ', '')
    .split(/\s+/)
    .filter((token) => token !== '');
  for (const token of tokens) {
    if (!token.includes('×')) {
      continue;
    }
    const parts = token.split('×');
    const count = parts.length === 2 ? pyIntFromText(parts[1] ?? '') : null;
    if (count === null) {
      return abort(description, `token ${JSON.stringify(token)} is not "<arrow>×<integer>"`);
    }
    for (const direction of ARROWS.get(parts[0] ?? '') ?? []) {
      counts[direction] += count;
    }
  }
  return counts;
}

function arrowScrollCalls(description: string): ActionCall[] {
  const { up, down, left, right } = scrollCardinal(description);
  if (up === 0 && down === 0 && left === 0 && right === 0) {
    return abort(description, 'no known scroll arrow');
  }
  const calls: ActionCall[] = [];
  // The reference's thresholds: a lone `➡️×1` produces nothing.
  if (up !== 0 || (down !== 0 && Math.abs(up - down) >= 1)) {
    calls.push({ name: 'scroll', args: { clicks: pyNumberFromJson(up - down) } });
  }
  if (left !== 0 || (right !== 0 && Math.abs(right - left) >= 2)) {
    calls.push({ name: 'hscroll', args: { clicks: pyNumberFromJson(right - left) } });
  }
  return calls;
}

function traceScrollCalls(trace: readonly [ScrollTick, ...ScrollTick[]], screen: ScreenSize) {
  const first = trace[0];
  const calls: ActionCall[] = [
    scrollAnchorCall({ x: pyNumberFromJson(first.x), y: pyNumberFromJson(first.y) }, screen),
  ];
  const sumDx = trace.reduce((sum, tick) => sum + tick.dx, 0);
  const sumDy = trace.reduce((sum, tick) => sum + tick.dy, 0);
  if (sumDx !== 0) {
    calls.push({ name: 'hscroll', args: { clicks: pyNumberFromJson(sumDx) } });
  }
  if (sumDy !== 0) {
    calls.push({ name: 'scroll', args: { clicks: pyNumberFromJson(sumDy) } });
  }
  return calls;
}

// A scroll step: from the trace when there is one (raw notch sums), else from the arrow tokens.
export function scrollCalls(
  description: string,
  screen: ScreenSize,
  trace: readonly ScrollTick[] | null | undefined,
): ActionCall[] {
  const [first, ...rest] = trace ?? [];
  // An empty trace is treated as no trace (assumption; the reference only sees non-empty ones).
  return first === undefined
    ? arrowScrollCalls(description)
    : traceScrollCalls([first, ...rest], screen);
}
