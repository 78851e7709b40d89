// The replay plan (docs/replay.md §3): each step's PyAutoGUI-style calls → driver primitives in
// replay-screen pixels. Pure; a call the driver cannot perform makes the step `unsupported`.
import {
  ACTION_NAMES,
  CALL_BUTTONS,
  TERMINATE_STATUSES,
  type ActionCall,
  type CallButton,
  type PyValue,
  type Step,
  type TerminateStatus,
} from '../../shared/domain';
import { isPyFloat, isPyInt, pyNumber } from '../../shared/python/py-value';
import { CALL_PARAMETERS } from '../code/normalize-call';
import { scalePoint, type Point, type ScreenFrame } from './scale';

/** The character the recorder stores for each key typed into a password field (its
 * MASKED_KEY): a call whose text holds it is a masked step, which cannot be replayed. */
export const MASKED_CHAR = '\u2022';

/** A `wait()` without `seconds` waits this long (ms): our choice, pyautogui defines none. */
export const WAIT_DEFAULT_MS = 1000;

/** One thing the driver does, in replay-screen pixels (virtual desktop). */
export type ReplayPrimitive =
  | { kind: 'move'; x: number; y: number }
  | { kind: 'click'; x: number; y: number; button: CallButton; count: number }
  | { kind: 'drag'; from: Point; to: Point; button: CallButton }
  /** At (x, y), or where the pointer is when both are null; dy > 0 up, dx > 0 right (notches). */
  | { kind: 'scroll'; x: number | null; y: number | null; dx: number; dy: number }
  | { kind: 'type'; text: string }
  /** Each key pressed and released, in order. */
  | { kind: 'press'; keys: string[] }
  /** The keys pressed in order, then released in reverse (a chord). */
  | { kind: 'hotkey'; keys: string[] }
  | { kind: 'wait'; ms: number }
  /** Terminate: the trajectory ends here. */
  | { kind: 'end'; status: TerminateStatus };

/** The plan of one step. */
export type StepPlan = {
  index: number;
  stepId: string;
  /** Empty when {@link StepPlan.unsupported} is set: the step is not driven. */
  primitives: ReplayPrimitive[];
  /** Replay-screen point of the step's first pointer primitive (move, click, drag start, scroll
   * at a known point): where the element under the action is compared; null without one. */
  actionPoint: Point | null;
  /** Why the step cannot be replayed (the first call that cannot), else null. */
  unsupported: string | null;
  /** Typed into a password field (its text masked at capture, `write('•••')`): not driven, not
   * scored (the characters are unknown). */
  masked: boolean;
};

/** True when a call types text masked at capture (a string argument holding {@link MASKED_CHAR}:
 * `write('•••')`, `press('•')`). */
export function isMaskedCall(call: ActionCall): boolean {
  const holds = (v: PyValue | undefined): boolean =>
    typeof v === 'string' ? v.includes(MASKED_CHAR) : Array.isArray(v) ? v.some(holds) : false;
  return (
    ['write', 'press', 'hotkey'].includes(call.name) &&
    (Array.isArray(call.args) ? call.args : Object.values(call.args)).some(holds)
  );
}

/** The step fields the plan reads. */
export type PlanStep = Pick<Step, 'id' | 'index' | 'calls' | 'coordinate'>;

/** Thrown inside one step's planning; becomes the step's `unsupported` reason. */
class Unsupported extends Error {}

function fail(call: ActionCall, what: string): never {
  throw new Unsupported(`${String(call.name)}: ${what}`);
}

/** Keyword arguments of a call (positional ones named by {@link CALL_PARAMETERS}). */
function argsOf(call: ActionCall): Record<string, PyValue> {
  if (!Array.isArray(call.args)) {
    return call.args;
  }
  // hotkey('ctrl', 'c'): every positional string is a key.
  if (call.name === 'hotkey' && call.args.every((arg) => typeof arg === 'string')) {
    return { keys: call.args };
  }
  const names = CALL_PARAMETERS[call.name];
  if (call.args.length > names.length) {
    fail(call, `${call.args.length} positional arguments, at most ${names.length} expected`);
  }
  const args: Record<string, PyValue> = {};
  call.args.forEach((value, i) => {
    args[names[i]!] = value;
  });
  return args;
}

