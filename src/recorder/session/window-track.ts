// The session's active-window timeline: the platform's window tracker, the focused window as it
// last reported it, and each entry handed to the sink (as `excluded` when an exclusion rule
// matches, src/recorder/privacy). The input and accessibility tracks read the focused window and
// the timeline from here.
import { monotonicNowMs } from '../clock';
import type { WindowTracker } from '../platform';
import type { ActiveWindowEntry } from '../windows/active-window';
import type { TrackContext } from './types';

/** The active-window track of one recording session. */
export class WindowTrack {
  private tracker: WindowTracker | null = null;
  private focusedEntry: ActiveWindowEntry | null = null;

  /** `onWindow` hears every focused window, the first one included (the snapshot policy). */
  constructor(
    private readonly ctx: TrackContext,
    private readonly onWindow: (entry: ActiveWindowEntry) => void,
  ) {}

  /** The focused window as the tracker last reported it (null: none or unknown). */
  get focused(): ActiveWindowEntry | null {
    return this.focusedEntry;
  }

  /** Starts the platform's tracker; without one (it failed) the session records on, untracked. */
  async start(): Promise<void> {
    const o = this.ctx.options;
    const exclusion = this.ctx.exclusion;
    const tracker = o.platform.windows({ env: o.env ?? process.env, now: monotonicNowMs });
    this.tracker = tracker;
    tracker.onChange((entry) => {
      this.focusedEntry = entry;
      o.sink.window(exclusion?.window(entry) ?? entry);
      this.onWindow(entry);
    });
    try {
      const first = await tracker.start();
      this.focusedEntry = first;
      o.sink.window(exclusion?.window(first) ?? first);
      this.onWindow(first);
    } catch (e) {
      o.onWarning?.(`active-window tracking unavailable: ${(e as Error).message}`);
      this.tracker = null;
    }
  }

  /** The windows seen so far, oldest first (empty without a tracker). */
  timeline(): ActiveWindowEntry[] {
    return this.tracker?.timeline() ?? [];
  }

  /** Resolves once the tracker has taken in the focus changes made so far (where it can tell). */
  settled(): Promise<void> | undefined {
    return this.tracker?.settled?.();
  }

  /** Detaches the tracker and stops it (the timeline reads empty from now on). */
  stop(): Promise<void> | undefined {
    const tracker = this.tracker;
    this.tracker = null;
    return tracker?.stop();
  }
}
