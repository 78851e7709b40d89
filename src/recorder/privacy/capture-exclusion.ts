// Exclusion at capture inside a recording session (docs/privacy.md §2): decides, before anything
// reaches the sink, which input events are kept, what the window timeline stores, and when an
// `excluded` mark opens and ends. Keys count as aimed at the focused window (the active-window
// timeline), buttons and wheel steps at the window under the pointer; pointer moves are kept.
import fs from 'node:fs';
import { EXCLUDED_MARK_KIND, EXCLUDED_WINDOW_TITLE } from '../../shared/domain/privacy';
import type { InputEvent } from '../input/normalize-input-event';
import type { ActiveWindowEntry } from '../windows/active-window';
import type { WindowBounds } from '../windows/x11-props';
import type { StackSelect, WindowStackTracker } from '../windows/x11-window-stack';
import { ExcludedRegions } from './excluded-regions';
import type { ExclusionMatcher, ExclusionVerdict, WindowIdentity } from './exclusion';
import type { PointedWindow, PointerWindowLookup } from './x11-pointer-window';

/** How long after the stop request an excluded window's region stays blanked, ms (beyond the
 * last frame ffmpeg writes: marks past the video's end blank nothing more). */
const STOP_TAIL_MS = 60_000;

/** What the session hands the exclusion: the rules and how to look at windows. */
export type CaptureExclusionOptions = {
  matcher: ExclusionMatcher;
  /** The window under the pointer (X11: x11-pointer-window.ts); absent: buttons and wheel are
   * judged by the focused window. */
  pointerWindow?: PointerWindowLookup | null;
  /** A process's name from its pid (Linux: /proc/<pid>/comm); default none. */
  processName?: (pid: number) => string | null;
  /**
   * A reader of the windows on the screen (X11: x11-window-stack.ts) for the clients `select`
   * picks; the rectangles of excluded windows become `excluded-region` marks while they are
   * mapped, focused or not. Absent: only the focused window's intervals are marked.
   */
  windowStack?: ((select: StackSelect) => WindowStackTracker) | null;
  /**
   * True for a window of the recording app itself (the desktop app's HUD and main window, by
   * native window id: xprop's `0x…`): left out like an excluded window (its focus, keys, clicks
   * and place on the screen), since X11 has no content protection to keep it out of the video.
   */
  isOwnWindow?: ((windowId: string) => boolean) | null;
};

/** The rule named for the app's own windows. */
export const OWN_WINDOW_RULE = 'own-window';

/** How the exclusion writes its marks (the session's sink). */
export type ExclusionMarkSink = {
  /** A new `excluded` mark, end null until the interval ends. */
  open(mark: { tMs: number; kind: string; data: Record<string, unknown> }): void;
  /** Sets the end of the mark that opened at `tMs`. */
  end(kind: string, tMs: number, endMs: number): void;
};

/** An interval during which an excluded window had focus. */
type Interval = {
  startMs: number;
  endMs: number | null;
  rule: string;
  windowId: string | null;
};

/** How long a pointer lookup is reused for the next button or wheel step, ms. */
const POINTER_REUSE_MS = 250;

