// The session's accessibility track: starts the adapter (focus, content and gap events), looks
// up the element under a resting pointer and under each click (pickClickedElement chooses
// between them), masks keys while a secure field has focus, and takes the window snapshots the
// snapshot policy asks for (src/axtree/snapshot-policy.ts). Nothing of an excluded window is
// looked up or stored (src/recorder/privacy).
import type { AccessibilityAdapter } from '../../axtree/adapter';
import type { AxElementRecord, AxSnapshot } from '../../axtree/model';
import { SnapshotPolicy } from '../../axtree/snapshot-policy';
import { monotonicNowMs } from '../clock';
import { inputToVirtualPixels, mapElementRecord, mapSnapshot } from '../coordinates';
import type { InputHook } from '../input/hook-process';
import { HOOK_DEFERRED_FLUSH_MS } from '../input/hook-protocol';
import type { InputEvent } from '../input/normalize-input-event';
import type { ActiveWindowEntry } from '../windows/active-window';
import type { TrackContext } from './types';
import type { WindowTrack } from './window-track';

/** Default pointer rest before the hover lookup, ms. */
export const DEFAULT_HOVER_SETTLE_MS = 80;
/** What the gap between two moves of a pointer in steady motion may be beyond the hook child's
 * deferral, ms: the rest the child reports is at least the deferral plus this, so while the
 * pointer moves its next write always comes first and moves the rest on for free (hook-child.ts,
 * `armRest`). */
const HOVER_SLACK_MS = 40;

/** The element under the resting pointer, looked up before any click (a click can close the
 * window it lands on before a lookup after the click could see it). */
type HoverElement = {
  x: number;
  y: number;
  record: AxElementRecord | null;
};

/** Title of the toplevel window of an element record (the node just below the application). */
function windowNameOf(record: AxElementRecord): string | null {
  return record.path.length >= 2 ? (record.path[record.path.length - 2]?.name ?? null) : null;
}

/**
 * The element a click landed on. `live` was looked up after the click, `hover` while the pointer
 * rested at the same spot before it. They differ when the click changed what is under the
 * pointer (a button that closes its window) or when the screen changed during the rest (a popup
 * appeared); the active window at the press tells which: the live one wins only when it belongs
 * to that window, else the hover one (stamped with the press time) does.
 */
export function pickClickedElement(
  live: AxElementRecord | null,
  hover: AxElementRecord | null,
  activeTitleAtPress: string | null,
  pressMs: number,
): AxElementRecord | null {
  if (!hover) {
    return live;
  }
  const stamped = { ...hover, tMs: pressMs };
  if (!live) {
    return stamped;
  }
  if (windowNameOf(live) === windowNameOf(hover) && live.app === hover.app) {
    return live;
  }
  return activeTitleAtPress !== null && windowNameOf(live) === activeTitleAtPress ? live : stamped;
}

/** The accessibility track of one recording session (idle while the adapter is null). */
export class AccessibilityTrack {
  private snapshotTimer: NodeJS.Timeout | null = null;
  /** When to snapshot the focused window (created once accessibility started). */
  private snapshotPolicy: SnapshotPolicy | null = null;
  private hover: HoverElement | null = null;
  /** The pointer's last position, to look up once the hook child reports it rests (onRest). */
  private hoverRest: { x: number; y: number; serial: number } | null = null;
  /** Incremented by every pointer move: a hover lookup from an older move is stale. */
  private moveSerial = 0;

  /** `inputHook` is the running input hook (key masking), null before start and after stop. */
  constructor(
    private readonly ctx: TrackContext,
    private readonly windows: WindowTrack,
    private readonly inputHook: () => InputHook | null,
  ) {}

