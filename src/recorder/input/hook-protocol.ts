// The JSON-lines protocol between the input-hook child (hook-child.ts) and its parent
// (hook-process.ts), docs/architecture.md §5. One JSON object per line on the child's stdout:
//   {"type":"hello","protocol":1,"capabilities":[…],"t":<ms>,"pid":<n>}   once the hook runs
//   {"type":"event","t":<ms>,"e":{…uiohook event…}}                         one per input event
//   {"type":"heartbeat","t":<ms>,"seq":<n>,"sent":<events so far>}           every ~250 ms
//   {"id":…,"ok":true,"result":…} / {"id":…,"ok":false,"error":{code,message}} responses
// Requests on stdin: {"id":…,"method":"shutdown"|"ping","params":{}}; closing stdin = shutdown.
// `t` is the shared session clock (CLOCK_MONOTONIC, float ms), stamped in the uiohook callback.
// Pure: types, encoders and the validating parser.

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value);
}

const KNOWN_EVENT_TYPES: ReadonlySet<unknown> = new Set(Object.values(UIOHOOK_EVENT_TYPES));

function inputEventProblem(e: Record<string, unknown>): string | null {
  if (!KNOWN_EVENT_TYPES.has(e.type)) {
    return `unknown e.type ${JSON.stringify(e.type)}`;
  }
  if (!isInteger(e.time) || e.time < 0) {
    return 'e.time must be a non-negative integer';
  }
  for (const flag of ['altKey', 'ctrlKey', 'metaKey', 'shiftKey']) {
    if (typeof e[flag] !== 'boolean') {
      return `e.${flag} must be a boolean`;
    }
  }
  switch (e.type) {
    case UIOHOOK_EVENT_TYPES.keyPressed:
    case UIOHOOK_EVENT_TYPES.keyReleased:
      return isInteger(e.keycode) && e.keycode >= 0 ? null : 'e.keycode must be an integer ≥ 0';
    case UIOHOOK_EVENT_TYPES.mousePressed:
    case UIOHOOK_EVENT_TYPES.mouseReleased:
    case UIOHOOK_EVENT_TYPES.mouseMoved:
      if (!isInteger(e.x) || !isInteger(e.y)) {
        return 'e.x and e.y must be integers';
      }
      return isInteger(e.button) && isInteger(e.clicks)
        ? null
        : 'e.button and e.clicks must be integers';
    case UIOHOOK_EVENT_TYPES.mouseWheel:
      if (!isInteger(e.x) || !isInteger(e.y)) {
        return 'e.x and e.y must be integers';
      }
      return isInteger(e.rotation) &&
        isInteger(e.direction) &&
        isInteger(e.amount) &&
        isInteger(e.clicks)
        ? null
        : 'e.rotation, e.direction, e.amount and e.clicks must be integers';
    default:
      return `unknown e.type ${JSON.stringify(e.type)}`;
  }
}

// Validates one stdout line of the child; never throws.
export function parseHookLine(text: string): ParsedHookLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'not JSON' };
  }
  if (!isRecord(value)) {
    return { ok: false, problem: 'not a JSON object' };
  }
  if (value.type === undefined && 'id' in value && typeof value.ok === 'boolean') {
    const id = value.id;
    if (typeof id !== 'number' && typeof id !== 'string') {
      return { ok: false, problem: 'response id must be a number or string' };
    }
    if (value.ok) {
      return { ok: true, line: { type: 'response', id, ok: true, result: value.result } };
    }
    const error = value.error;
    if (!isRecord(error) || typeof error.code !== 'string' || typeof error.message !== 'string') {
      return { ok: false, problem: 'error response without error.code/error.message' };
    }
    return {
      ok: true,
      line: {
        type: 'response',
        id,
        ok: false,
        error: { code: error.code, message: error.message },
      },
    };
  }
  if (!isFiniteNumber(value.t)) {
    return { ok: false, problem: `line of type ${JSON.stringify(value.type)} without a numeric t` };
  }
  switch (value.type) {
    case 'event': {
      if (!isRecord(value.e)) {
        return { ok: false, problem: 'event line without an e object' };
      }
      const problem = inputEventProblem(value.e);
      return problem === null
        ? { ok: true, line: { type: 'event', t: value.t, e: value.e as HookInputEvent } }
        : { ok: false, problem };
    }
    case 'heartbeat':
      return isInteger(value.seq) && isInteger(value.sent)
        ? { ok: true, line: { type: 'heartbeat', t: value.t, seq: value.seq, sent: value.sent } }
        : { ok: false, problem: 'heartbeat without integer seq/sent' };
    case 'rest':
      return { ok: true, line: { type: 'rest', t: value.t } };
    case 'lost':
      return isInteger(value.keyPresses) && value.keyPresses > 0
        ? { ok: true, line: { type: 'lost', t: value.t, keyPresses: value.keyPresses } }
        : { ok: false, problem: 'lost line without a positive integer keyPresses' };
    case 'hello': {
      const capabilities = value.capabilities;
      if (
        !isInteger(value.protocol) ||
        !Array.isArray(capabilities) ||
        !capabilities.every((c) => typeof c === 'string') ||
        !isInteger(value.pid)
      ) {
        return { ok: false, problem: 'hello without integer protocol/pid and string capabilities' };
      }
      return {
        ok: true,
        line: {
          type: 'hello',
          protocol: value.protocol,
          capabilities,
          t: value.t,
          pid: value.pid,
        },
      };
    }
    default:
      return { ok: false, problem: `unknown line type ${JSON.stringify(value.type)}` };
  }
}
