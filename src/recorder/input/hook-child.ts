// The input-hook child process: the only module that loads uiohook-napi (docs/platform-linux.md §3).
// On Linux it reads the X RECORD extension itself, in plain Node (x11/record-hook.ts, §3a): the
// same events, one thread and one wake-up per batch of the server instead of two per event;
// CUA_INPUT_HOOK=uiohook brings uiohook-napi back there. Both hooks hand their events on the same
// way (enqueue below). uiohook aborts the whole process (SIGABRT, uncatchable) without
// a display or without RECORD, so no hook ever runs inside the recorder; hook-supervisor.ts starts
// it through the child launcher (src/infra/child-launcher.ts: this file through tsx from the
// sources, or its bundle out/node/hook-child.js; then `--heartbeat-ms N`) and hook-channel.ts
// reads the JSON-lines protocol of hook-protocol.ts from its stdout. Logs go to stderr only.
import { monotonicNowMs } from '../clock';
import {
  encodeEventLine,
  encodeLine,
  HOOK_DEFERRED_FLUSH_MS,
  HOOK_DEFERRED_MAX_LINES,
  HOOK_PROTOCOL_VERSION,
  UIOHOOK_EVENT_TYPES,
} from './hook-protocol';
import type { HookInputEvent, HookRequest } from './hook-protocol';
import type * as UiohookApi from 'uiohook-napi';
import { startX11RecordHook } from './x11/record-hook';
import type { X11RecordHook } from './x11/record-hook';

const DEFAULT_HEARTBEAT_MS = 250;
/** After a shutdown, give stdout this long to drain before exiting anyway (ms). */
const EXIT_DRAIN_LIMIT_MS = 2000;

// `--name N` of the command line when it is a number of ms ≥ `min`, else the default.
function msArgument(argv: readonly string[], name: string, fallback: number, min: number): number {
  const index = argv.indexOf(name);
  const value = index >= 0 ? Number(argv[index + 1]) : fallback;
  return Number.isFinite(value) && value >= min ? value : fallback;
}

/** How long moves and wheel steps may wait; `--defer-ms N` (tests widen it). */
const deferredFlushMs = msArgument(process.argv, '--defer-ms', HOOK_DEFERRED_FLUSH_MS, 0);

const heartbeatMs = msArgument(process.argv, '--heartbeat-ms', DEFAULT_HEARTBEAT_MS, 10);
/** `--rest-ms N`: a rest line once the pointer has not moved for N ms (0, the default: none). */
const restMs = msArgument(process.argv, '--rest-ms', 0, 0);

let pending: string[] = [];
let isFlushScheduled = false;
let deferredTimer: NodeJS.Timeout | null = null;
let heartbeatTimer: NodeJS.Timeout | null = null;
let lastHeartbeatAtMs = monotonicNowMs();
/** Stamp of the newest move not yet followed by a rest line (with `--rest-ms`), or null. */
let lastMoveAtMs: number | null = null;
let restTimer: NodeJS.Timeout | null = null;
let restDueAtMs = 0;
let sentEvents = 0;
let heartbeatSeq = 0;
let isStopping = false;

// Lines are queued and written once per event-loop turn: a burst of thousands of uiohook
// callbacks becomes a few large writes instead of one syscall per event. Pointer moves, wheel
// steps and releases (stamped already, and most of the traffic) wait up to
// HOOK_DEFERRED_FLUSH_MS for company (or until HOOK_DEFERRED_MAX_LINES wait), so a moving mouse
// costs both processes about five writes and reads a second instead of one per event
// (bench/recorder.ts); presses and replies are written at once, behind them; a heartbeat goes
// with moves already waiting, else at once.
function flush(): void {
  isFlushScheduled = false;
  if (deferredTimer !== null) {
    clearTimeout(deferredTimer);
    deferredTimer = null;
  }
  if (pending.length === 0) {
    return;
  }
  const chunk = pending.join('');
  pending = [];
  process.stdout.write(chunk);
  armRest();
}

// The rest line: the parent looks up the element under a pointer that stopped, before a click
// can close its window. It needs a timer that fires when moves stop, and Node wakes a process at
// a timer's first due time even when the timer was cleared or moved since (a timer re-armed per
// move costs a wake-up per period of motion: the parent's own rest timer did, 5–10 a second).
// So the timer is set where moves are written: while the pointer moves, the next deferred write
// comes before the rest is due (`--rest-ms` longer than the deferral plus a gap between moves)
// and sets it again, inside Node's own timer processing, at no cost; once moves stop, it fires
// `--rest-ms` after the last one.
function armRest(): void {
  if (lastMoveAtMs === null || isStopping) {
    return;
  }
  const dueAtMs = lastMoveAtMs + restMs;
  if (restTimer !== null) {
    if (dueAtMs === restDueAtMs) {
      return; // no move since it was set (a write of keys or a heartbeat)
    }
    clearTimeout(restTimer);
  }
  restDueAtMs = dueAtMs;
  restTimer = setTimeout(onRestTimer, Math.max(1, dueAtMs - monotonicNowMs()));
}

