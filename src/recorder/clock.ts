// The recording session clock: CLOCK_MONOTONIC in milliseconds (float), identical in every
// process on the machine (libuv's hrtime reads CLOCK_MONOTONIC on Linux), so child processes
// (input hook, AT-SPI helpers, ffmpeg) need no offset. Spec: docs/peer-lessons.md §2.1.

/** Longest time {@link sampleWallClockOffset} spins watching Date.now() ticks, in ms. */
const WALL_TICK_WAIT_LIMIT_MS = 10;
/** A tick bracketed this tightly (half-width, ms) ends the search at once. */
const GOOD_TICK_UNCERTAINTY_MS = 0.05;
/** Ticks examined at most (each costs up to 1 ms of spinning). */
const MAX_TICKS = 3;

/** The wall clock (CLOCK_REALTIME) expressed relative to the session clock at one instant. */
export type WallClockOffset = {
  /** Wall-clock ms since the Unix epoch minus session-clock ms: `wallMs = monotonicMs + offsetMs`. */
  offsetMs: number;
  /** Half-width of the interval the true offset lies in, in ms (µs-level at a tick edge). */
  uncertaintyMs: number;
  /** Session-clock time at which the offset was sampled, in ms. */
  sampledAtMs: number;
};

// Now on the session clock (CLOCK_MONOTONIC), in ms with ns resolution.
export function monotonicNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

// Measures wall clock − session clock at a Date.now() millisecond tick edge (spins ~1–3 ms).
export function sampleWallClockOffset(): WallClockOffset {
  // Date.now() only has 1 ms resolution; at the instant it ticks, the wall clock is exactly the
  // new value, so bracketing the tick with monotonic reads pins the offset to a few µs. A tick
  // whose bracket was stretched by preemption is replaced by a tighter later one.
  let best: WallClockOffset | null = null;
  let ticks = 0;
  let beforeMs = monotonicNowMs();
  let lastWallMs = Date.now();
  const deadlineMs = beforeMs + WALL_TICK_WAIT_LIMIT_MS;
  for (;;) {
    const midMs = monotonicNowMs();
    const wallMs = Date.now();
    const afterMs = monotonicNowMs();
    if (wallMs !== lastWallMs) {
      // the previous Date.now() read the clock after beforeMs, this one before afterMs
      const tickMs = (beforeMs + afterMs) / 2;
      const sample = {
        offsetMs: wallMs - tickMs,
        uncertaintyMs: (afterMs - beforeMs) / 2,
        sampledAtMs: tickMs,
      };
      if (!best || sample.uncertaintyMs < best.uncertaintyMs) {
        best = sample;
      }
      ticks += 1;
      lastWallMs = wallMs;
      if (best.uncertaintyMs <= GOOD_TICK_UNCERTAINTY_MS || ticks >= MAX_TICKS) {
        return best;
      }
    }
    if (afterMs > deadlineMs) {
      // no tick seen (a stalled or coarse wall clock): the wall time is somewhere in this ms
      return best ?? { offsetMs: wallMs + 0.5 - afterMs, uncertaintyMs: 0.5, sampledAtMs: afterMs };
    }
    beforeMs = midMs;
  }
}
