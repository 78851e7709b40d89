// Calls → the AgentNet description of an edited step (pure). The AgentNet raw exporter writes a
// step's row from its description, so an edited step needs one whose OpenCUA conversion gives
// back exactly the step's calls (README fact 7); when no such description exists it is '' and
// the exporter skips the step with a warning (standardized and JSONL exports keep it).
// docs/agentnet-raw-format.md §12; docs/pyautogui-code.md §3
import type { ActionCall, PyValue } from '../../shared/domain';
import {
  callsToCode,
  descriptionToCalls,
  pyReprFloat,
  stage1Description,
} from '../../pipeline/code';

/** A step's AgentNet form. */
export type DescribedCalls = {
  /** AgentNet description; '' when the calls have no AgentNet form. */
  description: string;
  /** Complete-row `action` word (`click`, `drag`, `scroll`, `type`, `press`), '' when none. */
  agentnetAction: string;
  /** Press point in screen px (pointer steps), else null. */
  coordinate: { x: number; y: number } | null;
  /** Why there is no description (when `description` is ''). */
  reason: string | null;
};

/** Screen size in px (the space of AgentNet coordinates). */
export type ScreenSize = { width: number; height: number };

const KEYBOARD_ICON = '\u2328\uFE0F';
const MODIFIER_TOKENS: ReadonlySet<string> = new Set(['ctrl', 'alt', 'shift', 'cmd', 'win']);
const CLICK_WORDS: Partial<Record<ActionCall['name'], string>> = {
  click: 'Single left Click',
  doubleClick: 'Double left Click',
  tripleClick: 'Triple left Click',
  rightClick: 'Single right Click',
  middleClick: 'Single middle Click',
};

function kwargs(call: ActionCall): Record<string, PyValue> | null {
  return Array.isArray(call.args) ? null : call.args;
}

function num(v: PyValue | undefined): number | null {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if ('float' in v) {
      return v.float;
    }
    if ('int' in v) {
      return v.int;
    }
  }
  return null;
}

/** The normalised x/y of a pointer call, or null. */
export function callPoint(call: ActionCall): { x: number; y: number } | null {
  const args = kwargs(call);
  const x = num(args?.x);
  const y = num(args?.y);
  return x === null || y === null ? null : { x, y };
}

/** A normalised point in screen px (integral values kept as ints). */
export function toPixels(
  point: { x: number; y: number },
  screen: ScreenSize,
): { x: number; y: number } {
  const px = (v: number, side: number) => {
    const p = v * side;
    return Math.abs(p - Math.round(p)) < 1e-6 ? Math.round(p) : p;
  };
  return { x: px(point.x, screen.width), y: px(point.y, screen.height) };
}

function pyNumberText(value: number): string {
  return Number.isInteger(value) ? String(value) : pyReprFloat(value);
}

function stringKeys(call: ActionCall): string[] | null {
  const keys = kwargs(call)?.keys;
  if (!Array.isArray(keys)) {
    return null;
  }
  const out = keys.filter((k): k is string => typeof k === 'string');
  return out.length === keys.length ? out : null;
}

function message(call: ActionCall): string | null {
  const m = kwargs(call)?.message;
  return typeof m === 'string' ? m : null;
}

function hotkeyToken(key: string): string {
  return MODIFIER_TOKENS.has(key) || Array.from(key).length > 1 ? `$${key}$` : key;
}

function none(reason: string): DescribedCalls {
  return { description: '', agentnetAction: '', coordinate: null, reason };
}

/** True when converting `described` gives back exactly `calls` (printed code compared). */
function convertsBack(described: DescribedCalls, calls: readonly ActionCall[], screen: ScreenSize) {
  try {
    const stage1 = stage1Description({
      action: described.agentnetAction,
      description: described.description,
      coordinate: described.coordinate,
    });
    return callsToCode(descriptionToCalls(stage1, screen)) === callsToCode(calls);
  } catch {
    return false;
  }
}

