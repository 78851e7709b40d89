// The JSON-lines protocol between the input-hook child (hook-child.ts) and its parent
// (hook-process.ts), docs/architecture.md §5. One JSON object per line on the child's stdout:
//   {"type":"hello","protocol":1,"capabilities":[…],"t":<ms>,"pid":<n>}   once the hook runs
//   {"type":"event","t":<ms>,"e":{…uiohook event…}}                         one per input event
//   {"type":"heartbeat","t":<ms>,"seq":<n>,"sent":<events so far>}           every ~250 ms
//   {"id":…,"ok":true,"result":…} / {"id":…,"ok":false,"error":{code,message}} responses
// Requests on stdin: {"id":…,"method":"shutdown"|"ping","params":{}}; closing stdin = shutdown.
// `t` is the shared session clock (CLOCK_MONOTONIC, float ms), stamped in the uiohook callback.
// Pure: types, encoders and the validating parser (valibot schemas).
import * as v from 'valibot';
import { shapeObject } from '../../axtree/shape';

/** Protocol version announced in the hello line. */
export const HOOK_PROTOCOL_VERSION = 1;

/**
 * Longest time the child holds pointer moves, wheel steps and releases before writing them (ms);
 * presses go out at once. The parent hands each read on at once, so this bounds how old a batch
 * can be (the ≤ 200 ms cadence into SQLite, the most a crash of the child can take with it); the
 * session's hover rest adds slack to it. Each write wakes both processes, and a wake-up costs
 * 100–250 µs of CPU on the build machine: 200 ms (was 100) took the recorder's main process from
 * 36–38 to 27–28 wake-ups a second and the child from 66–67 to 61–62 under the benchmark's steady
 * motion (bench/recorder.ts).
 */
export const HOOK_DEFERRED_FLUSH_MS = 200;

/**
 * Held lines at which the child writes at once instead of waiting out HOOK_DEFERRED_FLUSH_MS: a
 * 1000 Hz mouse fills 200 ms with 200 moves, so only floods (synthetic input) reach it, and their
 * writes stay small and frequent rather than one large write that keeps the child from reading.
 */
export const HOOK_DEFERRED_MAX_LINES = 256;

/** uiohook-napi `EventType` values the child forwards (EVENT_MOUSE_CLICKED is dropped). */
export const UIOHOOK_EVENT_TYPES = {
  keyPressed: 4,
  keyReleased: 5,
  mousePressed: 7,
  mouseReleased: 8,
  mouseMoved: 9,
  mouseWheel: 11,
} as const;

/** uiohook-napi `WheelDirection` values. */
export const UIOHOOK_WHEEL_DIRECTIONS = { vertical: 3, horizontal: 4 } as const;

type ModifierFlags = {
  /** X server time of the event in ms (32-bit, wraps); the local server's CLOCK_MONOTONIC. */
  time: number;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
};

/** A uiohook keyboard event as forwarded by the child. */
export type HookKeyEvent = ModifierFlags & {
  type: 4 | 5;
  /** libuiohook VC code of the key position. */
  keycode: number;
};

/** A uiohook mouse button or move event as forwarded by the child. */
export type HookMouseEvent = ModifierFlags & {
  type: 7 | 8 | 9;
  x: number;
  y: number;
  /** 1 left, 2 right, 3 middle, 4 X1 (X button 8), 5 X2 (X button 9), 0 other/none. */
  button: number;
  clicks: number;
};

/** A uiohook wheel event as forwarded by the child. */
export type HookWheelEvent = ModifierFlags & {
  type: 11;
  x: number;
  y: number;
  clicks: number;
  /** Scroll units per notch (3 on X11). */
  amount: number;
  /** 3 vertical, 4 horizontal. */
  direction: number;
  /** Notches; X11: −1 = up or left, +1 = down or right. */
  rotation: number;
};

/** Any forwarded uiohook event. */
export type HookInputEvent = HookKeyEvent | HookMouseEvent | HookWheelEvent;

/** Sent once after the hook started. */
export type HookHelloLine = {
  type: 'hello';
  protocol: number;
  capabilities: string[];
  /** Session clock when the hook was running, ms. */
  t: number;
  pid: number;
};

/** One input event. */
export type HookEventLine = {
  type: 'event';
  /** Session clock in the uiohook callback, ms. */
  t: number;
  e: HookInputEvent;
};

