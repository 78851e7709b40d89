// The shapes of what an accessibility helper prints (docs/helper-protocol.md §2–§3) as valibot
// schemas: its lines (hello, responses, events) and the results of activeWindow, displays and
// permissions. A bad line is a HELPER_PROTOCOL_ERROR quoting it; a bad result an AxShapeError
// naming the field (the adapter, ./native-helper.ts, turns that into a protocol error too).
import * as v from 'valibot';
import { AppError } from '../../shared/errors';
import type { AxBounds } from '../model';
import {
  BooleanSchema,
  FiniteNumberSchema,
  got,
  parseShape,
  shapeObject,
  StringSchema,
} from '../shape';
import type {
  ActiveWindowResult,
  HelperDisplay,
  HelperHelloLine,
  PermissionState,
  PermissionsResult,
} from './helper-protocol';

/** First line a helper prints: `{"type":"hello","protocol":2,"capabilities":[…],"helper":{…}}`. */
export type HelperHello = HelperHelloLine;

/** Error half of a failed response. */
export type HelperErrorBody = { code: string; message: string };

/** A response to request `id`. */
export type HelperResponse =
  | { type: 'response'; id: number; ok: true; result: unknown }
  | { type: 'response'; id: number; ok: false; error: HelperErrorBody };

/** An unsolicited event, e.g. `{"type":"event","t":12.5,"event":"focus",…}`. */
export type HelperEvent = {
  type: 'event';
  /** Helper's monotonic clock in seconds, informational only (the parent stamps its own). */
  t: number | null;
  /** Event name, e.g. `focus`. */
  event: string;
  /** The whole event object. */
  data: Record<string, unknown>;
};

/** Any valid line from a helper. */
export type HelperMessage = HelperHello | HelperResponse | HelperEvent;

/** A HELPER_PROTOCOL_ERROR. */
export function protocolError(message: string, details?: Record<string, unknown>): AppError {
  return new AppError('HELPER_PROTOCOL_ERROR', message, details);
}

/** Cuts a line for error messages. */
export function excerpt(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

const notAnObject = (input: unknown): string => `expected an object, got ${JSON.stringify(input)}`;

/** An integer; anything else gets `message`. */
function integer(message: string) {
  return v.pipe(v.number(message), v.integer(message));
}

const HELLO_HELPER = 'hello with a helper that is not {name, os, pid}';

const HelloSchema = v.pipe(
  shapeObject(
    {
      protocol: integer('hello without an integer protocol'),
      capabilities: v.array(
        v.string('hello without a capabilities string array'),
        'hello without a capabilities string array',
      ),
      // v2: which helper answered (docs/helper-protocol.md §2)
      helper: v.optional(
        shapeObject(
          {
            name: v.string(HELLO_HELPER),
            os: v.string(HELLO_HELPER),
            pid: integer(HELLO_HELPER),
            version: v.optional(v.string(HELLO_HELPER)),
          },
          HELLO_HELPER,
        ),
      ),
    },
    notAnObject,
  ),
  v.transform((value): HelperHello => {
    const hello: HelperHello = {
      type: 'hello',
      protocol: value.protocol,
      capabilities: value.capabilities,
    };
    if (value.helper !== undefined) {
      const { name, os, pid, version } = value.helper;
      hello.helper = { name, os, pid };
      if (version !== undefined) {
        hello.helper.version = version;
      }
    }
    return hello;
  }),
);

// (the line is an object already: the objects' own messages are for a missing key)
const EventSchema = v.looseObject(
  {
    event: v.string('event without an event name'),
    // informational: anything but a number reads as null
    t: v.fallback(v.nullable(v.number()), null),
  },
  'event without an event name',
);

const ResponseIdSchema = v.looseObject(
  { id: integer('response with a non-integer id') },
  'response with a non-integer id',
);

const ResponseBodySchema = v.union(
  [
    v.looseObject({ ok: v.literal(true), result: v.optional(v.unknown()) }),
    v.looseObject({
      ok: v.literal(false),
      error: v.looseObject({ code: v.string(), message: v.string() }),
    }),
  ],
  'response without ok/result or ok/error{code,message}',
);

/** Checks `value` against `schema`; a failure is a HELPER_PROTOCOL_ERROR quoting the line. */
function parseLinePart<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  line: string,
): v.InferOutput<S> {
  return parseShape(schema, value, '', (issue) =>
    protocolError(`${issue.message}: ${excerpt(line)}`),
  );
}

