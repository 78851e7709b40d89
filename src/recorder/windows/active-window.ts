// Active-window timeline on X11 (docs/platform-linux.md §7: read `_NET_ACTIVE_WINDOW`, not
// nut-js getActiveWindow, which returns GTK's focus proxy or kills the process without a WM).
// One long-running `xprop -root -spy _NET_ACTIVE_WINDOW` reports activations; for each new
// window one `xprop -id` (title, WM_CLASS, pid) and one `xwininfo -id` (absolute geometry) run in
// parallel, and a second spy (`xprop -id <active> -spy _NET_WM_NAME WM_NAME`) reports title
// changes of the active window. Needs an EWMH window manager (openbox in tests).
import { AppError } from '../../shared/errors';
import { LineSplitter } from '../../infra/lines';
import { runCommand } from '../../infra/run-command';
import { spawnChild } from '../../infra/spawn-child';
import type { ChildProcess } from '../../infra/spawn-child';
import { StderrTail } from '../../infra/stderr-tail';
import { stopChild } from '../../infra/stop-child';
import { monotonicNowMs } from '../clock';
import type { WindowBounds } from './x11-props';
import {
  parseActiveWindowLine,
  parseXpropOutput,
  parseXpropStrings,
  parseXwininfoGeometry,
  xpropCardinal,
  xpropString,
  xpropWindow,
} from './x11-props';

/** What changed. */
export type ActiveWindowChange = 'initial' | 'activated' | 'title';

/** One entry of the active-window timeline. */
export type ActiveWindowEntry = {
  /** When the change was observed, session clock ms (CLOCK_MONOTONIC). */
  tMs: number;
  /** What changed: first reading, another window activated, or the active window's title. */
  change: ActiveWindowChange;
  /** X window id in lowercase hex (`0x800003`), or null when no window is active. */
  windowId: string | null;
  /** `_NET_WM_NAME` (else `WM_NAME`), or null. */
  title: string | null;
  /** Application: the WM_CLASS class (e.g. `Gtk-form.py`, `firefox`), or null. */
  app: string | null;
  /** The WM_CLASS instance (e.g. `gtk-form.py`), or null. */
  appInstance: string | null;
  /** `_NET_WM_PID`, or null when the client does not set it. */
  pid: number | null;
  /** Client-area rectangle in screen px (without window-manager decorations), or null. */
  bounds: WindowBounds | null;
  /** The window it is a transient of (`WM_TRANSIENT_FOR`: a dialog's parent), null when none;
   * absent when the platform does not tell. Not stored: it tells a dialog that a click opened
   * from a window that a click brought to the front (click-activation.ts). */
  transientFor?: string | null;
};

/** Options of {@link ActiveWindowTracker}. */
export type ActiveWindowTrackerOptions = {
  /** Session clock in ms (CLOCK_MONOTONIC); default the recorder's `monotonicNowMs`. */
  now?: () => number;
  /** Environment of the X tools (needs DISPLAY); default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** xprop executable; default `xprop`. */
  xpropPath?: string;
  /** xwininfo executable; default `xwininfo`. */
  xwininfoPath?: string;
  /** Limit for the first reading, ms; default 3 000. */
  startTimeoutMs?: number;
  /** Limit for each `xprop -id` / `xwininfo` query, ms; default 2 000. */
  queryTimeoutMs?: number;
};

/** Default limit for the first reading, ms. */
export const DEFAULT_ACTIVE_WINDOW_START_TIMEOUT_MS = 3000;
/** Default limit per window query, ms. */
export const DEFAULT_ACTIVE_WINDOW_QUERY_TIMEOUT_MS = 2000;
/** Readings of the title after the spy's first output, when one fails or times out. */
const REREAD_ATTEMPTS = 3;
/** Pause between those readings (ms). */
const REREAD_RETRY_MS = 100;

/** Properties the title spy follows, in the order xprop prints its first reading of them. */
const TITLE_PROPERTIES = ['_NET_WM_NAME', 'WM_NAME'] as const;

const X11_UTILS_FIX = 'apt-get install x11-utils (provides xprop and xwininfo)';

type QueueItem =
  | { kind: 'active'; tMs: number; windowId: string | null }
  | { kind: 'title'; tMs: number; windowId: string; title: string | null };

type Spy = { child: ChildProcess; closed: Promise<void> };

