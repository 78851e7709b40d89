// The window under the mouse pointer on X11 (docs/privacy.md §2): a click or wheel step counts as
// aimed at that window, not at the focused one. `xdotool getmouselocation --shell` names the
// top-level window under the pointer (openbox's frame), `xwininfo -tree` on it finds the client
// inside with its title and WM_CLASS; its pid (for the process name) comes from `xprop`. The
// lookup asks the same over one X connection kept open between clicks (x11-pointer-query.ts):
// the three processes cost about 0.2× of ffmpeg's CPU at 1.5 clicks a second. When that
// connection cannot be opened, the three tools are run as before.
import { runCommand } from '../../infra/run-command';
import { X11Connection } from '../input/x11/x11-connection';
import type { WindowBounds } from '../windows/x11-props';
import { parseXpropOutput, xpropCardinal } from '../windows/x11-props';
import type { WindowIdentity } from './exclusion';
import {
  internPointerQueryAtoms,
  queryPointerWindow,
  type PointerQueryAtoms,
} from './x11-pointer-query';

/** A window found under the pointer. */
export type PointedWindow = WindowIdentity & {
  /** X window id in lowercase hex (`0x400003`), as the active-window timeline has it. */
  windowId: string;
  /** Client-area rectangle in screen px. */
  bounds: WindowBounds;
  pid: number | null;
};

/** Looks up the window under the pointer now; null when none is known (the root, a popup). */
export type PointerWindowLookup = () => Promise<PointedWindow | null>;

/** The window id xdotool prints (`WINDOW=2097761`), as lowercase hex; null when absent. */
export function parseMouseLocationWindow(text: string): string | null {
  const m = /^WINDOW=(\d+)\s*$/m.exec(text);
  return m?.[1] === undefined ? null : `0x${Number.parseInt(m[1], 10).toString(16)}`;
}