// Parses one stdout line; throws HELPER_PROTOCOL_ERROR for anything that is not a valid message.
export function parseHelperLine(line: string): HelperMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw protocolError(`helper printed a line that is not JSON: ${excerpt(line)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw protocolError(`helper printed JSON that is not an object: ${excerpt(line)}`);
  }
  const message = value as Record<string, unknown>;
  if (message.type === 'hello') {
    return parseLinePart(HelloSchema, message, line);
  }
  if (message.type === 'event') {
    const { event, t } = parseLinePart(EventSchema, message, line);
    return { type: 'event', t, event, data: message };
  }
  if (message.type === undefined && 'id' in message) {
    const { id } = parseLinePart(ResponseIdSchema, message, line);
    const body = parseLinePart(ResponseBodySchema, message, line);
    return body.ok
      ? { type: 'response', id, ok: true, result: body.result ?? null }
      : {
          type: 'response',
          id,
          ok: false,
          error: { code: body.error.code, message: body.error.message },
        };
  }
  throw protocolError(`unknown message from helper: ${excerpt(line)}`);
}

const PERMISSION_STATES: readonly PermissionState[] = [
  'granted',
  'denied',
  'unknown',
  'not-required',
];

// A rectangle in physical pixels of the virtual desktop: x/y may be negative (displays left of or
// above the primary one), width/height may not (docs/helper-protocol.md §3).
const RectSchema = v.pipe(
  shapeObject(
    {
      x: FiniteNumberSchema,
      y: FiniteNumberSchema,
      width: FiniteNumberSchema,
      height: FiniteNumberSchema,
    },
    notAnObject,
  ),
  v.check(
    (rect: AxBounds) => rect.width >= 0 && rect.height >= 0,
    (issue) => `negative size ${issue.input.width}×${issue.input.height}`,
  ),
);

const ActiveWindowSchema = v.nullable(
  v.pipe(
    shapeObject(
      {
        pid: v.pipe(
          FiniteNumberSchema,
          v.check(
            (pid) => Number.isInteger(pid) && pid >= 0,
            (issue) => `expected a process id, got ${String(issue.input)}`,
          ),
        ),
        title: StringSchema,
        app: StringSchema,
        bounds: RectSchema,
        windowId: v.optional(StringSchema),
      },
      notAnObject,
    ),
    v.transform((value): ActiveWindowResult => {
      const window: ActiveWindowResult = {
        title: value.title,
        app: value.app,
        pid: value.pid,
        bounds: value.bounds,
      };
      if (value.windowId !== undefined) {
        window.windowId = value.windowId;
      }
      return window;
    }),
  ),
);

const listIndexMessage = (issue: v.BaseIssue<unknown>): string =>
  `expected an integer ≥ 0, ${got(issue)}`;

const DisplaySchema = v.pipe(
  shapeObject(
    {
      scale: v.pipe(
        FiniteNumberSchema,
        v.check(
          (scale) => scale > 0,
          (issue) => `expected a positive scale, got ${String(issue.input)}`,
        ),
      ),
      primary: BooleanSchema,
      id: StringSchema,
      bounds: RectSchema,
      name: v.optional(StringSchema),
      listIndex: v.optional(
        v.pipe(
          v.number(listIndexMessage),
          v.integer(listIndexMessage),
          v.minValue(0, listIndexMessage),
        ),
      ),
    },
    notAnObject,
  ),
  v.transform((value): HelperDisplay => {
    const display: HelperDisplay = {
      id: value.id,
      bounds: value.bounds,
      scale: value.scale,
      primary: value.primary,
    };
    if (value.name !== undefined) {
      display.name = value.name;
    }
    if (value.listIndex !== undefined) {
      display.listIndex = value.listIndex;
    }
    return display;
  }),
);

const DisplaysSchema = v.array(
  DisplaySchema,
  (issue) => `expected an array of displays, ${got(issue)}`,
);

const permission = v.picklist(
  PERMISSION_STATES,
  (issue) => `expected one of ${PERMISSION_STATES.join(', ')}, ${got(issue)}`,
);

const PermissionsSchema = v.pipe(
  shapeObject(
    { accessibility: permission, screenRecording: permission, inputMonitoring: permission },
    notAnObject,
  ),
  v.transform((value): PermissionsResult => ({
    accessibility: value.accessibility,
    screenRecording: value.screenRecording,
    inputMonitoring: value.inputMonitoring,
  })),
);

const ResultObjectSchema = v.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  (issue) => notAnObject(issue.input),
);

/** Validates an `activeWindow` result (docs/helper-protocol.md §3); throws AxShapeError. */
export function parseActiveWindowResult(
  value: unknown,
  path = 'result',
): ActiveWindowResult | null {
  return parseShape(ActiveWindowSchema, value, path);
}

/** Validates a `displays` result or event list (docs/helper-protocol.md §3). */
export function parseHelperDisplays(value: unknown, path = 'result'): HelperDisplay[] {
  return parseShape(DisplaysSchema, value, path);
}

/** Validates a `permissions` result (docs/helper-protocol.md §3). */
export function parsePermissionsResult(value: unknown, path = 'result'): PermissionsResult {
  return parseShape(PermissionsSchema, value, path);
}

/** A result that must be an object (elementAt, snapshotFocusedWindow); throws AxShapeError. */
export function resultObject(value: unknown): Record<string, unknown> {
  return parseShape(ResultObjectSchema, value, 'result');
}
