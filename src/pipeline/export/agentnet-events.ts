// Our raw events → AgentNet `events.jsonl` rows (docs/agentnet-raw-format.md §4).
import { msToSeconds } from '../../shared/clock';
import { EVENT_FLAGS, type RawEvent } from '../../shared/domain';
import { pyJsonDumps } from './python-json';

/** One `events.jsonl` row as written (keys in the upstream order). */
export type AgentNetEventRow = Record<string, unknown>;

function pynputKey(e: RawEvent): string | null {
  if (e.keyRaw !== null) {
    return e.keyRaw;
  }
  if (e.key === null) {
    return null;
  }
  return [...e.key].length === 1 ? `'${e.key}'` : `Key.${e.key}`;
}

/** Maps one raw event to its AgentNet row with the given running index. */
export function agentNetEventRow(e: RawEvent, eventIdx: number): AgentNetEventRow {
  const time_stamp = msToSeconds(e.tMs);
  switch (e.kind) {
    case 'move':
      return { time_stamp, action: 'move', x: e.x, y: e.y, event_idx: eventIdx };
    case 'down':
    case 'up':
      return {
        time_stamp,
        action: 'click',
        x: e.x,
        y: e.y,
        button: e.button,
        pressed: e.kind === 'down',
        event_idx: eventIdx,
      };
    case 'wheel':
      return {
        time_stamp,
        action: 'scroll',
        x: e.x,
        y: e.y,
        dx: e.dx,
        dy: e.dy,
        event_idx: eventIdx,
      };
    case 'keydown':
    case 'keyup': {
      const masked = (e.flags & EVENT_FLAGS.masked) !== 0;
      return {
        time_stamp,
        action: e.kind === 'keydown' ? 'press' : 'release',
        name: masked ? null : e.key,
        pynput_key: masked ? null : pynputKey(e),
        event_idx: eventIdx,
      };
    }
    case 'other':
      return { time_stamp, action: e.keyRaw ?? 'other', event_idx: eventIdx };
  }
}

/** Writes `events.jsonl` (ASCII-escaped, one row per event, LF) and the idx → row map. */
export function buildEventsJsonl(events: readonly RawEvent[]): {
  text: string;
  rowOfIdx: Map<number, number>;
} {
  const rowOfIdx = new Map<number, number>();
  const lines: string[] = [];
  for (const e of events) {
    if ((e.flags & EVENT_FLAGS.control) !== 0) {
      continue;
    }
    rowOfIdx.set(e.idx, lines.length);
    lines.push(pyJsonDumps(agentNetEventRow(e, lines.length), { ensureAscii: true }));
  }
  return { text: lines.length ? `${lines.join('\n')}\n` : '', rowOfIdx };
}
