// The input hook on X11 without native code (docs/platform-linux.md §3a): two plain-Node X
// connections (x11-connection.ts) — a control one that creates a RECORD context for the core
// device events (KeyPress…MotionNotify) of all clients, and a data one that enables it and then
// receives the server's batches as they come (a socket left unread while input floods in drops
// events in the server: platform-linux.md §3a) — and hands on what each read of the socket
// brought, in one call. One thread and one wake-up per batch of the server (or per READ_PACE_MS
// while input comes faster: read-pacer.ts), where uiohook-napi wakes its hook thread and then the
// JS thread for every event (bench/recorder.ts); when to write them on is the child's choice
// (hook-child.ts). Events keep the X server's own time stamps. Stopping disables the context and
// waits for the server's EndOfData, so every event the server recorded is delivered.
import { monotonicNowMs } from '../../clock';
import type { HookInputEvent } from '../hook-protocol';
import { PressTally } from './press-tally';
import { ReadPacer } from './read-pacer';
import { vcOfKeycode, RecordTranslator } from './record-translator';
import { X11Connection } from './x11-connection';

/** Options of {@link startX11RecordHook}. */
export type X11RecordHookOptions = {
  /** DISPLAY value. */
  display: string;
  env?: NodeJS.ProcessEnv;
  /** The events one read of the socket brought, in order (not called for a read without any). */
  onEvents: (events: HookInputEvent[]) => void;
  /** The X server went away or refused the RECORD context (not called after `stop`). */
  onFailure: (error: Error) => void;
  /**
   * Key presses the X server dropped from the RECORD stream, found by comparing it with the
   * XInput2 raw key presses (press-tally.ts); called when a loss is found, with its size.
   */
  onLost?: (keyPresses: number) => void;
};

/** A running hook. */
export type X11RecordHook = {
  /** Disables the context, delivers what the server still held, closes both connections. */
  stop(timeoutMs?: number): Promise<void>;
  /** XInput2 raw key presses seen (the cross-check's count), or null without XInput 2. */
  readonly rawKeyPresses: number | null;
};

const X_QUERY_EXTENSION = 98;
const X_GET_PROPERTY = 20;
const X_QUERY_KEYMAP = 44;
const X_GET_POINTER_MAPPING = 117;
const X_GET_MODIFIER_MAPPING = 119;
const RECORD_QUERY_VERSION = 0;
const RECORD_CREATE_CONTEXT = 1;
const RECORD_ENABLE_CONTEXT = 5;
const RECORD_DISABLE_CONTEXT = 6;
const RECORD_FREE_CONTEXT = 7;
const RECORD_ALL_CLIENTS = 3;
const CATEGORY_FROM_SERVER = 0;
const CATEGORY_END_OF_DATA = 5;
const ATOM_RESOURCE_MANAGER = 23;
const ATOM_STRING = 31;
const MAPPING_MODIFIER = 0;
const MAPPING_POINTER = 2;
const MAPPING_NOTIFY = 34;
const DEFAULT_MULTI_CLICK_MS = 200;
const DEFAULT_NUM_LOCK_MASK = 0x10;
const X_KEY_PRESS = 2;
const GENERIC_EVENT = 35;
const XI_QUERY_VERSION = 47;
const XI_SELECT_EVENTS = 46;
const XI_ALL_MASTER_DEVICES = 1;
const XI_RAW_KEY_PRESS = 13;
const XI_KEY_REPEAT = 1 << 16;
/** How long a loss may grow (found over several reads) before it is reported as one, ms. */
const LOST_REPORT_MS = 1000;

/**
 * Selects XInput2 raw key presses of every master device on the root window (their events
 * reach `connection.onEvent`); resolves with XInput's major opcode, or null when the server has
 * no XInput 2.
 */
