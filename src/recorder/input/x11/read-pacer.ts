// How long the X RECORD hook leaves its data socket unread after a read (pure: the caller passes
// the clock). Every read is a wake-up of the hook child, and the server flushes one batch per
// input event it processes, so a mouse polled at 125–1000 Hz would wake the child 125–1000 times a
// second (bench: 5.7 % of a core at 400 moves a second against 2.0 % at 50). Input that comes
// faster than one batch per READ_PACE_MS is read once per READ_PACE_MS instead; slower input is
// read as it comes, so its latency does not change. The socket may not stay unread for long while
// input floods in: Xvfb drops events when synthetic input comes at 3,500 a second and more and
// the reader lags 50 ms or more (docs/platform-linux.md §3a), so a read that brings a flood's
// worth of events switches pacing off for a while.

/**
 * The shortest interval between two reads while input comes fast, ms. Not longer: with 30 or
 * 40 ms, Xvfb lost a move in 2–3 of 5 runs of the 3,000-move + 1,000-click burst test
 * (x11-record-hook.test.ts), with 20 ms in none.
 */
export const READ_PACE_MS = 20;
/** A read with more events than this is a flood: read as data comes for FLOOD_HOLD_MS. */
export const FLOOD_EVENTS = 64;
/** How long a flood switches pacing off, ms. */
export const FLOOD_HOLD_MS = 1000;

/** Decides after each read how long to wait before the next one. */
export class ReadPacer {
  private lastReadAtMs = -Infinity;
  private isPacing = false;
  private eagerUntilMs = -Infinity;

  /**
   * After a read at `nowMs` that brought `events` input events: how long to leave the socket
   * unread, ms (0: read as data comes).
   */
  afterRead(nowMs: number, events: number): number {
    const gapMs = nowMs - this.lastReadAtMs;
    this.lastReadAtMs = nowMs;
    if (events > FLOOD_EVENTS) {
      this.eagerUntilMs = nowMs + FLOOD_HOLD_MS;
      this.isPacing = false;
      return 0;
    }
    if (nowMs < this.eagerUntilMs || events === 0) {
      return 0;
    }
    if (this.isPacing) {
      // one event in a whole pace interval: input is slow again
      this.isPacing = events > 1;
      return this.isPacing ? READ_PACE_MS : 0;
    }
    if (gapMs < READ_PACE_MS) {
      this.isPacing = true;
      return READ_PACE_MS;
    }
    return 0;
  }
}