function onRestTimer(): void {
  restTimer = null;
  // a newer move is held for the next write, which sets the timer again
  if (lastMoveAtMs === null || monotonicNowMs() - lastMoveAtMs < restMs - 1) {
    return;
  }
  lastMoveAtMs = null;
  enqueue(encodeLine({ type: 'rest', t: monotonicNowMs() }));
}

// A move to watch for its rest (with `--rest-ms`).
function noteMove(tMs: number): void {
  if (restMs > 0) {
    lastMoveAtMs = tMs;
  }
}

// The deferral's timer: a heartbeat due before the next one could come rides along, and its own
// timer starts over. Done here, inside Node's timer processing, moving that timer costs nothing;
// so under steady motion the heartbeat timer never fires (2 wake-ups a second fewer).
function flushDeferred(): void {
  deferredTimer = null;
  if (!isStopping && monotonicNowMs() + deferredFlushMs >= lastHeartbeatAtMs + heartbeatMs) {
    pending.push(heartbeatLine());
    armHeartbeat();
  }
  flush();
}

function enqueue(line: string, canWait = false): void {
  pending.push(line);
  if (isFlushScheduled) {
    return;
  }
  if (!canWait || pending.length >= HOOK_DEFERRED_MAX_LINES) {
    isFlushScheduled = true;
    setImmediate(flush);
  } else if (deferredTimer === null) {
    deferredTimer = setTimeout(flushDeferred, deferredFlushMs);
  }
}

/** The X RECORD hook (Linux), unless CUA_INPUT_HOOK=uiohook asks for uiohook-napi. */
const isX11Record = process.platform === 'linux' && process.env.CUA_INPUT_HOOK !== 'uiohook';
let uiohook: typeof UiohookApi.uIOhook | null = null;
let x11Hook: X11RecordHook | null = null;

// liveness for the parent's watchdog, in order with the events (`sent` = event lines before it)
function heartbeatLine(): string {
  lastHeartbeatAtMs = monotonicNowMs();
  const line = encodeLine({
    type: 'heartbeat',
    t: lastHeartbeatAtMs,
    seq: heartbeatSeq,
    sent: sentEvents,
  });
  heartbeatSeq += 1;
  return line;
}

function armHeartbeat(): void {
  if (heartbeatTimer !== null) {
    clearTimeout(heartbeatTimer);
  }
  heartbeatTimer = isStopping ? null : setTimeout(onHeartbeatTimer, heartbeatMs);
}

// a heartbeat rides with moves already waiting for their write rather than writing them early
function onHeartbeatTimer(): void {
  heartbeatTimer = null;
  if (deferredTimer !== null) {
    pending.push(heartbeatLine());
  } else {
    enqueue(heartbeatLine());
  }
  armHeartbeat();
}
armHeartbeat();

function logError(message: string): void {
  process.stderr.write(`hook-child: ${message}\n`);
}

// Stops the hook (the X RECORD hook delivers what the server still holds through onX11Events
// first), then writes everything pending and the reply, and exits.
function shutdown(exitCode: number, requestId?: number | string): void {
  if (isStopping) {
    return;
  }
  isStopping = true;
  if (heartbeatTimer !== null) {
    clearTimeout(heartbeatTimer);
    heartbeatTimer = null;
  }
  if (restTimer !== null) {
    clearTimeout(restTimer);
    restTimer = null;
  }
  if (deferredTimer !== null) {
    clearTimeout(deferredTimer);
    deferredTimer = null;
  }
  void stopHook().finally(() => {
    if (requestId !== undefined) {
      pending.push(encodeLine({ id: requestId, ok: true, result: { sent: sentEvents } }));
    }
    const chunk = pending.join('');
    pending = [];
    const exit = (): void => process.exit(exitCode);
    setTimeout(exit, EXIT_DRAIN_LIMIT_MS).unref();
    process.stdout.write(chunk, exit);
  });
}

async function stopHook(): Promise<void> {
  const hook = x11Hook;
  x11Hook = null;
  if (hook !== null) {
    await hook.stop();
    return;
  }
  try {
    uiohook?.stop();
  } catch (error) {
    logError(`uIOhook.stop failed: ${String(error)}`);
  }
}

