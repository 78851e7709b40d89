// Watches the recorded display's geometry while a session records, so a change of displays
// (a resolution change, a monitor moved or rescaled) starts a new video segment instead of
// failing (docs/architecture.md §5 "Coordinates"). The port is what the session needs; Linux
// listens for RandR events (`xev -root -event randr`) and reads the X screen (readDisplayInfo)
// when one comes, macOS and Windows turn their helper's `displays` events into it
// (docs/helper-protocol.md §5).
import { LineSplitter } from '../infra/lines';
import { spawnChild, type ChildProcess } from '../infra/spawn-child';
import { stopChild } from '../infra/stop-child';
import { isSameGeometry } from '../shared/domain/display';
import { recordedDisplayOf } from './coordinates';
import type { DisplayInfo } from './display-info';

/** Tells a session when the display it records changes. */
export type DisplayWatcher = {
  /** Starts watching; `current` is the display the session records now. */
  start(current: DisplayInfo): void;
  /** Subscribes to changes of the recorded display's origin, size or scale; returns the
   * unsubscribe function. Listeners get the display as it is now. */
  onChange(listener: (next: DisplayInfo) => void): () => void;
  /** Reads the display at once (the session asks when its ffmpeg ended unexpectedly, which a
   * shrinking screen does); reports a change to the listeners first and resolves true then. */
  check(): Promise<boolean>;
  /** Stops watching; no listener is called afterwards (resolves once a child it ran is gone). */
  stop(): void | Promise<void>;
};

/** Options of {@link PollingDisplayWatcher}. */
export type PollingDisplayWatcherOptions = {
  /** Reads the recorded display now (Linux: readDisplayInfo). */
  read: () => Promise<DisplayInfo>;
  /** Between two reads, ms; default {@link DEFAULT_DISPLAY_POLL_MS}; 0: no timer (reads only
   * on check()). */
  intervalMs?: number;
  /** A failed read (kept going: the next one may work). */
  onError?: (error: Error) => void;
};

/** Default time between two reads of the display, ms. */
export const DEFAULT_DISPLAY_POLL_MS = 2000;

/** A watcher that reads the display every few seconds and compares its geometry. */
export class PollingDisplayWatcher implements DisplayWatcher {
  private current: DisplayInfo | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(next: DisplayInfo) => void>();
  /** The read in flight: check() and the timer share it instead of reading twice. */
  private reading: Promise<boolean> | null = null;
  private isStopped = false;

  constructor(private readonly options: PollingDisplayWatcherOptions) {}

  start(current: DisplayInfo): void {
    this.current = current;
    this.isStopped = false;
    this.schedule();
  }

  onChange(listener: (next: DisplayInfo) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async check(): Promise<boolean> {
    this.reading ??= this.readOnce().finally(() => {
      this.reading = null;
    });
    return await this.reading;
  }

  stop(): void {
    this.isStopped = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
  }

  private schedule(): void {
    const intervalMs = this.options.intervalMs ?? DEFAULT_DISPLAY_POLL_MS;
    if (this.isStopped || intervalMs <= 0) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check().finally(() => this.schedule());
    }, intervalMs);
  }

  private async readOnce(): Promise<boolean> {
    let next: DisplayInfo;
    try {
      next = await this.options.read();
    } catch (e) {
      this.options.onError?.(e as Error);
      return false;
    }
    const before = this.current;
    if (this.isStopped || !before) {
      return false;
    }
    if (isSameGeometry(recordedDisplayOf(before), recordedDisplayOf(next))) {
      return false;
    }
    this.current = next;
    for (const listener of [...this.listeners]) {
      listener(next);
    }
    return true;
  }
}

/** Options of {@link RandrEventWatcher}. */
export type RandrEventWatcherOptions = {
  /** Reads the recorded display now (readDisplayInfo). */
  read: () => Promise<DisplayInfo>;
  /** Environment of xev (DISPLAY). */
  env: NodeJS.ProcessEnv;
  /** The xev executable (x11-utils); default `xev` on PATH. */
  xevPath?: string;
  /** Reads after the last RandR event of a burst, ms; default 250 (one change sends several). */
  settleMs?: number;
  /** Polling interval when xev cannot run or exits, ms; default 10 s. */
  fallbackPollMs?: number;
  /** xev failed (the watcher falls back to polling) or a read failed. */
  onError?: (error: Error) => void;
};

/**
 * The X11 watcher: `xev -root -event randr` prints a line for every RandR screen or output change
 * (a resolution change, a monitor added or moved), and only then is the display read, so an
 * unchanged display costs no process spawns. Polling readDisplayInfo every 2 s instead spent
 * about 0.1 s of CPU a read on the build machine (three X tools each time), several percent of
 * a core during a recording. Without xev it polls every `fallbackPollMs`.
 */
