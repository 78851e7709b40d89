// The window under the mouse pointer on X11 (docs/privacy.md §2): a click or wheel step counts as
// aimed at that window, not at the focused one. `xdotool getmouselocation --shell` names the
// top-level window under the pointer (openbox's frame), `xwininfo -tree` on it finds the client
// inside with its title and WM_CLASS; its pid (for the process name) comes from `xprop`.
import { runCommand } from '../../infra/run-command';
import type { WindowBounds } from '../windows/x11-props';
import { parseXpropOutput, xpropCardinal } from '../windows/x11-props';
import type { WindowIdentity } from './exclusion';

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
  /** Limit per command, ms; default 1 000. */
  timeoutMs?: number;
  xdotoolPath?: string;
  xwininfoPath?: string;
  xpropPath?: string;
};

/**
 * The X11 lookup of the window under the pointer. Throws COMMAND_NOT_FOUND when xdotool is
 * missing (the caller then judges clicks by the focused window); null when the pointer is over no
 * client window (the desktop, an override-redirect popup).
 */
export function x11PointerWindow(options: X11PointerWindowOptions): PointerWindowLookup {
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
    // a window without a frame (an override-redirect popup) lists no client: null, and the caller
    // judges the click by the focused window
    const client = tree === null ? null : parseTreeClient(tree);
    if (client === null) {
      return null;
    }
    const props = await run(options.xpropPath ?? 'xprop', ['-id', client.windowId, '_NET_WM_PID']);
    const pid = props === null ? null : xpropCardinal(parseXpropOutput(props), '_NET_WM_PID');
    return { ...client, pid };
  };
}