  /** Starts the adapter; one that fails is dropped (`options.accessibility` turns null) with an
   * `a11y-unavailable` mark, and the session records on without accessibility. */
  async start(): Promise<void> {
    const o = this.ctx.options;
    if (!o.accessibility) {
      return;
    }
    try {
      const info = await o.accessibility.start();
      o.accessibility.onFocusChanged?.(() => this.ctx.track(this.refreshMask()));
      // a helper that stopped answering and was replaced: the span it lost, stored as input
      // gaps are (docs/helper-protocol.md §4); endMs null: accessibility was given up
      o.accessibility.onGap?.((gap) =>
        o.sink.mark({
          tMs: gap.startMs,
          endMs: gap.endMs,
          kind: 'accessibility-gap',
          data: { reason: gap.reason, detail: gap.detail, isGivenUp: gap.endMs === null },
        }),
      );
      this.snapshotPolicy = new SnapshotPolicy({
        now: monotonicNowMs,
        settleMs: o.snapshotSettleMs,
        hasContentEvents:
          o.accessibility.onContentChanged !== undefined &&
          info.capabilities.includes('contentEvents'),
      });
      o.accessibility.onContentChanged?.((change) => {
        this.snapshotPolicy?.contentChanged(change.isFocusedApp);
        this.pumpSnapshots();
      });
    } catch (e) {
      o.onWarning?.(`accessibility unavailable, recording without it: ${(e as Error).message}`);
      o.sink.mark({
        tMs: monotonicNowMs(),
        kind: 'a11y-unavailable',
        data: { message: (e as Error).message },
      });
      this.ctx.options.accessibility = null;
    }
  }

  /** Stops the snapshot timer and forgets the pending hover lookup (the session is ending). */
  stopTimers(): void {
    if (this.snapshotTimer) {
      clearTimeout(this.snapshotTimer);
      this.snapshotTimer = null;
    }
    this.hoverRest = null;
  }

  /** Stops the adapter (its helper or bus connection). */
  async stop(): Promise<void> {
    await this.ctx.options.accessibility?.stop();
  }

  /** The lookups a batch of kept input calls for: the element under each click, the hover
   * position to look up once the pointer rests, and a snapshot after an action. */
  onInput(batch: InputEvent[]): void {
    const space = this.ctx.space();
    // nothing of an excluded window in front is looked up (hover, element, snapshot)
    const ax = this.ctx.exclusion?.isFocusedExcluded ? null : this.ctx.options.accessibility;
    let acted = false;
    let rest: { x: number; y: number } | null = null;
    for (const e of batch) {
      if (e.kind === 'down' || e.kind === 'up' || e.kind === 'keydown' || e.kind === 'wheel') {
        acted = true;
      }
      // lookups ask the adapter in its own space: virtual-desktop pixels (helper-protocol.md §3)
      if (e.kind === 'move' && e.x !== null && e.y !== null) {
        this.moveSerial += 1;
        rest = inputToVirtualPixels(space, e.x, e.y);
      }
      if (ax && e.kind === 'down' && e.x !== null && e.y !== null) {
        const at = inputToVirtualPixels(space, e.x, e.y);
        const hover =
          this.hover && this.hover.x === at.x && this.hover.y === at.y ? this.hover : null;
        this.ctx.track(this.captureElement(ax, at.x, at.y, e.tMs, hover));
      }
    }
    if (rest) {
      // a lookup for this place waits for the child's rest line (onRest)
      this.hover = null;
      this.hoverRest = ax ? { ...rest, serial: this.moveSerial } : null;
    }
    if (ax && acted) {
      this.scheduleSnapshot(ax);
    }
  }

  /** The hook child saw the pointer stop: looks up the element under it (once the input before
   * the rest was handled; the input track orders that). */
  lookUpRest(): void {
    const rest = this.hoverRest;
    this.hoverRest = null;
    const ax = this.ctx.options.accessibility;
    if (
      !rest ||
      !ax ||
      rest.serial !== this.moveSerial ||
      this.ctx.state() !== 'recording' ||
      this.ctx.exclusion?.isFocusedExcluded
    ) {
      return;
    }
    const { x, y, serial } = rest;
    this.ctx.track(
      (async () => {
        try {
          const record = await ax.elementAt(x, y);
          if (serial === this.moveSerial) {
            this.hover = { x, y, record };
          }
        } catch {
          // no hover element: the click falls back to the lookup at the click
        }
      })(),
    );
  }

  /** The rest before a hover lookup, measured by the hook child from the last move: longer than
   * the settle time and than the child's deferral plus a gap between moves, so the rest timer of
   * a pointer still moving is always moved on by the child's next write before it fires. */
  hoverDelayMs(): number {
    return Math.max(
      this.ctx.options.hoverSettleMs ?? DEFAULT_HOVER_SETTLE_MS,
      HOOK_DEFERRED_FLUSH_MS + HOVER_SLACK_MS,
    );
  }