/** Liveness signal. */
export type HookHeartbeatLine = {
  type: 'heartbeat';
  /** Session clock, ms. */
  t: number;
  /** 0-based heartbeat counter. */
  seq: number;
  /** Event lines written before this heartbeat (lets the parent check completeness). */
  sent: number;
};

/**
 * The pointer stopped: no move for the child's `--rest-ms` (the session looks up the element
 * under it, so a click that closes its window still gets it). Written at once, after every event
 * before it; only when the parent asked for it.
 */
export type HookRestLine = {
  type: 'rest';
  /** Session clock when the rest was seen, ms. */
  t: number;
};

/**
 * Input the X server dropped before the hook saw it (X RECORD: press-tally.ts), found by
 * comparing two counts of key presses; written once a loss is found.
 */
export type HookLostLine = {
  type: 'lost';
  /** Session clock when the loss was found, ms. */
  t: number;
  /** Key presses lost. */
  keyPresses: number;
};

/** Answer to a request. */
export type HookResponseLine =
  | { type: 'response'; id: number | string; ok: true; result: unknown }
  | { type: 'response'; id: number | string; ok: false; error: { code: string; message: string } };

/** Any valid line from the child. */
export type HookLine =
  | HookHelloLine
  | HookEventLine
  | HookHeartbeatLine
  | HookRestLine
  | HookLostLine
  | HookResponseLine;

/** Result of {@link parseHookLine}. */
export type ParsedHookLine = { ok: true; line: HookLine } | { ok: false; problem: string };

/** A request to the child. */
export type HookRequest = { id: number | string; method: string; params?: unknown };

// Encodes one event line (the child's hot path: one template, no intermediate object).
export function encodeEventLine(tMs: number, event: object): string {
  return `{"type":"event","t":${tMs},"e":${JSON.stringify(event)}}\n`;
}

// Encodes any other line.
export function encodeLine(line: object): string {
  return `${JSON.stringify(line)}\n`;
}

// ---- the parser: each line's shape as a valibot schema whose message is the problem reported

/** An integer; anything else is `problem`. */
function integer(problem: string) {
  return v.pipe(v.number(problem), v.integer(problem));
}

/** An integer ≥ `min`; anything else is `problem`. */
function integerFrom(min: number, problem: string) {
  return v.pipe(v.number(problem), v.integer(problem), v.minValue(min, problem));
}

const EVENT_TYPES = Object.values(UIOHOOK_EVENT_TYPES);

const unknownEventType = (issue: v.BaseIssue<unknown>): string =>
  `unknown e.type ${JSON.stringify(issue.input)}`;

// what every input event has, checked first (the type, the time, the four modifier flags)
const InputEventCommonSchema = shapeObject(
  {
    type: v.picklist(EVENT_TYPES, unknownEventType),
    time: integerFrom(0, 'e.time must be a non-negative integer'),
    altKey: v.boolean('e.altKey must be a boolean'),
    ctrlKey: v.boolean('e.ctrlKey must be a boolean'),
    metaKey: v.boolean('e.metaKey must be a boolean'),
    shiftKey: v.boolean('e.shiftKey must be a boolean'),
  },
  'event line without an e object',
);

const XY = 'e.x and e.y must be integers';
const KeySchema = shapeObject(
  { keycode: integerFrom(0, 'e.keycode must be an integer ≥ 0') },
  'event line without an e object',
);
const MouseSchema = shapeObject(
  {
    x: integer(XY),
    y: integer(XY),
    button: integer('e.button and e.clicks must be integers'),
    clicks: integer('e.button and e.clicks must be integers'),
  },
  'event line without an e object',
);
const WHEEL = 'e.rotation, e.direction, e.amount and e.clicks must be integers';
const WheelSchema = shapeObject(
  {
    x: integer(XY),
    y: integer(XY),
    rotation: integer(WHEEL),
    direction: integer(WHEEL),
    amount: integer(WHEEL),
    clicks: integer(WHEEL),
  },
  'event line without an e object',
);

/** The fields of each event type beyond the common ones. */
const EVENT_FIELDS: { [T in (typeof EVENT_TYPES)[number]]: v.GenericSchema } = {
  [UIOHOOK_EVENT_TYPES.keyPressed]: KeySchema,
  [UIOHOOK_EVENT_TYPES.keyReleased]: KeySchema,
  [UIOHOOK_EVENT_TYPES.mousePressed]: MouseSchema,
  [UIOHOOK_EVENT_TYPES.mouseReleased]: MouseSchema,
  [UIOHOOK_EVENT_TYPES.mouseMoved]: MouseSchema,
  [UIOHOOK_EVENT_TYPES.mouseWheel]: WheelSchema,
};

