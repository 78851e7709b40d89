// The active-window timeline on macOS and Windows: the accessibility helper's `activeWindow`
// polled (docs/helper-protocol.md §3), one entry per activation or title change, in the same shape
// as the X11 tracker's (src/recorder/windows/active-window.ts).
import { AppError } from '../../shared/errors';
import type { ActiveWindowResult } from '../../axtree/platform/helper-protocol';
import type { ActiveWindowChange, ActiveWindowEntry } from '../windows/active-window';
import { emptyActiveWindowEntry } from '../windows/active-window';
import type { PlatformHelper, WindowTracker } from './types';

/** Options of {@link HelperWindowTracker}. */
export type HelperWindowTrackerOptions = {
  /** The helper to ask (not started; the tracker starts and stops it). */
  helper: PlatformHelper;
  /** Session clock in ms (CLOCK_MONOTONIC). */
  now: () => number;
  /** Time between two readings, ms; default 250. */
  pollIntervalMs?: number;
  /** Failed readings in a row after which the error is kept in `lastError`; default 3 (polling
   * goes on: the next good reading clears it). */
  maxFailuresInARow?: number;
};

/** Default time between two readings, ms: well under the 0.5 s a step lasts at the shortest. */
export const DEFAULT_WINDOW_POLL_MS = 250;

/** Window tracker over a helper's `activeWindow`, polled. */
export class HelperWindowTracker implements WindowTracker {
  private readonly entries: ActiveWindowEntry[] = [];
  private readonly listeners = new Set<(entry: ActiveWindowEntry) => void>();
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private isStopped = false;
  private failuresInARow = 0;
  /** The last error of a run of failed readings (cleared by a good one). */
  lastError: AppError | null = null;

  constructor(private readonly options: HelperWindowTrackerOptions) {}

  // Starts the helper and resolves with the first reading; ACTIVE_WINDOW_UNAVAILABLE on failure.
  async start(): Promise<ActiveWindowEntry> {
    try {
      await this.options.helper.start();
      const first = toEntry(
        await this.options.helper.activeWindow(),
        'initial',
        this.options.now(),
      );
      this.entries.push(first);
      this.schedule();
      return first;
    } catch (error) {
      await this.options.helper.stop();
      throw new AppError(
        'ACTIVE_WINDOW_UNAVAILABLE',
        `Cannot read the active window through the accessibility helper: ${(error as Error).message}`,
        { cause: error instanceof AppError ? error.code : undefined },
      );
    }
  }

  onChange(listener: (entry: ActiveWindowEntry) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  timeline(): ActiveWindowEntry[] {
    return [...this.entries];
  }

  async stop(): Promise<void> {
    this.isStopped = true;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.reading;
    await this.options.helper.stop();
  }

  private schedule(): void {
    if (this.isStopped) {
      return;
    }
    this.timer = setTimeout(() => {
      this.reading = this.poll();
    }, this.options.pollIntervalMs ?? DEFAULT_WINDOW_POLL_MS);
  }

  private async poll(): Promise<void> {
    try {
      const result = await this.options.helper.activeWindow();
      this.failuresInARow = 0;
      this.lastError = null;
      this.observe(result);
    } catch (error) {
      this.failuresInARow += 1;
      if (this.failuresInARow >= (this.options.maxFailuresInARow ?? 3)) {
        this.lastError =
          error instanceof AppError
            ? error
            : new AppError('ACTIVE_WINDOW_UNAVAILABLE', (error as Error).message);
      }
    } finally {
      this.schedule();
    }
  }

  private observe(result: ActiveWindowResult | null): void {
    if (this.isStopped) {
      return;
    }
    const last = this.entries[this.entries.length - 1];
    const idOf = (r: ActiveWindowResult | null): string | null =>
      r === null ? null : (r.windowId ?? `${r.pid}:${r.app}`);
    const lastId = last?.windowId ?? null;
    const id = idOf(result);
    let change: ActiveWindowChange | null = null;
    if (id !== lastId) {
      change = 'activated';
    } else if (result !== null && result.title !== (last?.title ?? null)) {
      change = 'title';
    }
    if (change === null) {
      return;
    }
    const entry = toEntry(result, change, this.options.now());
    this.entries.push(entry);
    for (const listener of this.listeners) {
      listener(entry);
    }
  }
}

// One timeline entry from a helper answer (no window: every field null).
function toEntry(
  result: ActiveWindowResult | null,
  change: ActiveWindowChange,
  tMs: number,
): ActiveWindowEntry {
  if (result === null) {
    return { ...emptyActiveWindowEntry(tMs), change };
  }
  return {
    tMs,
    change,
    // a helper without window ids (none on some macOS windows) is keyed by process and app
    windowId: result.windowId ?? `${result.pid}:${result.app}`,
    title: result.title,
    app: result.app,
    appInstance: result.app,
    pid: result.pid,
    bounds: { ...result.bounds },
  };
}