// One `xwininfo -tree` child line of a client:
//   0x400003 "CUA Test Form": ("gtk-form.py" "Gtk-form.py")  420x460+1+20  +101+120
const CLIENT_LINE =
  /^\s*(0x[0-9a-f]+) (?:"((?:[^"\\]|\\.)*)"|\(has no name\)): \("((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"\)\s+(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+?(-?\d+)\+?(-?\d+)/im;

/** Whether `xwininfo -tree` output describes the root window (`… (the root window) …`). */
export function isRootTree(text: string): boolean {
  return /^xwininfo: Window id: 0x[0-9a-f]+ \(the root window\)/im.test(text);
}

/** The first client window (one with a WM_CLASS) in `xwininfo -tree` output, or null. */
export function parseTreeClient(text: string): Omit<PointedWindow, 'pid' | 'processName'> | null {
  const m = CLIENT_LINE.exec(text);
  if (!m) {
    return null;
  }
  const [, id = '', title, instance = '', cls = '', w = '0', h = '0', x = '0', y = '0'] = m;
  return {
    windowId: id.toLowerCase(),
    title: title ?? null,
    app: cls || null,
    appInstance: instance || null,
    bounds: {
      x: Number.parseInt(x, 10),
      y: Number.parseInt(y, 10),
      width: Number.parseInt(w, 10),
      height: Number.parseInt(h, 10),
    },
  };
}

/** Options of {@link x11PointerWindow}. */
export type X11PointerWindowOptions = {
  env: NodeJS.ProcessEnv;
  /** Limit per command, ms; default 1 000. Over the X connection: per lookup, three times it
   * (the three commands'), then null and a new connection at the next lookup. */
  timeoutMs?: number;
  /** Ask with the three processes only (the comparison of tests); default false. */
  isProcessOnly?: boolean;
  /** The connection closes after this long without a lookup, ms; default 30 000. */
  idleCloseMs?: number;
  xdotoolPath?: string;
  xwininfoPath?: string;
  xpropPath?: string;
};

/** Default idle time before the lookup's X connection closes, ms. */
export const POINTER_CONNECTION_IDLE_MS = 30_000;

/**
 * The X11 lookup of the window under the pointer, over one X connection (opened at the first
 * lookup, closed after a while without one). Where that connection cannot be opened, the X tools
 * answer: then it throws COMMAND_NOT_FOUND when xdotool is missing (the caller judges clicks by
 * the focused window). Null when the pointer is over no client window (the desktop, an
 * override-redirect popup).
 */
export function x11PointerWindow(options: X11PointerWindowOptions): PointerWindowLookup {
  const processLookup = processPointerWindow(options);
  if (options.isProcessOnly) {
    return processLookup;
  }
  const timeoutMs = options.timeoutMs ?? 1000;
  const idleCloseMs = options.idleCloseMs ?? POINTER_CONNECTION_IDLE_MS;
  // the connection being opened or open; null: none (the next lookup opens one)
  let opening: Promise<OpenConnection | null> | null = null;
  let idleTimer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<OpenConnection | null> => {
    const display = options.env.DISPLAY;
    if (!display) {
      return null;
    }
    let connection: X11Connection | null = null;
    try {
      connection = await X11Connection.open(display, options.env, timeoutMs);
      // kept between clicks, but never the reason the process stays alive
      connection.unref();
      const atoms = await withTimeout(internPointerQueryAtoms(connection), timeoutMs);
      if (atoms === TIMED_OUT) {
        connection.close();
        return null;
      }
      return { connection, atoms };
    } catch {
      connection?.close();
      return null;
    }
  };

  return async () => {
    clearTimeout(idleTimer);
    let pending = (opening ??= connect());
    let open = await pending;
    if (open !== null && open.connection.isEnded) {
      // the server closed it since the last lookup: open another
      if (opening === pending) {
        opening = null;
      }
      pending = opening ??= connect();
      open = await pending;
    }
    if (open === null) {
      if (opening === pending) {
        opening = null; // a connection is tried again at the next lookup
      }
      return processLookup();
    }
    const answer = await withTimeout(
      queryPointerWindow(open.connection, open.atoms),
      3 * timeoutMs,
    );
    const close = (): void => {
      open.connection.close();
      if (opening === pending) {
        opening = null;
      }
    };
    if (answer === TIMED_OUT) {
      close(); // a late reply must not be taken for the answer to a later request
      return null;
    }
    clearTimeout(idleTimer); // another lookup may have ended meanwhile
    idleTimer = setTimeout(close, idleCloseMs);
    idleTimer.unref();
    return answer;
  };
}

type OpenConnection = { connection: X11Connection; atoms: PointerQueryAtoms };

const TIMED_OUT = Symbol('timed out');

// `promise`'s value, or TIMED_OUT when it takes longer than `timeoutMs`.
async function withTimeout<T>(
  promise: Promise<T>,
  timeoutMs: number,
): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// The lookup with the X tools, one process per step.
function processPointerWindow(options: X11PointerWindowOptions): PointerWindowLookup {
  const env = { ...options.env, LC_ALL: 'C.UTF-8' };
  const timeoutMs = options.timeoutMs ?? 1000;
  const run = async (command: string, args: string[]): Promise<string | null> => {
    const r = await runCommand(command, args, { env, timeoutMs, maxStdoutBytes: 1024 * 1024 });
    return r.code === 0 && !r.isTimedOut && !r.isStdoutTruncated ? r.stdout : null;
  };
  return async () => {
    const location = await run(options.xdotoolPath ?? 'xdotool', ['getmouselocation', '--shell']);
    const top = location === null ? null : parseMouseLocationWindow(location);
    if (top === null) {
      return null;
    }
    const tree = await run(options.xwininfoPath ?? 'xwininfo', ['-tree', '-id', top]);
    // a window without a frame (an override-redirect popup) lists no client, and over the bare
    // desktop xdotool names the root, whose tree lists every client: null either way, and the
    // caller judges the click by the focused window
    const client = tree === null || isRootTree(tree) ? null : parseTreeClient(tree);
    if (client === null) {
      return null;
    }
    const props = await run(options.xpropPath ?? 'xprop', ['-id', client.windowId, '_NET_WM_PID']);
    const pid = props === null ? null : xpropCardinal(parseXpropOutput(props), '_NET_WM_PID');
    return { ...client, pid };
  };
}