export class RandrEventWatcher implements DisplayWatcher {
  private readonly reader: PollingDisplayWatcher;
  private child: ChildProcess | null = null;
  private closed: Promise<void> = Promise.resolve();
  private settleTimer: NodeJS.Timeout | null = null;
  private fallback: PollingDisplayWatcher | null = null;
  private current: DisplayInfo | null = null;
  private isStopped = false;

  constructor(private readonly options: RandrEventWatcherOptions) {
    this.reader = new PollingDisplayWatcher({
      read: options.read,
      intervalMs: 0,
      onError: options.onError,
    });
  }

  start(current: DisplayInfo): void {
    this.current = current;
    this.isStopped = false;
    this.reader.start(current);
    const child = spawnChild(this.options.xevPath ?? 'xev', ['-root', '-event', 'randr'], {
      env: this.options.env,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.child = child;
    const lines = new LineSplitter();
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      for (const line of lines.push(chunk)) {
        // `RRScreenChangeNotify event, …`, `RRNotify event, … subtype XRROutputChangeNotifyEvent`
        if (/^RR\w*Notify\b/.test(line)) {
          this.settleThenCheck();
        }
      }
    });
    child.on('error', () => undefined); // a missing xev: 'close' follows and falls back
    this.closed = new Promise<void>((resolve) => {
      child.once('close', (code, signal) => {
        resolve();
        if (!this.isStopped && this.child === child) {
          this.child = null;
          this.options.onError?.(
            new Error(
              `xev -root -event randr ended (${signal ?? `exit ${String(code)}`}); the display is polled every ${(this.options.fallbackPollMs ?? 10_000) / 1000} s instead`,
            ),
          );
          this.startFallback();
        }
      });
    });
  }

  onChange(listener: (next: DisplayInfo) => void): () => void {
    return this.reader.onChange(listener);
  }

  async check(): Promise<boolean> {
    return await this.reader.check();
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.settleTimer) {
      clearTimeout(this.settleTimer);
      this.settleTimer = null;
    }
    this.reader.stop();
    this.fallback?.stop();
    const child = this.child;
    this.child = null;
    if (child?.pid !== undefined) {
      await stopChild(child, { exited: this.closed, signal: 'SIGTERM', killGraceMs: 1000 });
    }
  }

  private settleThenCheck(): void {
    if (this.settleTimer) {
      clearTimeout(this.settleTimer);
    }
    this.settleTimer = setTimeout(() => {
      this.settleTimer = null;
      if (!this.isStopped) {
        void this.check();
      }
    }, this.options.settleMs ?? 250);
  }

  private startFallback(): void {
    if (this.isStopped || this.fallback || !this.current) {
      return;
    }
    // a slow poll whose only job is to make the reader look again
    this.fallback = new PollingDisplayWatcher({
      read: async () => {
        await this.check();
        return this.current!;
      },
      intervalMs: this.options.fallbackPollMs ?? 10_000,
    });
    this.fallback.start(this.current);
  }
}

/** Options of {@link SignalDisplayWatcher}. */
export type SignalDisplayWatcherOptions = {
  /** Reads the recorded display now (macOS/Windows: the helper's `displays` answer, the same
   * display chosen again, as DisplayInfo). */
  read: () => Promise<DisplayInfo>;
  /** Subscribes to the source's "the layout changed" signal (the helper's `displays` events,
   * docs/helper-protocol.md §5); returns the unsubscribe. */
  subscribe: (signal: () => void) => () => void;
  /** Reads after the last signal of a burst, ms; default 250. */
  settleMs?: number;
  /** A failed read. */
  onError?: (error: Error) => void;
};

/**
 * A watcher driven by an outside signal: the port macOS and Windows implement with their
 * helper's `displays` events (each event makes it read the recorded display again and compare).
 */
export class SignalDisplayWatcher implements DisplayWatcher {
  private readonly reader: PollingDisplayWatcher;
  private unsubscribe: (() => void) | null = null;
  private settleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: SignalDisplayWatcherOptions) {
    this.reader = new PollingDisplayWatcher({
      read: options.read,
      intervalMs: 0,
      onError: options.onError,
    });
  }

  start(current: DisplayInfo): void {
    this.reader.start(current);
    this.unsubscribe = this.options.subscribe(() => {
      if (this.settleTimer) {
        clearTimeout(this.settleTimer);
      }
      this.settleTimer = setTimeout(() => {
        this.settleTimer = null;
        void this.check();
      }, this.options.settleMs ?? 250);
    });
  }

  onChange(listener: (next: DisplayInfo) => void): () => void {
    return this.reader.onChange(listener);
  }

  async check(): Promise<boolean> {
    return await this.reader.check();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.settleTimer) {
      clearTimeout(this.settleTimer);
      this.settleTimer = null;
    }
    this.reader.stop();
  }
}