  /** Masks keys while the focused element is secure (a password field); kept as it was when
   * the adapter cannot tell. */
  async refreshMask(): Promise<void> {
    const ax = this.ctx.options.accessibility;
    const hook = this.inputHook();
    if (!ax || !hook) {
      return;
    }
    try {
      hook.setMaskKeys(await ax.focusedIsSecure());
    } catch {
      // keep the previous mask state when the query fails
    }
  }

  /** The focused window (from the tracker) for the snapshot policy; a title change of the same
   * window counts as a content change. */
  noteWindow(entry: ActiveWindowEntry): void {
    const policy = this.snapshotPolicy;
    if (!policy) {
      return;
    }
    policy.windowChanged(entry.windowId ?? (entry.title === null ? null : `title:${entry.title}`));
    if (entry.change === 'title') {
      policy.contentChanged(true);
    }
    this.pumpSnapshots();
  }

  /** Takes the snapshot the policy asks for now, or arms one timer to ask again (src/axtree/
   * snapshot-policy.ts): a walk only when the focused window or its content changed. */
  pumpSnapshots(): void {
    const ax = this.ctx.options.accessibility;
    const policy = this.snapshotPolicy;
    if (
      !ax ||
      !policy ||
      this.snapshotTimer ||
      this.ctx.state() !== 'recording' ||
      this.ctx.exclusion?.isFocusedExcluded
    ) {
      return; // an excluded window in front is never walked (its change comes when focus leaves)
    }
    const decision = policy.decide();
    if (decision.kind === 'wait') {
      this.snapshotTimer = setTimeout(() => {
        this.snapshotTimer = null;
        this.pumpSnapshots();
      }, decision.inMs);
    } else if (decision.kind === 'reuse') {
      if (!this.isExcludedAx(decision.snapshot.app ?? null, decision.snapshot.root?.name ?? null)) {
        this.ctx.options.sink.snapshot(mapSnapshot(this.ctx.space(), decision.snapshot));
      }
    } else if (decision.kind === 'walk') {
      this.ctx.track(
        (async () => {
          let snap: AxSnapshot | null = null;
          try {
            snap = await ax.snapshotFocusedWindow();
            if (!this.isExcludedAx(snap.app ?? null, snap.root?.name ?? null)) {
              this.ctx.options.sink.snapshot(mapSnapshot(this.ctx.space(), snap));
            }
          } catch (e) {
            this.ctx.options.onWarning?.(`window snapshot skipped: ${(e as Error).message}`);
          } finally {
            policy.finished(snap);
          }
          this.pumpSnapshots();
        })(),
      );
    }
  }

  private async captureElement(
    ax: AccessibilityAdapter,
    x: number,
    y: number,
    pressMs: number,
    hover: HoverElement | null,
  ): Promise<void> {
    // the active window when the button went down (the timeline is read now, before the lookup,
    // but entries are stamped when observed, so a window closed by this click is still found)
    const timeline = this.windows.timeline();
    const activeAtPress = timeline.filter((w) => w.tMs <= pressMs).at(-1)?.title ?? null;
    let live: AxElementRecord | null = null;
    let failure: Error | null = null;
    try {
      live = await ax.elementAt(x, y);
    } catch (e) {
      failure = e as Error;
    }
    const record = pickClickedElement(live, hover?.record ?? null, activeAtPress, pressMs);
    if (record && this.isExcludedAx(record.app, windowNameOf(record))) {
      // an excluded window came to the front meanwhile, or the element is in one
    } else if (record) {
      this.inputHook()?.setMaskKeys(record.isSecure);
      this.ctx.options.sink.element(mapElementRecord(this.ctx.space(), record));
    } else if (failure) {
      this.ctx.options.onWarning?.(`element at (${x}, ${y}) not captured: ${failure.message}`);
    }
    await this.refreshMask();
  }

  // An input action: a change for the snapshot policy where the adapter reports none itself.
  private scheduleSnapshot(_ax: AccessibilityAdapter): void {
    this.snapshotPolicy?.inputAction();
    this.pumpSnapshots();
  }

  // True when accessibility data of this app/window must not be stored: an excluded window is in
  // front now, or the data's own application or window title matches an exclusion rule.
  private isExcludedAx(app: string | null, windowTitle: string | null): boolean {
    const exclusion = this.ctx.exclusion;
    if (!exclusion) {
      return false;
    }
    return (
      exclusion.isFocusedExcluded ||
      exclusion.judge({ title: windowTitle, app, appInstance: null }).excluded
    );
  }
}
