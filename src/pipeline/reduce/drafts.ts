// Steps under construction: what the event pass records before descriptions and calls are built.
import { secondsToMs } from '../../shared/clock';
import type { ActionCall } from '../../shared/domain/action';
import type { MouseButton } from '../../shared/domain/raw-event';
import type { ModifierName } from './key-names';
import type { ReduceDiagnosticCode } from './types';

/** A time on the recording clock: float64 seconds (for arithmetic) and the exact ms value. */
export type Stamp = {
  /** Seconds, computed with the same float operations as upstream. */
  s: number;
  /** Milliseconds: the event's own `tMs`; null for computed times (see `stampMs`). */
  ms: number | null;
};

// The stamp in ms: the event's own value, or the decimal-exact conversion of a computed time
// (deferred to step building: most computed ends are overwritten by later keys and ticks).
export function stampMs(stamp: Stamp): number {
  return stamp.ms ?? secondsToMs(stamp.s);
}

/** A finding attached to a draft (and to the result's diagnostics). */
export type DraftDiagnostic = {
  code: ReduceDiagnosticCode;
  /** Event position (index into the ordered event array). */
  pos: number;
  detail?: string;
};

/** Fields every draft has. */
export type DraftBaseFields = {
  /** Creation order (unique). */
  seq: number;
  /** Owned non-move events (positions), in arrival order. */
  main: number[];
  /** Moves owned while a button was held (positions). */
  hold: number[];
  /** Modifiers held at the main action, canonical order. */
  modifiers: ModifierName[];
  diagnostics: DraftDiagnostic[];
  /** Set when this draft was folded into another one (a multi-click group). */
  mergedInto: Draft | null;
  start: Stamp;
  end: Stamp;
};

/** One press/release pair. */
export type PressDraft = {
  downPos: number;
  upPos: number | null;
  x: number;
  y: number;
  upX: number;
  upY: number;
  start: Stamp;
  end: Stamp;
};

/** A click, multi-click group, long press or drag of one button. */
export type PointerDraft = DraftBaseFields & {
  type: 'pointer';
  button: MouseButton;
  shape: 'click' | 'long' | 'drag';
  presses: PressDraft[];
};

/** A scroll group (one direction). */
export type ScrollDraft = DraftBaseFields & {
  type: 'scroll';
  /** Sign of dx / dy shared by every tick. */
  dirX: number;
  dirY: number;
  /** Tick positions. */
  ticks: number[];
  /** Time of the last tick. */
  lastTick: Stamp;
  /** Interrupt serial at the last tick (a later non-wheel input closes the group). */
  serial: number;
};

/** One keystroke of a keyboard step. */
export type StrokeDraft = {
  pos: number;
  key: string;
  rawKey: string;
  text: string;
  /** False for names outside the key table (KEY_UNKNOWN). */
  isKnown: boolean;
  isRepeat: boolean;
};

/** A keyboard run: text keys and named keys (→ write/press calls). */
export type RunDraft = DraftBaseFields & {
  type: 'run';
  strokes: StrokeDraft[];
  /** Calls flushed so far. */
  calls: ActionCall[];
  /** The write message being built. */
  text: string;
};

/** A hotkey: one chord key-down (plus its auto-repeats) with the modifiers held. */
export type HotkeyDraft = DraftBaseFields & {
  type: 'hotkey';
  keys: string[];
  /** Identity of the chord key (for repeats and the key-up). */
  identity: string;
  strokes: StrokeDraft[];
  /** Number of hotkey calls (1 + auto-repeats). */
  count: number;
};

/** A lone win/alt tap (→ press([key])). */
export type TapDraft = DraftBaseFields & {
  type: 'tap';
  key: 'win' | 'alt';
  strokes: StrokeDraft[];
};

/** Any step under construction. */
export type Draft = PointerDraft | ScrollDraft | RunDraft | HotkeyDraft | TapDraft;

// Drafts are built as full object literals: object spread is an order of magnitude slower.

// A new press/multi-click draft of `button`.
export function createPointerDraft(seq: number, start: Stamp, button: MouseButton): PointerDraft {
  return {
    type: 'pointer',
    seq,
    main: [],
    hold: [],
    modifiers: [],
    diagnostics: [],
    mergedInto: null,
    start,
    end: start,
    button,
    shape: 'click',
    presses: [],
  };
}

// A new scroll group in direction (dirX, dirY).
export function createScrollDraft(
  seq: number,
  start: Stamp,
  dirX: number,
  dirY: number,
  serial: number,
): ScrollDraft {
  return {
    type: 'scroll',
    seq,
    main: [],
    hold: [],
    modifiers: [],
    diagnostics: [],
    mergedInto: null,
    start,
    end: start,
    dirX,
    dirY,
    ticks: [],
    lastTick: start,
    serial,
  };
}

// A new keyboard run.
export function createRunDraft(seq: number, start: Stamp): RunDraft {
  return {
    type: 'run',
    seq,
    main: [],
    hold: [],
    modifiers: [],
    diagnostics: [],
    mergedInto: null,
    start,
    end: start,
    strokes: [],
    calls: [],
    text: '',
  };
}

// A new hotkey of `keys` (modifiers first) for the chord key `identity`.
export function createHotkeyDraft(
  seq: number,
  start: Stamp,
  end: Stamp,
  keys: string[],
  modifiers: ModifierName[],
  identity: string,
  stroke: StrokeDraft,
): HotkeyDraft {
  return {
    type: 'hotkey',
    seq,
    main: [],
    hold: [],
    modifiers,
    diagnostics: [],
    mergedInto: null,
    start,
    end,
    keys,
    identity,
    strokes: [stroke],
    count: 1,
  };
}

// A new lone win/alt tap.
export function createTapDraft(
  seq: number,
  start: Stamp,
  end: Stamp,
  key: 'win' | 'alt',
  stroke: StrokeDraft,
): TapDraft {
  return {
    type: 'tap',
    seq,
    main: [],
    hold: [],
    modifiers: [],
    diagnostics: [],
    mergedInto: null,
    start,
    end,
    key,
    strokes: [stroke],
  };
}

// Follows multi-click merges to the draft that survives.
export function resolveDraft(draft: Draft): Draft {
  let current = draft;
  while (current.mergedInto !== null) {
    current = current.mergedInto;
  }
  return current;
}
