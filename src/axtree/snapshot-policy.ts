// When the recorder takes a window snapshot, the same for every accessibility backend (AT-SPI,
// the macOS and Windows helpers): only when the focused window changed or its content did, once
// things settled, at most once per minimum interval, never while one is in flight; and a window
// that did not change since its last complete walk is not walked again (its snapshot is reused,
// stamped with the new time, so "the latest snapshot before a step" still describes the window in
// front). Content changes come from the adapter's events when it reports them (capability
// `contentEvents`); without them an input action (click, key, wheel) in the window counts as one.
// Pure: the clock is injected and the caller runs the timers (docs/platform-linux.md §4).
import type { AxSnapshot } from './model';

/** Options of {@link SnapshotPolicy}. */
export type SnapshotPolicyOptions = {
  /** Session clock, ms. */
  now: () => number;
  /** Quiet time after the last change before a snapshot, ms; default 600. */
  settleMs?: number;
  /** Least time between the starts of two walks, ms; default 1 000. */
  minIntervalMs?: number;
  /** The adapter reports content changes: input alone then does not mean the window changed. */
  hasContentEvents?: boolean;
  /** Windows whose last snapshot is kept for reuse; default 8. */
  maxCachedWindows?: number;
};

/** What the caller should do now. */
export type SnapshotDecision =
  /** Nothing changed (or a walk is in flight: ask again when it finished). */
  | { kind: 'idle' }
  /** Something changed but has not settled: ask again in `inMs`. */
  | { kind: 'wait'; inMs: number }
  /** Walk the focused window now, then call {@link SnapshotPolicy.finished}. */
  | { kind: 'walk' }
  /** The window is unchanged since this snapshot: store it again (already stamped now). */
  | { kind: 'reuse'; snapshot: AxSnapshot };

/** Default quiet time before a snapshot, ms. */
export const DEFAULT_SNAPSHOT_SETTLE_MS = 600;
/** Default least time between two walks, ms. */
export const DEFAULT_SNAPSHOT_MIN_INTERVAL_MS = 1000;

/** Decides when to snapshot the focused window, and keeps the snapshots of unchanged windows. */
export class SnapshotPolicy {
  private readonly settleMs: number;
  private readonly minIntervalMs: number;
  private readonly maxCached: number;
  private readonly hasContentEvents: boolean;
  /** The focused window's key; undefined while no window tracker said which one it is. */
  private windowKey: string | null | undefined = undefined;
  private isDirty = false;
  /** Bumped by every change: a walk that saw a change while in flight is not cached. */
  private version = 0;
  private lastChangeMs = -Infinity;
  private lastWalkStartMs = -Infinity;
  private inFlight: { key: string | null | undefined; version: number } | null = null;
  /** Complete snapshots of unchanged windows by key, oldest first. */
  private readonly cache = new Map<string, AxSnapshot>();
  /** Walks started and snapshots reused so far. */
  readonly counts = { walks: 0, reuses: 0 };

  constructor(private readonly options: SnapshotPolicyOptions) {
    this.settleMs = options.settleMs ?? DEFAULT_SNAPSHOT_SETTLE_MS;
    this.minIntervalMs = options.minIntervalMs ?? DEFAULT_SNAPSHOT_MIN_INTERVAL_MS;
    this.maxCached = options.maxCachedWindows ?? 8;
    this.hasContentEvents = options.hasContentEvents ?? false;
  }

  /** The focused window is now `key` (null: none). A different key needs a snapshot. */
  windowChanged(key: string | null): void {
    if (key === this.windowKey) {
      return;
    }
    this.windowKey = key;
    this.markDirty();
  }

  /**
   * The platform reported a content change: of the focused window's application (its cached
   * snapshot is dropped and a new one is needed) or of another one (only its cached snapshots are
   * dropped).
   */
  contentChanged(isFocusedApp: boolean): void {
    if (!isFocusedApp) {
      for (const key of [...this.cache.keys()]) {
        if (key !== this.windowKey) {
          this.cache.delete(key);
        }
      }
      return;
    }
    this.forgetFocused();
    this.markDirty();
  }

  /**
   * A click, key or wheel in the focused window. It counts as a content change unless the
   * adapter reports content changes itself and the focused window is known (a click may also
   * have switched windows, which only the tracker would tell).
   */
  inputAction(): void {
    if (this.hasContentEvents && this.windowKey !== undefined) {
      return;
    }
    this.forgetFocused();
    this.markDirty();
  }

  /** What to do now; a `walk` counts as started (in flight until {@link finished}). */
  decide(): SnapshotDecision {
    if (this.inFlight || !this.isDirty) {
      return { kind: 'idle' };
    }
    const now = this.options.now();
    const cached = typeof this.windowKey === 'string' ? this.cache.get(this.windowKey) : undefined;
    // a reuse costs no walk: it only waits for things to settle
    const dueAt = cached
      ? this.lastChangeMs + this.settleMs
      : Math.max(this.lastChangeMs + this.settleMs, this.lastWalkStartMs + this.minIntervalMs);
    if (now < dueAt) {
      return { kind: 'wait', inMs: Math.ceil(dueAt - now) };
    }
    this.isDirty = false;
    if (cached) {
      this.counts.reuses += 1;
      return { kind: 'reuse', snapshot: { ...cached, tMs: now, durationMs: 0 } };
    }
    this.inFlight = { key: this.windowKey, version: this.version };
    this.lastWalkStartMs = now;
    this.counts.walks += 1;
    return { kind: 'walk' };
  }

  /** The walk finished with `snapshot` (null when it failed); ask {@link decide} again after. */
  finished(snapshot: AxSnapshot | null): void {
    const flight = this.inFlight;
    this.inFlight = null;
    if (!flight || snapshot === null) {
      return;
    }
    const isUnchanged = flight.version === this.version;
    if (
      isUnchanged &&
      typeof flight.key === 'string' &&
      snapshot.root !== null &&
      !snapshot.truncated
    ) {
      this.cache.delete(flight.key);
      this.cache.set(flight.key, snapshot);
      while (this.cache.size > this.maxCached) {
        const oldest = this.cache.keys().next().value;
        if (oldest === undefined) {
          break;
        }
        this.cache.delete(oldest);
      }
    }
  }

  /** True while a walk is in flight. */
  get isWalking(): boolean {
    return this.inFlight !== null;
  }

  private forgetFocused(): void {
    if (typeof this.windowKey === 'string') {
      this.cache.delete(this.windowKey);
    }
  }

  private markDirty(): void {
    this.isDirty = true;
    this.version += 1;
    this.lastChangeMs = this.options.now();
  }
}
