// Watches the recorded display's geometry while a session records, so a change of displays
// (a resolution change, a monitor moved or rescaled) starts a new video segment instead of
// failing (docs/architecture.md §5 "Coordinates"). The port is what the session needs; Linux
// polls the X screen (xdpyinfo, xrandr, xrdb through readDisplayInfo), macOS and Windows turn
// their helper's `displays` events into it (docs/helper-protocol.md §5).
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
  /** Stops watching; no listener is called afterwards. */
  stop(): void;
};

/** Options of {@link PollingDisplayWatcher}. */
export type PollingDisplayWatcherOptions = {
  /** Reads the recorded display now (Linux: readDisplayInfo). */
  read: () => Promise<DisplayInfo>;
  /** Between two reads, ms; default {@link DEFAULT_DISPLAY_POLL_MS}. */
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
    if (this.isStopped) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.check().finally(() => this.schedule());
    }, this.options.intervalMs ?? DEFAULT_DISPLAY_POLL_MS);
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