/** Follows the active window; lifecycle object with start/stop (children die with the host). */
export class ActiveWindowTracker {
  private readonly now: () => number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly entries: ActiveWindowEntry[] = [];
  private readonly listeners = new Set<(entry: ActiveWindowEntry) => void>();
  private readonly errorListeners = new Set<(error: AppError) => void>();
  private readonly queue: QueueItem[] = [];
  private isDraining = false;
  private rootSpy: Spy | null = null;
  private titleSpy: Spy | null = null;
  private state: 'idle' | 'starting' | 'running' | 'stopped' | 'failed' = 'idle';
  private onFirstEntry: ((entry: ActiveWindowEntry) => void) | null = null;
  private onStartError: ((error: AppError) => void) | null = null;

  constructor(private readonly options: ActiveWindowTrackerOptions = {}) {
    this.now = options.now ?? monotonicNowMs;
    // xprop converts strings to the locale's charset: force UTF-8 so titles survive
    this.env = { ...(options.env ?? process.env), LC_ALL: 'C.UTF-8' };
  }

  /** Every entry so far, oldest first (a copy). */
  timeline(): ActiveWindowEntry[] {
    return [...this.entries];
  }

  /** Resolves once every change reported so far (activations, titles) is in the timeline. */
  async settled(): Promise<void> {
    while (this.isLive() && (this.isDraining || this.queue.length > 0)) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Pids of the running xprop spies (root spy first), for diagnostics. */
  spyPids(): number[] {
    return [this.rootSpy, this.titleSpy]
      .map((spy) => spy?.child.pid)
      .filter((pid): pid is number => pid !== undefined);
  }

  /** The latest entry, or null before the first reading. */
  current(): ActiveWindowEntry | null {
    return this.entries[this.entries.length - 1] ?? null;
  }

  // Subscribes to the changes after the first reading (which start() resolves with, as the
  // WindowTracker port says); returns an unsubscribe function.
  onChange(listener: (entry: ActiveWindowEntry) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  // Subscribes to a failure after start (the spy died, e.g. the X server went away).
  onError(listener: (error: AppError) => void): () => void {
    this.errorListeners.add(listener);
    return () => {
      this.errorListeners.delete(listener);
    };
  }

  // Starts spying; resolves with the first entry (windowId null when no window is active).
  async start(): Promise<ActiveWindowEntry> {
    if (this.state !== 'idle') {
      throw new Error(`ActiveWindowTracker.start() in state '${this.state}'; create a new one`);
    }
    const display = this.env.DISPLAY;
    if (display === undefined || display === '') {
      throw new AppError(
        'ACTIVE_WINDOW_UNAVAILABLE',
        'DISPLAY is not set: the active-window timeline needs an X11 display',
      );
    }
    this.state = 'starting';
    const startTimeoutMs = this.options.startTimeoutMs ?? DEFAULT_ACTIVE_WINDOW_START_TIMEOUT_MS;
    try {
      return await new Promise<ActiveWindowEntry>((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new AppError(
              'ACTIVE_WINDOW_UNAVAILABLE',
              `xprop -root -spy _NET_ACTIVE_WINDOW printed nothing within ${startTimeoutMs} ms ` +
                `(DISPLAY=${display})`,
            ),
          );
        }, startTimeoutMs);
        this.onFirstEntry = (entry) => {
          clearTimeout(timer);
          resolve(entry);
        };
        this.onStartError = (error) => {
          clearTimeout(timer);
          reject(error);
        };
        this.rootSpy = this.spawnSpy(['-root', '-spy', '_NET_ACTIVE_WINDOW'], (line) => {
          const windowId = parseActiveWindowLine(line);
          if (windowId !== undefined) {
            this.enqueue({ kind: 'active', tMs: this.now(), windowId });
          }
        });
        void this.watchRootSpy(this.rootSpy);
      });
    } catch (error) {
      await this.stop();
      this.state = 'failed';
      throw error;
    } finally {
      this.onFirstEntry = null;
      this.onStartError = null;
    }
  }

  // Stops both spies and waits for them to exit; safe to call twice.
  async stop(): Promise<void> {
    if (this.state === 'stopped') {
      return;
    }
    this.state = 'stopped';
    const spies = [this.rootSpy, this.titleSpy].filter((s): s is Spy => s !== null);
    this.rootSpy = null;
    this.titleSpy = null;
    await Promise.all(spies.map(stopSpy));
  }

  private async watchRootSpy(spy: Spy): Promise<void> {
    const stderr = new StderrTail({ maxLines: 5 });
    spy.child.stderr?.setEncoding('utf8');
    spy.child.stderr?.on('data', (chunk: string) => stderr.push(chunk));
    const spawnError = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      spy.child.once('spawn', () => resolve(null));
      spy.child.once('error', (error) => resolve(error));
    });
    if (spawnError) {
      this.failWith(
        new AppError(
          'ACTIVE_WINDOW_UNAVAILABLE',
          `could not run ${this.options.xpropPath ?? 'xprop'}: ${spawnError.message}; ${X11_UTILS_FIX}`,
        ),
      );
      return;
    }
    await spy.closed;
    if (this.state === 'stopped') {
      return;
    }
    const tail = stderr.text();
    // 127: setpriv could not exec xprop
    const fix = spy.child.exitCode === 127 ? `; ${X11_UTILS_FIX}` : '';
    this.failWith(
      new AppError(
        'ACTIVE_WINDOW_UNAVAILABLE',
        `xprop -root -spy exited (exit code ${spy.child.exitCode}, signal ` +
          `${spy.child.signalCode})${tail === '' ? '' : `: ${tail}`}${fix}`,
      ),
    );
  }

  private failWith(error: AppError): void {
    if (this.state === 'starting') {
      this.onStartError?.(error);
      return;
    }
    if (this.state !== 'running') {
      return;
    }
    this.state = 'failed';
    this.errorListeners.forEach((listener) => listener(error));
    void this.stopTitleSpy();
  }

  private spawnSpy(args: string[], onLine: (line: string) => void): Spy {
    // parent-death signal and kill-on-exit registration come with spawnChild
    const child = spawnChild(this.options.xpropPath ?? 'xprop', args, {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = new LineSplitter();
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      for (const line of lines.push(chunk)) {
        onLine(line);
      }
    });
    // spawn errors are reported through 'error' and handled by the watcher; never crash here
    child.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => {
      child.once('close', () => resolve());
    });
    return { child, closed };
  }

  private enqueue(item: QueueItem): void {
    this.queue.push(item);
    if (!this.isDraining) {
      void this.drain();
    }
  }

  // Handles changes one at a time so entries keep the order in which X reported them.
  private async drain(): Promise<void> {
    this.isDraining = true;
    try {
      for (let item = this.queue.shift(); item !== undefined; item = this.queue.shift()) {
        if (!this.isLive()) {
          this.queue.length = 0;
          return;
        }
        if (item.kind === 'active') {
          await this.handleActive(item.tMs, item.windowId);
        } else {
          await this.handleTitle(item.tMs, item.windowId, item.title);
        }
      }
    } finally {
      this.isDraining = false;
    }
  }

  private async handleActive(tMs: number, windowId: string | null): Promise<void> {
    const previous = this.current();
    if (previous !== null && previous.windowId === windowId) {
      return; // window managers rewrite the property with the same value
    }
    await this.stopTitleSpy();
    const entry: ActiveWindowEntry =
      windowId === null
        ? emptyActiveWindowEntry(tMs)
        : { ...(await this.describe(windowId)), tMs, change: 'activated' };
    if (previous === null) {
      entry.change = 'initial';
    }
    this.push(entry);
    if (windowId !== null && this.isLive()) {
      this.titleSpy = this.spawnSpy(
        ['-id', windowId, '-spy', ...TITLE_PROPERTIES],
        this.titleLineHandler(windowId),
      );
    }
  }

  // Title spy output: the first lines are the current values (one line per property), later
  // ones are changes. xprop reads the values before it subscribes to changes, so a title set in
  // between would be lost: once the spy has printed its reading (it subscribes just before it
  // flushes), the title is read again, and that reading counts unless the spy has reported a
  // newer title meanwhile. Only a change line that yields a title supersedes it: a WM_NAME
  // change of a client that has _NET_WM_NAME is ignored and must not cancel the reading (GTK
  // writes the two properties in turn, so one of them can land after the subscription).
  private titleLineHandler(windowId: string): (line: string) => void {
    let hasNetName = false;
    let lineCount = 0;
    let changeTitles = 0;
    const reread = async (): Promise<void> => {
      const seen = changeTitles;
      const args = ['-id', windowId, ...TITLE_PROPERTIES];
      // a reading that fails or times out (a loaded machine) is tried again: losing it loses
      // the title set in the gap for good
      let text: string | null = null;
      for (let attempt = 0; attempt < REREAD_ATTEMPTS && text === null; attempt += 1) {
        if (attempt > 0) {
          await new Promise((resolve) => setTimeout(resolve, REREAD_RETRY_MS));
        }
        if (changeTitles !== seen || !this.isLive()) {
          return;
        }
        text = await this.run(this.options.xpropPath ?? 'xprop', args);
      }
      if (text === null || changeTitles !== seen || !this.isLive()) {
        return;
      }
      const props = parseXpropOutput(text);
      const title = xpropString(props, '_NET_WM_NAME') ?? xpropString(props, 'WM_NAME');
      this.enqueue({ kind: 'title', tMs: this.now(), windowId, title });
    };
    const onLine = (line: string): void => {
      lineCount += 1;
      const isChange = lineCount > TITLE_PROPERTIES.length;
      const props = parseXpropOutput(line);
      let title: string | null | undefined;
      if (props.has('_NET_WM_NAME')) {
        hasNetName = true;
        title = xpropString(props, '_NET_WM_NAME');
      } else if (props.has('WM_NAME') && !hasNetName) {
        // legacy clients without _NET_WM_NAME (xmessage, old Xt apps)
        title = xpropString(props, 'WM_NAME');
      }
      if (title !== undefined) {
        if (isChange) {
          changeTitles += 1;
        }
        this.enqueue({ kind: 'title', tMs: this.now(), windowId, title });
      }
      // the reading may reach us in pieces: read again once all of it is in, so that its own
      // lines are never taken for newer changes
      if (lineCount === TITLE_PROPERTIES.length) {
        void reread();
      }
    };
    return onLine;
  }

  private async handleTitle(tMs: number, windowId: string, title: string | null): Promise<void> {
    const current = this.current();
    if (current === null || current.windowId !== windowId || current.title === title) {
      return;
    }
    const bounds = await this.geometry(windowId);
    this.push({ ...current, tMs, change: 'title', title, bounds: bounds ?? current.bounds });
  }

  private isLive(): boolean {
    return this.state === 'starting' || this.state === 'running';
  }

  private push(entry: ActiveWindowEntry): void {
    if (!this.isLive()) {
      return; // stopped while the window was being described
    }
    this.entries.push(entry);
    if (this.state === 'starting') {
      // the first reading is start()'s answer, not a change: a listener subscribed before
      // start() that also stored the answer stored the first row twice (issue 26, item 17)
      this.state = 'running';
      this.onFirstEntry?.(entry);
      return;
    }
    this.listeners.forEach((listener) => listener(entry));
  }

  private async stopTitleSpy(): Promise<void> {
    const spy = this.titleSpy;
    this.titleSpy = null;
    if (spy) {
      await stopSpy(spy);
    }
  }

  private async describe(windowId: string): Promise<Omit<ActiveWindowEntry, 'tMs' | 'change'>> {
    const [propsText, bounds] = await Promise.all([
      this.run(this.options.xpropPath ?? 'xprop', [
        '-id',
        windowId,
        '_NET_WM_NAME',
        'WM_NAME',
        'WM_CLASS',
        '_NET_WM_PID',
        'WM_TRANSIENT_FOR',
      ]),
      this.geometry(windowId),
    ]);
    const props = parseXpropOutput(propsText ?? '');
    const wmClass = props.get('WM_CLASS');
    const [instance = null, cls = null] = wmClass ? parseXpropStrings(wmClass.raw) : [];
    return {
      windowId,
      title: xpropString(props, '_NET_WM_NAME') ?? xpropString(props, 'WM_NAME'),
      app: cls,
      appInstance: instance,
      pid: xpropCardinal(props, '_NET_WM_PID'),
      bounds,
      transientFor: xpropWindow(props, 'WM_TRANSIENT_FOR'),
    };
  }

  private async geometry(windowId: string): Promise<WindowBounds | null> {
    const text = await this.run(this.options.xwininfoPath ?? 'xwininfo', ['-id', windowId]);
    return text === null ? null : parseXwininfoGeometry(text);
  }

  // Runs a query; null when it fails (the window may be gone by the time we ask).
  private async run(command: string, args: string[]): Promise<string | null> {
    const timeout = this.options.queryTimeoutMs ?? DEFAULT_ACTIVE_WINDOW_QUERY_TIMEOUT_MS;
    try {
      const result = await runCommand(command, args, {
        env: this.env,
        timeoutMs: timeout,
        maxStdoutBytes: 1024 * 1024,
      });
      return result.code === 0 && !result.isTimedOut && !result.isStdoutTruncated
        ? result.stdout
        : null;
    } catch {
      // could not start (xprop / xwininfo missing)
      return null;
    }
  }
}

// The entry of no active window at `tMs` (every field null), as an activation.
export function emptyActiveWindowEntry(tMs: number): ActiveWindowEntry {
  return {
    tMs,
    change: 'activated',
    windowId: null,
    title: null,
    app: null,
    appInstance: null,
    pid: null,
    bounds: null,
  };
}

async function stopSpy(spy: Spy): Promise<void> {
  if (spy.child.pid === undefined) {
    // never started: 'close' follows the spawn error
    await spy.closed;
    return;
  }
  await stopChild(spy.child, { exited: spy.closed, signal: 'SIGTERM', killGraceMs: 1000 });
}