const FIRST_ISSUE = { abortEarly: true } as const;

/** The first issue's message, or null when `value` fits `schema`. */
function problemOf(schema: v.GenericSchema, value: unknown): string | null {
  const result = v.safeParse(schema, value, FIRST_ISSUE);
  return result.success ? null : result.issues[0].message;
}

function inputEventProblem(e: unknown): string | null {
  const common = v.safeParse(InputEventCommonSchema, e, FIRST_ISSUE);
  if (!common.success) {
    return common.issues[0].message;
  }
  return problemOf(EVENT_FIELDS[common.output.type], e);
}

const ResponseSchema = v.looseObject({
  id: v.union([v.number(), v.string()], 'response id must be a number or string'),
  ok: v.boolean(),
  result: v.optional(v.unknown()),
  error: v.optional(v.unknown()),
});

const ERROR_BODY = 'error response without error.code/error.message';
const ErrorBodySchema = shapeObject(
  { code: v.string(ERROR_BODY), message: v.string(ERROR_BODY) },
  ERROR_BODY,
);

const TimedLineSchema = v.looseObject({ t: v.pipe(v.number(), v.finite()) });

const HEARTBEAT = 'heartbeat without integer seq/sent';
const HeartbeatSchema = v.looseObject(
  { seq: integer(HEARTBEAT), sent: integer(HEARTBEAT) },
  HEARTBEAT,
);

const LOST = 'lost line without a positive integer keyPresses';
const LostSchema = v.looseObject({ keyPresses: integerFrom(1, LOST) }, LOST);

const HELLO = 'hello without integer protocol/pid and string capabilities';
const HelloSchema = v.looseObject(
  {
    protocol: integer(HELLO),
    capabilities: v.array(v.string(HELLO), HELLO),
    pid: integer(HELLO),
  },
  HELLO,
);

// Validates one stdout line of the child; never throws.
export function parseHookLine(text: string): ParsedHookLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'not a JSON object' };
  }
  const line = value as Record<string, unknown>;
  if (line.type === undefined && 'id' in line && typeof line.ok === 'boolean') {
    const response = v.safeParse(ResponseSchema, line, FIRST_ISSUE);
    if (!response.success) {
      return { ok: false, problem: response.issues[0].message };
    }
    const { id, ok, result, error } = response.output;
    if (ok) {
      return { ok: true, line: { type: 'response', id, ok: true, result } };
    }
    const body = v.safeParse(ErrorBodySchema, error, FIRST_ISSUE);
    if (!body.success) {
      return { ok: false, problem: body.issues[0].message };
    }
    const { code, message } = body.output;
    return { ok: true, line: { type: 'response', id, ok: false, error: { code, message } } };
  }
  const timed = v.safeParse(TimedLineSchema, line, FIRST_ISSUE);
  if (!timed.success) {
    return { ok: false, problem: `line of type ${JSON.stringify(line.type)} without a numeric t` };
  }
  const t = timed.output.t;
  switch (line.type) {
    case 'event': {
      const problem = inputEventProblem(line.e);
      return problem === null
        ? { ok: true, line: { type: 'event', t, e: line.e as HookInputEvent } }
        : { ok: false, problem };
    }
    case 'heartbeat': {
      const heartbeat = v.safeParse(HeartbeatSchema, line, FIRST_ISSUE);
      return heartbeat.success
        ? {
            ok: true,
            line: { type: 'heartbeat', t, seq: heartbeat.output.seq, sent: heartbeat.output.sent },
          }
        : { ok: false, problem: heartbeat.issues[0].message };
    }
    case 'rest':
      return { ok: true, line: { type: 'rest', t } };
    case 'lost': {
      const lost = v.safeParse(LostSchema, line, FIRST_ISSUE);
      return lost.success
        ? { ok: true, line: { type: 'lost', t, keyPresses: lost.output.keyPresses } }
        : { ok: false, problem: lost.issues[0].message };
    }
    case 'hello': {
      const hello = v.safeParse(HelloSchema, line, FIRST_ISSUE);
      if (!hello.success) {
        return { ok: false, problem: hello.issues[0].message };
      }
      const { protocol, capabilities, pid } = hello.output;
      return { ok: true, line: { type: 'hello', protocol, capabilities, t, pid } };
    }
    default:
      return { ok: false, problem: `unknown line type ${JSON.stringify(line.type)}` };
  }
}