type Planner = {
  call: ActionCall;
  args: Record<string, PyValue>;
  from: ScreenFrame;
  to: ScreenFrame;
};

/** A normalised coordinate pair (floats in [0, 1], or the ints 0/1) → replay pixels. */
function pointArg(p: Planner): Point {
  const nx = unit(p, 'x');
  const ny = unit(p, 'y');
  const ox = p.from.origin?.x ?? 0;
  const oy = p.from.origin?.y ?? 0;
  return scalePoint({ x: ox + nx * p.from.width, y: oy + ny * p.from.height }, p.from, p.to);
}

function unit(p: Planner, name: 'x' | 'y'): number {
  const value = p.args[name];
  if (value === undefined) {
    return fail(p.call, `no ${name} (a fraction of the screen) to act at`);
  }
  const n = pyNumber(value);
  if (n === null || n < 0 || n > 1) {
    return fail(
      p.call,
      `${name} must be a fraction of the screen in [0, 1], got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

function buttonArg(p: Planner): CallButton {
  const value = p.args.button;
  if (value === undefined) {
    return 'left';
  }
  if (typeof value === 'string' && (CALL_BUTTONS as readonly string[]).includes(value)) {
    return value as CallButton;
  }
  return fail(
    p.call,
    `button must be one of ${CALL_BUTTONS.join(', ')}, got ${JSON.stringify(value)}`,
  );
}

/** An int (or an integral float, `-3.0`) argument. */
function intArg(p: Planner, name: string): number | undefined {
  const value = p.args[name];
  if (value === undefined) {
    return undefined;
  }
  const n = isPyInt(value) || isPyFloat(value) ? pyNumber(value) : null;
  if (n === null || !Number.isInteger(n)) {
    return fail(p.call, `${name} must be an int, got ${JSON.stringify(value)}`);
  }
  return n;
}

function keysArg(p: Planner): string[] {
  const value = p.args.keys;
  // press('enter'): one key as a string.
  const keys = typeof value === 'string' ? [value] : value;
  if (
    !Array.isArray(keys) ||
    keys.length === 0 ||
    !keys.every((k) => typeof k === 'string' && k !== '')
  ) {
    return fail(p.call, `keys must be a non-empty list of key names, got ${JSON.stringify(value)}`);
  }
  return keys as string[];
}

/** Pointer state while planning: where the pointer went in this step and before it. */
type Pointer = { inStep: Point | null; before: Point | null; recorded: Point | null };

function callPrimitive(p: Planner, pointer: Pointer): ReplayPrimitive {
  const { call } = p;
  const clickAt = (button: CallButton, count: number): ReplayPrimitive => ({
    kind: 'click',
    ...pointArg(p),
    button,
    count,
  });
  switch (call.name) {
    case 'click': {
      const count = intArg(p, 'clicks') ?? 1;
      if (count < 1) {
        return fail(call, `clicks must be at least 1, got ${count}`);
      }
      return clickAt(buttonArg(p), count);
    }
    case 'doubleClick':
      return clickAt(buttonArg(p), 2);
    case 'tripleClick':
      return clickAt(buttonArg(p), 3);
    case 'rightClick':
      return clickAt('right', 1);
    case 'middleClick':
      return clickAt('middle', 1);
    case 'moveTo':
      return { kind: 'move', ...pointArg(p) };
    case 'dragTo': {
      const from = pointer.inStep ?? pointer.recorded ?? pointer.before;
      if (from === null) {
        return fail(call, 'no start point (no earlier move and no recorded coordinate)');
      }
      return { kind: 'drag', from, to: pointArg(p), button: buttonArg(p) };
    }
    case 'scroll':
    case 'hscroll': {
      const clicks = intArg(p, 'clicks');
      if (clicks === undefined) {
        return fail(call, 'no clicks (notches to scroll)');
      }
      const hasPoint = p.args.x !== undefined || p.args.y !== undefined;
      const at = hasPoint ? pointArg(p) : (pointer.inStep ?? pointer.recorded);
      const dx = call.name === 'hscroll' ? clicks : 0;
      const dy = call.name === 'scroll' ? clicks : 0;
      return { kind: 'scroll', x: at?.x ?? null, y: at?.y ?? null, dx, dy };
    }
    case 'write': {
      const message = p.args.message;
      if (typeof message !== 'string') {
        return fail(call, `message must be a string, got ${JSON.stringify(message ?? null)}`);
      }
      return { kind: 'type', text: message };
    }
    case 'press': {
      const keys = keysArg(p);
      const presses = intArg(p, 'presses') ?? 1;
      if (presses < 1) {
        return fail(call, `presses must be at least 1, got ${presses}`);
      }
      return { kind: 'press', keys: Array.from({ length: presses }, () => keys).flat() };
    }
    case 'hotkey':
      return { kind: 'hotkey', keys: keysArg(p) };
    case 'wait': {
      const value = p.args.seconds;
      if (value === undefined) {
        return { kind: 'wait', ms: WAIT_DEFAULT_MS };
      }
      const seconds = pyNumber(value);
      if (seconds === null || seconds < 0 || !Number.isFinite(seconds)) {
        return fail(call, `seconds must be a number ≥ 0, got ${JSON.stringify(value)}`);
      }
      return { kind: 'wait', ms: Math.round(seconds * 1000) };
    }
    case 'terminate': {
      const status = p.args.status ?? 'success';
      if (
        typeof status !== 'string' ||
        !(TERMINATE_STATUSES as readonly string[]).includes(status)
      ) {
        return fail(
          call,
          `status must be one of ${TERMINATE_STATUSES.join(', ')}, got ${JSON.stringify(status)}`,
        );
      }
      return { kind: 'end', status: status as TerminateStatus };
    }
  }
}

/** Where a primitive leaves the pointer (null: it does not move it). */
function pointerAfter(primitive: ReplayPrimitive): Point | null {
  switch (primitive.kind) {
    case 'move':
    case 'click':
      return { x: primitive.x, y: primitive.y };
    case 'drag':
      return primitive.to;
    case 'scroll':
      return primitive.x === null || primitive.y === null
        ? null
        : { x: primitive.x, y: primitive.y };
    default:
      return null;
  }
}

/** The point the element under the action is compared at (see {@link StepPlan.actionPoint}). */
function actionPointOf(primitive: ReplayPrimitive): Point | null {
  return primitive.kind === 'drag' ? primitive.from : pointerAfter(primitive);
}

/**
 * Plans the replay of `steps` (edits applied, in order): calls' coordinates are fractions of the
 * recording's screen `from` and become pixels of the replay screen `to` (scalePoint). A step's
 * recorded `coordinate` (pixels relative to `from`'s origin) anchors a drag or scroll that has no
 * point of its own and no earlier move in the step.
 */
export function planReplay(
  steps: readonly PlanStep[],
  from: ScreenFrame,
  to: ScreenFrame,
): StepPlan[] {
  let before: Point | null = null;
  return steps.map((step) => {
    const recorded =
      step.coordinate === null
        ? null
        : scalePoint(
            {
              x: (from.origin?.x ?? 0) + step.coordinate.x,
              y: (from.origin?.y ?? 0) + step.coordinate.y,
            },
            from,
            to,
          );
    if (step.calls.some(isMaskedCall)) {
      // nothing of it is driven: the pointer stays where the step before left it
      return {
        index: step.index,
        stepId: step.id,
        primitives: [],
        actionPoint: null,
        unsupported: null,
        masked: true,
      };
    }
    const pointer: Pointer = { inStep: null, before, recorded };
    const primitives: ReplayPrimitive[] = [];
    let actionPoint: Point | null = null;
    try {
      for (const call of step.calls) {
        if (!(ACTION_NAMES as readonly string[]).includes(call.name)) {
          throw new Unsupported(`unknown call ${JSON.stringify(call.name)}`);
        }
        const primitive = callPrimitive({ call, args: argsOf(call), from, to }, pointer);
        primitives.push(primitive);
        actionPoint ??= actionPointOf(primitive);
        pointer.inStep = pointerAfter(primitive) ?? pointer.inStep;
      }
    } catch (error) {
      if (!(error instanceof Unsupported)) {
        throw error;
      }
      return {
        index: step.index,
        stepId: step.id,
        primitives: [],
        actionPoint: null,
        unsupported: `step ${step.index}: ${error.message}`,
        masked: false,
      };
    }
    before = pointer.inStep ?? before;
    return {
      index: step.index,
      stepId: step.id,
      primitives,
      actionPoint,
      unsupported: null,
      masked: false,
    };
  });
}
