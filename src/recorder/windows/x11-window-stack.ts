// The windows on the screen, not only the active one (issue 26, item 6; docs/privacy.md §2): an
// excluded window that is visible but not focused still shows its title and content in the
// video, so the recorder reads where every such window is while it is mapped.
//
// One reading: `xwininfo -root -tree` lists every top-level window (the window manager's frame,
// decorations included, or the client itself without a window manager) with the client windows
// inside (title, WM_CLASS) and their absolute geometry; the caller picks the clients it cares
// about (`select`, e.g. those an exclusion rule matches) and only for those `xwininfo -id <frame>`
// tells whether the frame is viewable (mapped, and not iconified) and where it is. A client's
// pid (`_NET_WM_PID`, for process-name rules) is read once per window. Readings come when the
// window layout changes (`xev -root -event substructure`: a frame mapped, unmapped, moved,
// resized or restacked), when the caller asks (focus or title of the active window changed), and
// every few seconds (a background window's title changing). One reading at a time; changes during
// one make another right after it.
import { LineSplitter } from '../../infra/lines';
import { runCommand } from '../../infra/run-command';
import { spawnChild, type ChildProcess } from '../../infra/spawn-child';
import { stopChild } from '../../infra/stop-child';
import type { WindowBounds } from './x11-props';
import { parseXpropOutput, parseXwininfoGeometry, xpropCardinal } from './x11-props';

/** A client window found in the tree. */
export type StackClient = {
  /** X window id of the client, lowercase hex. */
  windowId: string;
  /** Its top-level ancestor (the frame), lowercase hex; the client itself without a WM. */
  topLevelId: string;
  title: string | null;
  /** WM_CLASS class. */
  app: string | null;
  /** WM_CLASS instance. */
  appInstance: string | null;
  /** The top-level's rectangle (decorations included), screen px. */
  frame: WindowBounds;
};

/** A selected client whose frame is viewable, and where the frame is. */
export type VisibleWindow = StackClient & { pid: number | null };

/** One reading: the selected windows on the screen between `startMs` and `endMs`. */
export type StackReading = {
  /** Session clock before the reading started: anything not in it appeared after this. */
  startMs: number;
  /** Session clock once it was complete. */
  endMs: number;
  windows: VisibleWindow[];
};

/** What a session needs: readings of the selected windows on the screen. */
export type WindowStackTracker = {
  /** Starts reading; `onReading` gets each complete reading in order. */
  start(onReading: (reading: StackReading) => void): void;
  /** Asks for a reading soon (the active window or its title changed). */
  refresh(): void;
  /** Stops; no reading is reported afterwards. */
  stop(): Promise<void>;
};

/** Which clients a reading looks at (only these cost a query each). */
export type StackSelect = (client: StackClient & { pid: number | null }) => boolean;

// One line of `xwininfo -tree`:  <indent>0x400030 "Title": ("inst" "Class")  117x68+1+20  +101+120
const TREE_LINE =
  /^(\s*)(0x[0-9a-fA-F]+) (?:"(.*)"|\(has no name\)): \((.*)\)\s+(\d+)x(\d+)\+-?\d+\+-?\d+\s+\+(-?\d+)\+(-?\d+)\s*$/;
const CLASS_PAIR = /^"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$/;

/** The client windows (a non-empty WM_CLASS) of `xwininfo -root -tree` output, each with the
 * top-level window (a child of the root) it sits in. */
export function parseStackTree(text: string): StackClient[] {
  const clients: StackClient[] = [];
  let rootIndent: number | null = null;
  let top: { id: string; frame: WindowBounds } | null = null;
  for (const line of text.split('\n')) {
    const m = TREE_LINE.exec(line);
    if (!m) {
      continue;
    }
    const [, indent = '', id = '', title, classes = '', w = '0', h = '0', x = '0', y = '0'] = m;
    const rect = {
      x: Number.parseInt(x, 10),
      y: Number.parseInt(y, 10),
      width: Number.parseInt(w, 10),
      height: Number.parseInt(h, 10),
    };
    rootIndent ??= indent.length;
    if (indent.length === rootIndent) {
      top = { id: id.toLowerCase(), frame: rect };
    }
    const pair = CLASS_PAIR.exec(classes.trim());
    if (!pair || top === null || (pair[1] === '' && pair[2] === '')) {
      continue;
    }
    clients.push({
      windowId: id.toLowerCase(),
      topLevelId: top.id,
      title: title ?? null,
      app: pair[2] || null,
      appInstance: pair[1] || null,
      frame: top.frame,
    });
  }
  return clients;
}

/** True when `xwininfo -id` output says the window is viewable (mapped, its ancestors too). */
export function isViewable(text: string): boolean {
  return /^\s*Map State:\s*IsViewable\s*$/m.test(text);
}

/** The outer rectangle of `xwininfo -id` output: its absolute geometry with the border. */
export function outerGeometry(text: string): WindowBounds | null {
  const g = parseXwininfoGeometry(text);
  if (g === null) {
    return null;
  }
  const border = Number.parseInt(/^\s*Border width:\s*(\d+)\s*$/m.exec(text)?.[1] ?? '0', 10);
  return {
    x: g.x - border,
    y: g.y - border,
    width: g.width + 2 * border,
    height: g.height + 2 * border,
  };
}

