// One timer for the periodic checks of a process. Every timer that fires is a wake-up, and on the
// build machine a wake-up costs 100–250 µs of CPU (bench/recorder.ts): the recorder's input
// watchdog (500 ms), its disk watch (500 ms) and its live warnings (1 s) on timers of their own
// woke the process 4.6 times a second between them, at moments of their own. Periods that are
// whole multiples of SHARED_TICK_MS share one interval instead and run in the same wake-up
// (1 wake-up per SHARED_TICK_MS for all of them); any other period gets a timer of its own, so a
// test may still ask for 20 ms. The shared interval is unref'd (it keeps no process alive) and
// stops with its last subscriber.

/** The shared period, ms. */
export const SHARED_TICK_MS = 500;

type Subscriber = {
  /** Runs on every `every`-th tick. */
  every: number;
  ticks: number;
  fn: () => void;
};

const subscribers = new Set<Subscriber>();
let timer: NodeJS.Timeout | null = null;

function tick(): void {
  let failure: { error: unknown } | null = null;
  for (const s of [...subscribers]) {
    // one that unsubscribed during this tick does not run
    if (!subscribers.has(s)) {
      continue;
    }
    s.ticks += 1;
    if (s.ticks < s.every) {
      continue;
    }
    s.ticks = 0;
    try {
      s.fn();
    } catch (error) {
      // the others still run; the first failure is thrown afterwards, as its own timer would
      failure ??= { error };
    }
  }
  if (failure) {
    throw failure.error;
  }
}

/**
 * Calls `fn` every `periodMs` (the first call one period from now, give or take the shared
 * tick's phase: between `periodMs - SHARED_TICK_MS` and `periodMs`); returns the function that
 * stops it. Keeps no process alive.
 */
export function everyPeriod(periodMs: number, fn: () => void): () => void {
  if (!(periodMs > 0) || periodMs % SHARED_TICK_MS !== 0) {
    const own = setInterval(fn, periodMs);
    own.unref();
    return () => clearInterval(own);
  }
  const subscriber: Subscriber = { every: periodMs / SHARED_TICK_MS, ticks: 0, fn };
  subscribers.add(subscriber);
  if (timer === null) {
    timer = setInterval(tick, SHARED_TICK_MS);
    timer.unref();
  }
  return () => {
    if (!subscribers.delete(subscriber) || subscribers.size > 0 || timer === null) {
      return;
    }
    clearInterval(timer);
    timer = null;
  };
}

/** Subscribers on the shared tick (tests). */
export function sharedTickSubscribers(): number {
  return subscribers.size;
}