/** The process name of `pid` from /proc (Linux), or null. */
export function linuxProcessName(pid: number): string | null {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/** The session's exclusion state (one per session). */
export class CaptureExclusion {
  private readonly intervals: Interval[] = [];
  private focused: ExclusionVerdict = { excluded: false };
  private focusedWindowId: string | null = null;
  /** The verdict of each button's last press, so its release follows it. */
  private readonly pressVerdicts = new Map<string, boolean>();
  private pointerCache: { atMs: number; verdict: boolean | null } | null = null;
  private isPointerLookupBroken = false;
  /** The excluded windows on the screen (started with the first window entry). */
  private screen: { stack: WindowStackTracker; regions: ExcludedRegions } | null = null;
  private isClosed = false;

  constructor(
    private readonly options: CaptureExclusionOptions,
    private readonly marks: ExclusionMarkSink,
    private readonly now: () => number,
    private readonly onWarning?: (message: string) => void,
  ) {}

  /** True while the focused window is excluded. */
  get isFocusedExcluded(): boolean {
    return this.focused.excluded;
  }

  /** The verdict for a window as described (id, title, app, process). */
  judge(
    window: WindowIdentity & { pid?: number | null; windowId?: string | null },
  ): ExclusionVerdict {
    if (window.windowId && this.options.isOwnWindow?.(window.windowId)) {
      return { excluded: true, rule: OWN_WINDOW_RULE };
    }
    const processName =
      window.processName ??
      (window.pid != null && this.options.processName
        ? this.options.processName(window.pid)
        : null);
    return this.options.matcher.isExcluded({ ...window, processName });
  }

  /**
   * A new entry of the active-window timeline: what to store instead (title `excluded`, no app,
   * instance or pid while excluded; id and bounds kept), opening or ending the interval's mark.
   */
  window(entry: ActiveWindowEntry): ActiveWindowEntry {
    this.watchScreen();
    if (entry.windowId === null && entry.title === null) {
      // no window active (focus in passing between two windows): the state before goes on, so
      // an interval ends only when a window that is not excluded comes to the front
      return entry;
    }
    const verdict = this.judge(entry);
    const open = this.openInterval();
    if (open && (!verdict.excluded || open.windowId !== entry.windowId)) {
      this.endInterval(open, entry.tMs);
    }
    this.focused = verdict;
    this.focusedWindowId = entry.windowId;
    if (!verdict.excluded) {
      return entry;
    }
    if (!this.openInterval()) {
      const interval: Interval = {
        startMs: entry.tMs,
        endMs: null,
        rule: verdict.rule ?? 'excluded',
        windowId: entry.windowId,
      };
      this.intervals.push(interval);
      this.marks.open({
        tMs: entry.tMs,
        kind: EXCLUDED_MARK_KIND,
        data: { rule: interval.rule, bounds: boundsData(entry.bounds) },
      });
    }
    return { ...entry, title: EXCLUDED_WINDOW_TITLE, app: null, appInstance: null, pid: null };
  }

  /** Ends the open interval and the excluded windows' regions (the recording stops). */
  close(endMs: number): void {
    const open = this.openInterval();
    if (open) {
      this.endInterval(open, endMs);
    }
    this.isClosed = true;
    const screen = this.screen;
    this.screen = null;
    // the screen capture goes on for a moment after the stop is asked for (ffmpeg finishes its
    // frames): a window still on the screen then stays blanked to the video's end
    screen?.regions.close(endMs + STOP_TAIL_MS);
    void screen?.stack.stop().catch(() => undefined);
  }

  // The excluded windows on the screen, focused or not (issue 26, item 6): the reader starts with
  // the first window entry (before the video's first frame) and reads again at every focus or
  // title change after it.
  private watchScreen(): void {
    if (this.screen) {
      this.screen.stack.refresh();
      return;
    }
    const factory = this.options.windowStack;
    if (!factory || this.isClosed) {
      return;
    }
    const stack = factory((client) => this.judge(client).excluded);
    const regions = new ExcludedRegions(this.marks);
    this.screen = { stack, regions };
    stack.start((reading) =>
      regions.reading(
        reading.startMs,
        reading.endMs,
        reading.windows.map((w) => ({
          windowId: w.windowId,
          rule: this.judge(w).rule ?? 'excluded',
          bounds: w.frame,
        })),
      ),
    );
  }

  /** True when the focused window at `tMs` was excluded (the timeline so far). */
  isExcludedAt(tMs: number): boolean {
    return this.intervals.some((i) => i.startMs <= tMs && (i.endMs === null || tMs < i.endMs));
  }

  /**
   * The events of `batch` to store, in their order: keys whose focused window was excluded and
   * buttons or wheel steps aimed at an excluded window are left out; moves are kept.
   */
  async filter(batch: InputEvent[]): Promise<InputEvent[]> {
    const kept: InputEvent[] = [];
    for (const e of batch) {
      if (e.kind === 'keydown' || e.kind === 'keyup') {
        if (!this.isExcludedAt(e.tMs)) {
          kept.push(e);
        }
      } else if (e.kind === 'down' || e.kind === 'wheel') {
        const excluded = await this.isAimedAtExcluded(e.tMs);
        if (e.kind === 'down' && e.button !== null) {
          this.pressVerdicts.set(e.button, excluded);
        }
        if (!excluded) {
          kept.push(e);
        }
      } else if (e.kind === 'up') {
        const pressed = e.button === null ? undefined : this.pressVerdicts.get(e.button);
        const excluded = pressed ?? (await this.isAimedAtExcluded(e.tMs));
        if (!excluded) {
          kept.push(e);
        }
      } else if (e.kind === 'other') {
        // unnamed buttons and keys: judged by the focused window
        if (!this.isExcludedAt(e.tMs)) {
          kept.push(e);
        }
      } else {
        kept.push(e); // pointer moves carry no content
      }
    }
    return kept;
  }

  // A button or wheel step: the window under the pointer decides; when none is known (no
  // lookup, the desktop, a popup without a frame) the focused window at the event does.
  private async isAimedAtExcluded(tMs: number): Promise<boolean> {
    const pointed = await this.pointerVerdict();
    return pointed ?? this.isExcludedAt(tMs);
  }

  private async pointerVerdict(): Promise<boolean | null> {
    const lookup = this.options.pointerWindow;
    if (!lookup || this.isPointerLookupBroken) {
      return null;
    }
    const now = this.now();
    if (this.pointerCache && now - this.pointerCache.atMs < POINTER_REUSE_MS) {
      return this.pointerCache.verdict;
    }
    let window: PointedWindow | null;
    try {
      window = await lookup();
    } catch (e) {
      this.isPointerLookupBroken = true;
      this.onWarning?.(
        `the window under the pointer cannot be looked up (${(e as Error).message}); clicks are judged by the focused window for exclusion rules (install xdotool)`,
      );
      return null;
    }
    const verdict =
      window === null
        ? null
        : window.windowId === this.focusedWindowId
          ? this.focused.excluded
          : this.judge(window).excluded;
    this.pointerCache = { atMs: now, verdict };
    return verdict;
  }

  private openInterval(): Interval | null {
    const last = this.intervals[this.intervals.length - 1];
    return last && last.endMs === null ? last : null;
  }

  private endInterval(interval: Interval, endMs: number): void {
    interval.endMs = Math.max(interval.startMs, endMs);
    this.marks.end(EXCLUDED_MARK_KIND, interval.startMs, interval.endMs);
  }
}

function boundsData(bounds: WindowBounds | null): WindowBounds | null {
  return bounds ? { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height } : null;
}