/** Options of {@link X11WindowStack}. */
export type X11WindowStackOptions = {
  /** Environment of the X tools (DISPLAY). */
  env: NodeJS.ProcessEnv;
  /** Session clock, ms. */
  now: () => number;
  /** Which clients to look at. */
  select: StackSelect;
  /** Between two readings without any change reported, ms; default 2 000. */
  pollMs?: number;
  /** Least time from the start of one reading to the next, ms; default 100 (a drag). */
  minGapMs?: number;
  /** Limit per command, ms; default 2 000. */
  timeoutMs?: number;
  /** A reading failed (the next one may work; a run of failures is reported once). */
  onError?: (error: Error) => void;
  xwininfoPath?: string;
  xpropPath?: string;
  xevPath?: string;
};

/** Default time between readings when nothing is reported, ms. */
export const DEFAULT_WINDOW_STACK_POLL_MS = 2000;

/** Substructure events of the root that change what is on the screen. */
const LAYOUT_EVENT = /^(ConfigureNotify|MapNotify|UnmapNotify|DestroyNotify|ReparentNotify)\b/;

/** The X11 reader of the windows on the screen. */
export class X11WindowStack implements WindowStackTracker {
  private readonly env: NodeJS.ProcessEnv;
  private readonly pids = new Map<string, number | null>();
  private onReading: ((reading: StackReading) => void) | null = null;
  private spy: { child: ChildProcess; closed: Promise<void> } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private isWanted = false;
  private lastStartMs = Number.NEGATIVE_INFINITY;
  private isStopped = false;
  /** The last reading failed (a run of failures is reported once). */
  private hasFailed = false;

  constructor(private readonly options: X11WindowStackOptions) {
    this.env = { ...options.env, LC_ALL: 'C.UTF-8' };
  }

  start(onReading: (reading: StackReading) => void): void {
    this.onReading = onReading;
    const child = spawnChild(this.options.xevPath ?? 'xev', ['-root', '-event', 'substructure'], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const lines = new LineSplitter();
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      if (lines.push(chunk).some((line) => LAYOUT_EVENT.test(line))) {
        this.refresh();
      }
    });
    // without xev the poll alone goes on
    child.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    this.spy = { child, closed };
    this.refresh();
  }

  refresh(): void {
    if (this.isStopped || this.onReading === null) {
      return;
    }
    this.isWanted = true;
    if (this.reading === null) {
      this.schedule(Math.max(0, this.lastStartMs + (this.options.minGapMs ?? 100) - this.now()));
    }
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const spy = this.spy;
    this.spy = null;
    await Promise.allSettled([
      this.reading,
      spy?.child.pid === undefined
        ? spy?.closed
        : stopChild(spy.child, { exited: spy.closed, signal: 'SIGTERM', killGraceMs: 1000 }),
    ]);
  }

  private now(): number {
    return this.options.now();
  }

  private schedule(delayMs: number): void {
    if (this.timer) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.isStopped) {
        return;
      }
      this.isWanted = false;
      this.reading = this.readOnce().finally(() => {
        this.reading = null;
        if (this.isStopped) {
          return;
        }
        // a change reported during the reading: read again (not before the least gap)
        this.schedule(
          this.isWanted
            ? Math.max(0, this.lastStartMs + (this.options.minGapMs ?? 100) - this.now())
            : (this.options.pollMs ?? DEFAULT_WINDOW_STACK_POLL_MS),
        );
      });
    }, delayMs);
  }

  private async readOnce(): Promise<void> {
    const startMs = this.now();
    this.lastStartMs = startMs;
    try {
      const tree = await this.run(this.options.xwininfoPath ?? 'xwininfo', ['-root', '-tree']);
      if (tree === null) {
        throw new Error('xwininfo -root -tree failed');
      }
      const clients = parseStackTree(tree);
      const windows: VisibleWindow[] = [];
      for (const client of clients) {
        const withPid = { ...client, pid: await this.pidOf(client.windowId) };
        if (!this.options.select(withPid)) {
          continue;
        }
        const info = await this.run(this.options.xwininfoPath ?? 'xwininfo', [
          '-id',
          client.topLevelId,
        ]);
        // a failed query (gone since the tree was read, or timed out) counts as viewable where
        // the tree had it: a window that is gone is missing from the next tree anyway
        if (info === null || isViewable(info)) {
          const frame = (info === null ? null : outerGeometry(info)) ?? client.frame;
          windows.push({ ...withPid, frame });
        }
      }
      this.hasFailed = false;
      if (!this.isStopped) {
        this.onReading?.({ startMs, endMs: this.now(), windows });
      }
    } catch (e) {
      // nothing is reported: what the last reading found stays as it was
      if (!this.isStopped && !this.hasFailed) {
        this.options.onError?.(e as Error);
      }
      this.hasFailed = true;
    }
  }

  private async pidOf(windowId: string): Promise<number | null> {
    if (!this.pids.has(windowId)) {
      const text = await this.run(this.options.xpropPath ?? 'xprop', [
        '-id',
        windowId,
        '_NET_WM_PID',
      ]);
      if (text === null) {
        return null; // failed: asked again next time
      }
      this.pids.set(windowId, xpropCardinal(parseXpropOutput(text), '_NET_WM_PID'));
    }
    return this.pids.get(windowId) ?? null;
  }

  // Runs a query; null when it fails (the window may be gone by the time we ask).
  private async run(command: string, args: string[]): Promise<string | null> {
    try {
      const result = await runCommand(command, args, {
        env: this.env,
        timeoutMs: this.options.timeoutMs ?? 2000,
        maxStdoutBytes: 4 * 1024 * 1024,
      });
      return result.code === 0 && !result.isTimedOut && !result.isStdoutTruncated
        ? result.stdout
        : null;
    } catch {
      return null; // could not start (x11-utils missing)
    }
  }
}
