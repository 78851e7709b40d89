// Raw input events on the recording clock: the immutable capture layer.

/** Kinds of raw input event, stored as small integers in the database. */
export const RAW_EVENT_KINDS = [
  'move',
  'down',
  'up',
  'wheel',
  'keydown',
  'keyup',
  'other',
] as const;
/** One of {@link RAW_EVENT_KINDS}. */
export type RawEventKind = (typeof RAW_EVENT_KINDS)[number];

/** Mouse buttons as stored. */
export const MOUSE_BUTTONS = ['left', 'right', 'middle', 'x1', 'x2'] as const;
/** One of {@link MOUSE_BUTTONS}. */
export type MouseButton = (typeof MOUSE_BUTTONS)[number];

/** Modifier bit flags (`RawEvent.modifiers`). */
export const MODIFIER_BITS = { shift: 1, ctrl: 2, alt: 4, meta: 8 } as const;

/** Event flag bits (`RawEvent.flags`). */
export const EVENT_FLAGS = {
  /** Characters were masked at capture (secure text field focused). */
  masked: 1,
  /** Belongs to the recorder's own hotkeys/UI; never part of a step. */
  control: 2,
  /** OS auto-repeat. */
  repeat: 4,
} as const;

/** One raw input event. Coordinates are in the recording's screen space (physical px). */
export type RawEvent = {
  /** 0-based order within the recording. */
  idx: number;
  /** Recording clock, milliseconds (float). */
  tMs: number;
  kind: RawEventKind;
  x: number | null;
  y: number | null;
  button: MouseButton | null;
  /** Platform-neutral key code, when known. */
  keycode: number | null;
  /** Key name (AgentNet/pynput name on import, our normalised name when recorded). */
  key: string | null;
  /** Layout-resolved character, when known. */
  char: string | null;
  /** Source-specific raw key text (AgentNet `pynput_key`), kept for faithful re-export. */
  keyRaw: string | null;
  /** {@link MODIFIER_BITS} held at the event. */
  modifiers: number;
  /** Wheel notches; dy > 0 = up/away, dx > 0 = right. */
  dx: number | null;
  dy: number | null;
  /** {@link EVENT_FLAGS}. */
  flags: number;
};

/** Counts of raw events as reported by `show`. */
export type EventCounts = {
  total: number;
  move: number;
  /** Button presses + releases. */
  button: number;
  /** Wheel ticks. */
  scroll: number;
  /** Key downs + ups. */
  key: number;
  other: number;
  byKind: Record<RawEventKind, number>;
};
