// Pass 0: order, clock conversion, key normalisation and the control/unsupported filters.
// docs/action-reduction.md §C.1, §C.3
import type { RawEvent } from '../../shared/domain/raw-event';
import { EVENT_FLAGS } from '../../shared/domain/raw-event';
import { msToSecondsFast } from './clock-fast';
import type { NormalizedKey } from './key-names';
import { normalizeKeyName } from './key-names';
import type { ReduceContext, ReduceDiagnostic, UnownedReason } from './types';

const UNOWNED_REASONS: readonly UnownedReason[] = [
  'control-input',
  'orphan-release',
  'unsupported-kind',
  'zero-wheel',
  'lone-modifier-tap',
  'trailing-move',
];

/** Unowned verdicts per event position, stored compactly (one byte per event). */
export class UnownedMarks {
  private readonly codes: Uint8Array;

  constructor(count: number) {
    this.codes = new Uint8Array(count);
  }

  /** Number of positions. */
  get length(): number {
    return this.codes.length;
  }

  /** True when the event at `pos` is unowned. */
  has(pos: number): boolean {
    return this.codes[pos] !== 0;
  }

  /** The reason of the event at `pos`, null when it is not unowned. */
  get(pos: number): UnownedReason | null {
    const code = this.codes[pos] ?? 0;
    return code === 0 ? null : (UNOWNED_REASONS[code - 1] ?? null);
  }

  /** Marks the event at `pos` unowned. */
  set(pos: number, reason: UnownedReason): void {
    this.codes[pos] = UNOWNED_REASONS.indexOf(reason) + 1;
  }
}

/** Events in processing order with per-position derived data. */
export type PreparedEvents = {
  /** Events sorted by idx. */
  events: readonly RawEvent[];
  /** Recording clock in seconds per position (decimal-exact conversion of `tMs`). */
  tS: Float64Array;
  /** Normalised key per position (key events only). */
  keys: (NormalizedKey | null)[];
  /** Unowned verdicts per position (pass-0 ones make events invisible to the later passes). */
  unowned: UnownedMarks;
  /** CLOCK_NON_MONOTONIC findings. */
  diagnostics: ReduceDiagnostic[];
};

function sortedByIdx(events: readonly RawEvent[]): readonly RawEvent[] {
  for (let i = 1; i < events.length; i += 1) {
    if ((events[i]?.idx ?? 0) < (events[i - 1]?.idx ?? 0)) {
      return [...events].sort((a, b) => a.idx - b.idx);
    }
  }
  return events;
}

function isKeyEvent(event: RawEvent): boolean {
  return event.kind === 'keydown' || event.kind === 'keyup';
}

/** Keys of the AgentNet stop hotkey `CommandOrControl+Alt+T`. */
function stopChordRole(key: NormalizedKey | null): 'mod' | 'alt' | 't' | null {
  if (key === null) {
    return null;
  }
  if (key.name === 'ctrl' || key.name === 'cmd') {
    return 'mod';
  }
  if (key.name === 'alt') {
    return 'alt';
  }
  return key.name === 't' || key.name === 'T' ? 't' : null;
}

// §C.3.3: the trailing non-move key events that form ctrl/cmd + alt + t become control input.
function markAgentNetStopChord(prepared: PreparedEvents): void {
  const { events, keys, unowned } = prepared;
  const suffix: number[] = [];
  for (let pos = events.length - 1; pos >= 0; pos -= 1) {
    const event = events[pos];
    if (event === undefined || event.kind === 'move' || unowned.has(pos)) {
      continue;
    }
    if (!isKeyEvent(event) || stopChordRole(keys[pos] ?? null) === null) {
      break;
    }
    suffix.push(pos);
  }
  suffix.reverse();
  const downs = suffix.filter((pos) => events[pos]?.kind === 'keydown');
  const lastT = [...downs].reverse().find((pos) => stopChordRole(keys[pos] ?? null) === 't');
  if (lastT === undefined) {
    return;
  }
  const before = downs.filter((pos) => pos < lastT);
  const modDown = before.filter((pos) => stopChordRole(keys[pos] ?? null) === 'mod').pop();
  const altDown = before.filter((pos) => stopChordRole(keys[pos] ?? null) === 'alt').pop();
  if (modDown === undefined || altDown === undefined) {
    return;
  }
  const start = Math.min(modDown, altDown);
  for (const pos of suffix) {
    if (pos >= start) {
      unowned.set(pos, 'control-input');
    }
  }
}

// Orders the events, converts times, normalises keys and applies the pass-0 filters.
export function prepareEvents(input: readonly RawEvent[], context: ReduceContext): PreparedEvents {
  const events = sortedByIdx(input);
  const count = events.length;
  const tS = new Float64Array(count);
  // Filled by push: a preallocated `new Array(n)` of a million entries is a slow dictionary.
  const keys: (NormalizedKey | null)[] = [];
  const unowned = new UnownedMarks(count);
  const diagnostics: ReduceDiagnostic[] = [];
  const keyCache = new Map<string, NormalizedKey>();
  let previousS = -Infinity;
  for (let pos = 0; pos < count; pos += 1) {
    const event = events[pos] as RawEvent;
    const seconds = msToSecondsFast(event.tMs);
    tS[pos] = seconds;
    if (seconds < previousS) {
      diagnostics.push({
        code: 'CLOCK_NON_MONOTONIC',
        idx: event.idx,
        detail: `t ${seconds} s is before the previous event's ${previousS} s`,
      });
    }
    previousS = seconds;
    let key: NormalizedKey | null = null;
    if (isKeyEvent(event)) {
      const raw = event.key ?? event.keyRaw ?? '';
      key = keyCache.get(raw) ?? null;
      if (key === null) {
        key = normalizeKeyName(raw, context.platform);
        keyCache.set(raw, key);
      }
    }
    keys.push(key);
    if ((event.flags & EVENT_FLAGS.control) !== 0) {
      unowned.set(pos, 'control-input');
    } else if (event.kind === 'other') {
      unowned.set(pos, 'unsupported-kind');
    }
  }
  const prepared: PreparedEvents = { events, tS, keys, unowned, diagnostics };
  if (context.source === 'agentnet') {
    markAgentNetStopChord(prepared);
  }
  return prepared;
}