async function selectRawKeyPresses(connection: X11Connection): Promise<number | null> {
  const name = Buffer.from('XInputExtension', 'latin1');
  const query = Buffer.alloc(4 + name.length);
  query.writeUInt16LE(name.length, 0);
  name.copy(query, 4);
  const reply = await connection.request(X_QUERY_EXTENSION, 0, query, true);
  if (reply[8] !== 1) {
    return null;
  }
  const opcode = reply[9]!;
  const version = Buffer.alloc(4);
  version.writeUInt16LE(2, 0);
  version.writeUInt16LE(2, 2);
  const answer = await connection.request(opcode, XI_QUERY_VERSION, version, true);
  if (answer.readUInt16LE(8) < 2) {
    return null;
  }
  const select = Buffer.alloc(16);
  select.writeUInt32LE(connection.info.root, 0);
  select.writeUInt16LE(1, 4); // one mask
  select.writeUInt16LE(XI_ALL_MASTER_DEVICES, 8);
  select.writeUInt16LE(1, 10); // mask length in 4-byte units
  select.writeUInt32LE(1 << XI_RAW_KEY_PRESS, 12);
  connection.request(opcode, XI_SELECT_EVENTS, select, false);
  // a round trip: the selection holds (or its error came) before presses are compared
  await connection.request(opcode, XI_QUERY_VERSION, version, true);
  return opcode;
}

/** The major opcode of RECORD; throws a clear error when the server lacks it. */
async function recordOpcode(connection: X11Connection): Promise<number> {
  const name = Buffer.from('RECORD', 'latin1');
  const body = Buffer.alloc(4 + name.length);
  body.writeUInt16LE(name.length, 0);
  name.copy(body, 4);
  const reply = await connection.request(X_QUERY_EXTENSION, 0, body, true);
  if (reply[8] !== 1) {
    throw new Error('the X server has no RECORD extension (Xorg and Xvfb load it by default)');
  }
  return reply[9]!;
}

async function pointerMap(connection: X11Connection): Promise<number[]> {
  const reply = await connection.request(X_GET_POINTER_MAPPING, 0, Buffer.alloc(0), true);
  return [...reply.subarray(32, 32 + reply[1]!)];
}

// the modifier bit holding the Num Lock key (keycode found through its VC code)
async function numLockMask(connection: X11Connection): Promise<number> {
  const reply = await connection.request(X_GET_MODIFIER_MAPPING, 0, Buffer.alloc(0), true);
  const perModifier = reply[1]!;
  for (let modifier = 0; modifier < 8; modifier += 1) {
    for (let i = 0; i < perModifier; i += 1) {
      const keycode = reply[32 + modifier * perModifier + i]!;
      if (keycode !== 0 && vcOfKeycode(keycode) === 0x0045) {
        return 1 << modifier;
      }
    }
  }
  return DEFAULT_NUM_LOCK_MASK;
}

/** `*multiClickTime` from the root window's RESOURCE_MANAGER, as Xt reads it; else 200 ms. */
export function multiClickFromResources(resources: string): number {
  const match = /^\*\.?multiClickTime:\s*(\d+)/im.exec(resources);
  const value = match ? Number(match[1]) : NaN;
  return Number.isFinite(value) && value >= 0 ? value : DEFAULT_MULTI_CLICK_MS;
}

async function multiClickMs(connection: X11Connection): Promise<number> {
  const body = Buffer.alloc(20);
  body.writeUInt32LE(connection.info.root, 0);
  body.writeUInt32LE(ATOM_RESOURCE_MANAGER, 4);
  body.writeUInt32LE(ATOM_STRING, 8);
  body.writeUInt32LE(0, 12);
  body.writeUInt32LE(16384, 16);
  const reply = await connection.request(X_GET_PROPERTY, 0, body, true);
  const length = reply.readUInt32LE(16);
  return multiClickFromResources(reply.subarray(32, 32 + length).toString('latin1'));
}

