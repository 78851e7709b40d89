// The JSON-lines protocol between the replay driver child (driver-child.ts, the only module that
// loads nut-js) and its parent (driver-process.ts), docs/replay.md §4. One request per line on
// the child's stdin, one response per line on its stdout, matched by `id`; logs go to stderr.

/** Mouse buttons the driver presses. */
export type DriverButton = 'left' | 'right' | 'middle';

/** A request to the driver child. */
export type DriverRequest =
  /** The screen size (physical px) and where the pointer is. */
  | { id: number; op: 'hello' }
  /** Where the pointer is. */
  | { id: number; op: 'pointer' }
  /** Grabs the screen (kept for `save`) and returns its gray thumbnail. */
  | { id: number; op: 'grab'; thumbnailWidth: number }
  /** Writes the last grabbed screen as an RGB PNG (temp file + rename). */
  | { id: number; op: 'save'; path: string }
  /** Puts the pointer at (x, y) at once. */
  | { id: number; op: 'move'; x: number; y: number }
  /** Presses (`down`) or releases a button where the pointer is. */
  | { id: number; op: 'button'; button: DriverButton; down: boolean }
  /** `count` clicks where the pointer is, as fast as the system takes them. */
  | { id: number; op: 'click'; button: DriverButton; count: number }
  /** Wheel notches where the pointer is: dy > 0 up, dx > 0 right. */
  | { id: number; op: 'scroll'; dx: number; dy: number }
  /** Types text (the layout decides shift and dead keys). */
  | { id: number; op: 'type'; text: string }
  /** Presses (`down`, in order) or releases (in reverse order) driver keys (nut-js Key names). */
  | { id: number; op: 'keys'; keys: string[]; down: boolean }
  /** Exits after answering. */
  | { id: number; op: 'quit' };

/** A request's operation. */
export type DriverOp = DriverRequest['op'];

/** A gray thumbnail on the wire: Float32 gray values, little-endian, base64. */
export type WireThumbnail = {
  width: number;
  height: number;
  sourceWidth: number;
  sourceHeight: number;
  data: string;
};

/** What each operation answers. */
export type DriverValues = {
  hello: { width: number; height: number; pointer: { x: number; y: number }; version: number };
  pointer: { x: number; y: number };
  grab: { thumbnail: WireThumbnail; grabMs: number };
  save: { bytes: number };
  move: null;
  button: null;
  click: null;
  scroll: null;
  type: null;
  keys: null;
  quit: null;
};

/** A response line. */
export type DriverResponse =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** Protocol version the child reports in `hello`. */
export const DRIVER_PROTOCOL_VERSION = 1;

/** Parses one response line; null when it is not one. */
export function parseDriverResponse(line: string): DriverResponse | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'number' || typeof v.ok !== 'boolean') {
    return null;
  }
  if (v.ok) {
    return { id: v.id, ok: true, value: v.value ?? null };
  }
  return { id: v.id, ok: false, error: typeof v.error === 'string' ? v.error : 'driver error' };
}

/** Parses one request line; throws with a reason when it is not one. */
export function parseDriverRequest(line: string): DriverRequest {
  const value = JSON.parse(line) as unknown;
  if (typeof value !== 'object' || value === null) {
    throw new Error('a request is a JSON object');
  }
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'number' || typeof v.op !== 'string') {
    throw new Error('a request has a numeric id and an op');
  }
  return v as unknown as DriverRequest;
}