function candidate(calls: readonly ActionCall[], screen: ScreenSize): DescribedCalls | string {
  const [first, second] = calls;
  if (!first) {
    return 'the step has no calls';
  }
  const clickWords = CLICK_WORDS[first.name];
  if (calls.length === 1 && clickWords) {
    const point = callPoint(first);
    if (!point) {
      return `${first.name} has no x/y`;
    }
    return {
      description: clickWords,
      agentnetAction: 'click',
      coordinate: toPixels(point, screen),
      reason: null,
    };
  }
  if (calls.length === 2 && first.name === 'moveTo' && second?.name === 'dragTo') {
    const from = callPoint(first);
    const to = callPoint(second);
    if (!from || !to) {
      return 'the drag has no x/y';
    }
    const a = toPixels(from, screen);
    const b = toPixels(to, screen);
    return {
      description: `Drag from (${pyNumberText(a.x)}, ${pyNumberText(a.y)}) to (${pyNumberText(b.x)}, ${pyNumberText(b.y)})`,
      agentnetAction: 'drag',
      coordinate: a,
      reason: null,
    };
  }
  if (calls.every((c) => c.name === 'write' || c.name === 'press')) {
    const tokens = calls.map((c) =>
      c.name === 'write' ? (message(c) ?? '') : `$${(stringKeys(c) ?? []).join('')}$`,
    );
    return {
      description: `${KEYBOARD_ICON} Type: ${tokens.join('')}`,
      agentnetAction: 'type',
      coordinate: null,
      reason: null,
    };
  }
  if (calls.length === 1 && first.name === 'hotkey') {
    const keys = stringKeys(first) ?? [];
    return {
      description: `${KEYBOARD_ICON} Press: ${keys.map(hotkeyToken).join(' + ')}`,
      agentnetAction: 'press',
      coordinate: null,
      reason: null,
    };
  }
  return `${calls.map((c) => c.name).join(' + ')} has no AgentNet description`;
}

/**
 * A scroll step `[moveTo?, scroll | hscroll]`: the exporter writes the row's trace from the raw
 * wheel events and the conversion sums that trace, so only the arrow form is written here.
 */
function scrollDescription(
  calls: readonly ActionCall[],
  screen: ScreenSize,
): DescribedCalls | null {
  const [first, ...rest] = calls;
  const move = first?.name === 'moveTo' ? first : null;
  const scrolls = move ? rest : calls;
  const [only, ...more] = scrolls;
  if (!only || more.length || (only.name !== 'scroll' && only.name !== 'hscroll')) {
    return null;
  }
  const clicks = num(kwargs(only)?.clicks);
  if (clicks === null || clicks === 0) {
    return null;
  }
  const icon =
    only.name === 'scroll'
      ? clicks > 0
        ? '\u2B06\uFE0F'
        : '\u2B07\uFE0F'
      : clicks > 0
        ? '\u27A1\uFE0F'
        : '\u2B05\uFE0F';
  const point = move ? callPoint(move) : null;
  return {
    description: `Scroll ${icon}\u00D7${Math.abs(clicks)}  `,
    agentnetAction: 'scroll',
    coordinate: point ? toPixels(point, screen) : null,
    reason: null,
  };
}

// The AgentNet description of `calls`, verified by converting it back (scrolls excepted).
export function describeCalls(calls: readonly ActionCall[], screen: ScreenSize): DescribedCalls {
  if (!(screen.width > 0 && screen.height > 0)) {
    return none('the screen size is unknown');
  }
  const scroll = scrollDescription(calls, screen);
  if (scroll) {
    return scroll;
  }
  const c = candidate(calls, screen);
  if (typeof c === 'string') {
    return none(c);
  }
  return convertsBack(c, calls, screen)
    ? c
    : none(`the description ${JSON.stringify(c.description)} does not convert back to the calls`);
}