function createContextBody(context: number): Buffer {
  const body = Buffer.alloc(44);
  body.writeUInt32LE(context, 0);
  body.writeUInt8(0, 4); // element header: no per-element times or sequence numbers
  body.writeUInt32LE(1, 8); // one client spec
  body.writeUInt32LE(1, 12); // one range
  body.writeUInt32LE(RECORD_ALL_CLIENTS, 16);
  // RECORDRANGE (24 bytes) at 20: device-events at offset 18 of the range
  body.writeUInt8(2, 20 + 18); // KeyPress
  body.writeUInt8(6, 20 + 19); // MotionNotify
  return body;
}

/** Connects twice, creates and enables the RECORD context; resolves once events flow. */
export async function startX11RecordHook(options: X11RecordHookOptions): Promise<X11RecordHook> {
  const env = options.env ?? process.env;
  if (options.display.trim() === '') {
    throw new Error('DISPLAY is not set: input capture needs an X11 display');
  }
  const control = await X11Connection.open(options.display, env);
  let data: X11Connection | null = null;
  try {
    const opcode = await recordOpcode(control);
    const version = Buffer.alloc(4);
    version.writeUInt16LE(1, 0);
    version.writeUInt16LE(13, 2);
    await control.request(opcode, RECORD_QUERY_VERSION, version, true);
    const [map, numLock, multiClick, keymap] = await Promise.all([
      pointerMap(control),
      numLockMask(control),
      multiClickMs(control).catch(() => DEFAULT_MULTI_CLICK_MS),
      control.request(X_QUERY_KEYMAP, 0, Buffer.alloc(0), true),
    ]);
    const translator = new RecordTranslator({
      pointerMap: map,
      numLockMask: numLock,
      multiClickMs: multiClick,
    });
    translator.seedHeldKeys(keymap.subarray(8, 40));
    const context = control.newId(1);
    control.request(opcode, RECORD_CREATE_CONTEXT, createContextBody(context), false);
    // a round trip: the context exists (or the error arrived) before the data side enables it
    await control.request(opcode, RECORD_QUERY_VERSION, version, true);

    // a remapped pointer or keyboard reaches every client as MappingNotify
    const refresh = async (which: number): Promise<void> => {
      try {
        if (which === MAPPING_POINTER) {
          translator.update({ pointerMap: await pointerMap(control) });
        } else if (which === MAPPING_MODIFIER) {
          translator.update({ numLockMask: await numLockMask(control) });
        }
      } catch {
        // the connection is going away: its close is reported on its own
      }
    };
    // key presses counted in the RECORD stream and as XInput2 raw events (press-tally.ts)
    const tally = new PressTally();
    let xiOpcode: number | null = null;
    control.onEvent((event) => {
      const type = event[0]! & 0x7f;
      if (type === MAPPING_NOTIFY) {
        void refresh(event[4]!);
      } else if (
        type === GENERIC_EVENT &&
        event[1] === xiOpcode &&
        event.length >= 28 &&
        event.readUInt16LE(8) === XI_RAW_KEY_PRESS &&
        (event.readUInt32LE(24) & XI_KEY_REPEAT) === 0
      ) {
        tally.addRaw(event.readUInt32LE(12));
      }
    });
    // a loss found over several reads is reported once, LOST_REPORT_MS after its first part
    let lostPending = 0;
    let lostTimer: NodeJS.Timeout | null = null;
    const emitLost = (): void => {
      if (lostTimer !== null) {
        clearTimeout(lostTimer);
        lostTimer = null;
      }
      const lost = lostPending;
      lostPending = 0;
      if (lost > 0) {
        options.onLost?.(lost);
      }
    };
    const reportLost = (isFinal: boolean): void => {
      lostPending += xiOpcode === null ? 0 : tally.settle(isFinal);
      if (isFinal) {
        emitLost();
      } else if (lostPending > 0) {
        lostTimer ??= setTimeout(emitLost, LOST_REPORT_MS);
      }
    };

    const dataConnection = await X11Connection.open(options.display, env);
    data = dataConnection;
    let isStopping = false;
    let hasFailed = false;
    // both connections end when the server does: one report
    const failed = (error: Error | null): void => {
      if (!isStopping && !hasFailed) {
        hasFailed = true;
        options.onFailure(error ?? new Error('the X server closed the connection'));
      }
    };
    let endOfData: (() => void) | null = null;
    let batch: HookInputEvent[] = [];
    // fast input is read once per READ_PACE_MS instead of once per event (read-pacer.ts): the
    // socket is paused and read by a timer, without the event loop watching it in between
    const pacer = new ReadPacer();
    let pacedTimer: NodeJS.Timeout | null = null;
    const deliver = (): void => {
      const count = batch.length;
      if (count > 0) {
        const events = batch;
        batch = [];
        options.onEvents(events);
        reportLost(false);
      }
      const waitMs = isStopping ? 0 : pacer.afterRead(monotonicNowMs(), count);
      if (waitMs > 0) {
        if (!dataConnection.isReadingPaused) {
          dataConnection.pauseReading();
        }
        pacedTimer ??= setTimeout(readPaced, waitMs);
      } else if (dataConnection.isReadingPaused) {
        dataConnection.resumeReading();
      }
    };
    const readPaced = (): void => {
      pacedTimer = null;
      if (!dataConnection.isReadingPaused) {
        return;
      }
      // what waited comes through deliver (onReceived); nothing: deliver decides with none
      if (dataConnection.readWaiting() === 0) {
        deliver();
      }
    };
    const started = new Promise<void>((resolve, reject) => {
      const enable = Buffer.alloc(4);
      enable.writeUInt32LE(context, 0);
      let isStarted = false;
      dataConnection.stream(opcode, RECORD_ENABLE_CONTEXT, enable, (reply) => {
        if (!isStarted) {
          // the first reply is StartOfData
          isStarted = true;
          resolve();
        }
        const category = reply[1]!;
        if (category === CATEGORY_FROM_SERVER) {
          for (let at = 32; at + 32 <= reply.length; at += 32) {
            if ((reply[at]! & 0x7f) === X_KEY_PRESS) {
              tally.addRecorded(reply.readUInt32LE(at + 4));
            }
            const event = translator.translate(reply, at);
            if (event) {
              batch.push(event);
            }
          }
        } else if (category === CATEGORY_END_OF_DATA) {
          endOfData?.();
        }
      });
      dataConnection.onReceived(deliver);
      dataConnection.onClose((error) => {
        if (!isStarted) {
          reject(error ?? new Error('the X server closed the connection'));
        } else {
          failed(error);
        }
      });
    });
    control.onClose(failed);
    await started;
    try {
      xiOpcode = await selectRawKeyPresses(control);
    } catch {
      xiOpcode = null; // no cross-check without XInput 2
    }

    return {
      get rawKeyPresses(): number | null {
        return xiOpcode === null ? null : tally.rawPresses;
      },
      async stop(timeoutMs = 2000): Promise<void> {
        if (isStopping) {
          return;
        }
        isStopping = true;
        if (pacedTimer !== null) {
          clearTimeout(pacedTimer);
          pacedTimer = null;
        }
        dataConnection.resumeReading();
        const ended = new Promise<void>((resolve) => {
          endOfData = resolve;
          setTimeout(resolve, timeoutMs).unref();
        });
        try {
          const body = Buffer.alloc(4);
          body.writeUInt32LE(context, 0);
          control.request(opcode, RECORD_DISABLE_CONTEXT, body, false);
          await ended;
          control.request(opcode, RECORD_FREE_CONTEXT, body, false);
          // a round trip: every raw press sent before it has come too
          await control.request(opcode, RECORD_QUERY_VERSION, version, true);
        } catch {
          // the server is gone: nothing more can arrive
        }
        deliver();
        reportLost(true);
        dataConnection.close();
        control.close();
      },
    };
  } catch (error) {
    data?.close();
    control.close();
    throw error;
  }
}
