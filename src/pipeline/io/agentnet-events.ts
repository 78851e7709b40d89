// AgentNet `events.jsonl` rows (pynput callbacks) → validated RawEvents.
// docs/agentnet-raw-format.md §4
import { secondsToMs } from '../../shared/clock';
import { MOUSE_BUTTONS } from '../../shared/domain/raw-event';
import type { MouseButton, RawEvent, RawEventKind } from '../../shared/domain/raw-event';
import { importInvalid } from './import-error';
import type { SourceLocation } from './import-error';
import {
  booleanField,
  coordinateField,
  finiteNumberField,
  integerField,
  optionalStringField,
  stringField,
} from './json-fields';
import { nonBlankLines, parseJsonObject } from './json-text';

/** Name of the raw input file inside an AgentNet folder. */
export const AGENTNET_EVENTS_FILE = 'events.jsonl';

/** Warning code: an event action or mouse button we do not know; the row is kept as 'other'. */
export const WARN_UNKNOWN_EVENT = 'UNKNOWN_EVENT';

/** Parsed events plus non-fatal findings. */
export type ParsedAgentNetEvents = {
  /** One RawEvent per non-blank line, in file order. */
  events: RawEvent[];
  /** `UNKNOWN_EVENT: …` lines, one per distinct unknown action/button. */
  warnings: string[];
};

// A single printable character (letters, digits, punctuation, symbols, spaces), not a control.
const PRINTABLE_CHAR = /^\P{C}$/u;

/**
 * Parses and validates `events.jsonl` text. `event_idx` must be the 0-based running counter;
 * `pause`/`resume` and unknown actions become kind 'other' with the action name in `keyRaw`.
 */
export function parseAgentNetEvents(
  text: string,
  file: string = AGENTNET_EVENTS_FILE,
): ParsedAgentNetEvents {
  const events: RawEvent[] = [];
  const unknown = new Map<string, { count: number; line: number }>();
  for (const { line, text: lineText } of nonBlankLines(text)) {
    const loc: SourceLocation = { file, line };
    const row = parseJsonObject(file, lineText, line);
    const timeS = finiteNumberField(row, 'time_stamp', loc);
    const action = stringField(row, 'action', loc);
    const idx = integerField(row, 'event_idx', loc);
    if (idx !== events.length) {
      throw importInvalid(
        loc,
        `field "event_idx" is ${idx}, expected ${events.length} (0-based running counter)`,
      );
    }
    const event = toRawEvent(row, action, idx, secondsToMs(timeS), loc);
    if (event.kind === 'other' && action !== 'pause' && action !== 'resume') {
      const what = action === 'click' ? `click button ${String(row.button)}` : `action ${action}`;
      const seen = unknown.get(what);
      unknown.set(what, { count: (seen?.count ?? 0) + 1, line: seen?.line ?? line });
    }
    events.push(event);
  }
  const warnings = [...unknown].map(
    ([what, { count, line }]) =>
      `${WARN_UNKNOWN_EVENT}: ${file}:${line}: unknown ${what} (${count} row(s) kept as 'other')`,
  );
  return { events, warnings };
}

function baseEvent(idx: number, tMs: number, kind: RawEventKind): RawEvent {
  return {
    idx,
    tMs,
    kind,
    x: null,
    y: null,
    button: null,
    keycode: null,
    key: null,
    char: null,
    keyRaw: null,
    modifiers: 0,
    dx: null,
    dy: null,
    flags: 0,
  };
}

function toRawEvent(
  row: Record<string, unknown>,
  action: string,
  idx: number,
  tMs: number,
  loc: SourceLocation,
): RawEvent {
  switch (action) {
    case 'move':
      return {
        ...baseEvent(idx, tMs, 'move'),
        x: coordinateField(row, 'x', loc),
        y: coordinateField(row, 'y', loc),
      };
    case 'click': {
      const x = coordinateField(row, 'x', loc);
      const y = coordinateField(row, 'y', loc);
      const buttonName = stringField(row, 'button', loc);
      const isPressed = booleanField(row, 'pressed', loc);
      const button = toMouseButton(buttonName);
      if (button === null) {
        return { ...baseEvent(idx, tMs, 'other'), x, y, keyRaw: action };
      }
      return { ...baseEvent(idx, tMs, isPressed ? 'down' : 'up'), x, y, button };
    }
    case 'scroll':
      return {
        ...baseEvent(idx, tMs, 'wheel'),
        x: coordinateField(row, 'x', loc),
        y: coordinateField(row, 'y', loc),
        dx: finiteNumberField(row, 'dx', loc),
        dy: finiteNumberField(row, 'dy', loc),
      };
    case 'press':
    case 'release': {
      const name = stringField(row, 'name', loc);
      return {
        ...baseEvent(idx, tMs, action === 'press' ? 'keydown' : 'keyup'),
        key: name,
        keyRaw: optionalStringField(row, 'pynput_key', loc),
        char: PRINTABLE_CHAR.test(name) ? name : null,
      };
    }
    default:
      // pause/resume (never produced upstream) and anything unknown: kept, never fatal.
      return { ...baseEvent(idx, tMs, 'other'), keyRaw: action };
  }
}

function toMouseButton(name: string): MouseButton | null {
  return (MOUSE_BUTTONS as readonly string[]).includes(name) ? (name as MouseButton) : null;
}
