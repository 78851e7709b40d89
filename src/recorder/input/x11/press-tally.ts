// Counts key presses two ways to find those the X server dropped from the RECORD stream (pure).
// Xvfb 21 (and Xorg: the same os/io.c and record.c) loses whole RECORD replies while the recording
// client is behind (its socket full, output pending): FlushClient on that client runs the flush
// callback, RECORD appends its buffered reply to the very output being flushed, and FlushClient
// then finishes with the byte count it took before the callback, so the appended reply is gone.
// Nothing in the stream shows the hole (each reply is whole, with no counter), so the hook also
// selects XInput2 raw key presses on its control connection: ordinary events, queued for a slow
// client and never dropped. Every raw press from the moment they were selected must also come
// through RECORD; when fewer do by a time both streams have passed, the difference was lost.

/** Presses RECORD may bring before the first raw one that are kept for the comparison. */
const MAX_EARLY_PRESSES = 256;

/** Signed difference of two 32-bit X server times, ms. */
const timeDiff = (a: number, b: number): number => (a - b) | 0;

/** The two counts of key presses, compared up to the time both streams have reached. */
export class PressTally {
  /** Server time of the first raw press: presses before it are not compared. */
  private startTime: number | null = null;
  private recorded: number[] = [];
  private raw: number[] = [];
  private lastRecorded: number | null = null;
  private lastRaw: number | null = null;
  private lostTotal = 0;
  private rawTotal = 0;

  /** Raw key presses seen so far. */
  get rawPresses(): number {
    return this.rawTotal;
  }

  /** Key presses lost so far. */
  get lost(): number {
    return this.lostTotal;
  }

  /** A KeyPress the RECORD stream brought (its server time). */
  addRecorded(time: number): void {
    this.lastRecorded = time;
    if (this.startTime !== null && timeDiff(time, this.startTime) < 0) {
      return;
    }
    this.recorded.push(time);
    // before the first raw press, RECORD's copy of it may come first: keep the newest few
    if (this.startTime === null && this.recorded.length > MAX_EARLY_PRESSES) {
      this.recorded.shift();
    }
  }

  /** A raw key press (not a repeat) the XInput2 selection brought (its server time). */
  addRaw(time: number): void {
    if (this.startTime === null) {
      this.startTime = time;
      // presses RECORD brought before the selection took effect are not compared
      this.recorded = this.recorded.filter((t) => timeDiff(t, time) >= 0);
    }
    this.rawTotal += 1;
    this.lastRaw = time;
    this.raw.push(time);
  }

  /**
   * Compares the presses before the time both streams have passed (all of them when `isFinal`:
   * both streams were drained); returns how many more were lost.
   */
  settle(isFinal = false): number {
    if (this.startTime === null || this.lastRecorded === null || this.lastRaw === null) {
      if (!isFinal || this.raw.length === 0) {
        return 0;
      }
    }
    const start = this.startTime!;
    // the earlier of the two streams' newest times, as an offset from the start
    const reached = isFinal
      ? Infinity
      : Math.min(timeDiff(this.lastRecorded!, start), timeDiff(this.lastRaw!, start));
    const before = (list: number[]): number => {
      let n = 0;
      while (n < list.length && timeDiff(list[n]!, start) < reached) {
        n += 1;
      }
      return n;
    };
    const raw = before(this.raw);
    const recorded = before(this.recorded);
    this.raw = this.raw.slice(raw);
    this.recorded = this.recorded.slice(recorded);
    const lost = Math.max(0, raw - recorded);
    this.lostTotal += lost;
    return lost;
  }
}