function handleRequest(text: string): void {
  let request: HookRequest;
  try {
    request = JSON.parse(text) as HookRequest;
  } catch {
    logError(`ignored a request that is not JSON: ${text.slice(0, 200)}`);
    return;
  }
  const { id, method } = request;
  if (typeof id !== 'number' && typeof id !== 'string') {
    logError(`ignored a request without an id: ${text.slice(0, 200)}`);
    return;
  }
  switch (method) {
    case 'shutdown':
      shutdown(0, id);
      return;
    case 'ping':
      enqueue(encodeLine({ id, ok: true, result: { t: monotonicNowMs(), sent: sentEvents } }));
      return;
    default:
      enqueue(
        encodeLine({
          id,
          ok: false,
          error: { code: 'UNKNOWN_METHOD', message: `unknown method ${JSON.stringify(method)}` },
        }),
      );
  }
}

// a parent that went away (EPIPE) cannot read anything more: stop quietly
process.stdout.on('error', () => shutdown(0));

let stdinBuffer = '';
function onStdin(chunk: string): void {
  stdinBuffer += chunk;
  let newline = stdinBuffer.indexOf('\n');
  while (newline >= 0) {
    const line = stdinBuffer.slice(0, newline).trim();
    stdinBuffer = stdinBuffer.slice(newline + 1);
    if (line !== '') {
      handleRequest(line);
    }
    newline = stdinBuffer.indexOf('\n');
  }
}

/** Electron's utility process: stdin comes as messages on process.parentPort (the app's
 * src/main/utility-child.ts sends `cua:stdin` with text and `cua:stdin-end`). */
type ParentPort = {
  on(event: 'message', listener: (message: { data: unknown }) => void): void;
};
const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;
if (parentPort) {
  parentPort.on('message', ({ data }) => {
    const message = data as { type?: unknown; data?: unknown } | null;
    if (message?.type === 'cua:stdin' && typeof message.data === 'string') {
      onStdin(message.data);
    } else if (message?.type === 'cua:stdin-end') {
      shutdown(0);
    }
  });
} else {
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', onStdin);
  // stdin closing is the parent's "stop" (and what happens when the parent dies)
  process.stdin.on('end', () => shutdown(0));
}
process.on('SIGTERM', () => shutdown(0));
process.on('SIGINT', () => shutdown(0));

/** Pointer moves, wheel steps and releases may wait for company (enqueue); presses may not (the
 * parent looks up the element under a click and reacts to hotkeys when they come). */
function canWait(type: number): boolean {
  return type !== UIOHOOK_EVENT_TYPES.keyPressed && type !== UIOHOOK_EVENT_TYPES.mousePressed;
}

/** X11: the events one read of the server's stream brought, stamped now (their own `time` is
 * the server's). */
function onX11Events(events: HookInputEvent[]): void {
  const tMs = monotonicNowMs();
  for (const event of events) {
    sentEvents += 1;
    if (event.type === UIOHOOK_EVENT_TYPES.mouseMoved) {
      noteMove(tMs);
    }
    enqueue(encodeEventLine(tMs, event), canWait(event.type));
  }
}

async function startHook(): Promise<string> {
  if (isX11Record) {
    x11Hook = await startX11RecordHook({
      display: process.env.DISPLAY ?? '',
      onEvents: onX11Events,
      // key presses the X server dropped (press-tally.ts): the parent warns
      onLost: (keyPresses) =>
        enqueue(encodeLine({ type: 'lost', t: monotonicNowMs(), keyPresses })),
      onFailure: (error) => {
        logError(`the X connection failed: ${error.message}`);
        x11Hook = null;
        flush();
        setTimeout(() => process.exit(2), 100).unref();
      },
    });
    return 'x11-record';
  }
  const { EventType, uIOhook } = await import('uiohook-napi');
  uiohook = uIOhook;
  uIOhook.on('input', (event) => {
    // stamp first: the session clock at the callback, before any other work
    const tMs = monotonicNowMs();
    // EVENT_MOUSE_CLICKED is derived from press/release: not forwarded
    if (isStopping || event.type === EventType.EVENT_MOUSE_CLICKED) {
      return;
    }
    sentEvents += 1;
    if (event.type === EventType.EVENT_MOUSE_MOVED) {
      noteMove(tMs);
    }
    enqueue(encodeEventLine(tMs, event), canWait(event.type));
  });
  uIOhook.start();
  return 'uiohook';
}

try {
  const source = await startHook();
  enqueue(
    encodeLine({
      type: 'hello',
      protocol: HOOK_PROTOCOL_VERSION,
      capabilities: ['mouse', 'wheel', 'keyboard', 'server-time', 'heartbeat', `source:${source}`],
      t: monotonicNowMs(),
      pid: process.pid,
    }),
  );
} catch (error) {
  logError(
    `the input hook failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(2);
}
