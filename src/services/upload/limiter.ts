// A concurrency limit: at most N tasks hold a slot at once; the rest wait in FIFO order.

/** Runs tasks with at most `concurrency` of them in flight. */
export type Limiter = {
  run: <T>(task: () => Promise<T>) => Promise<T>;
  /** Waits for a slot; call the returned function exactly once to free it. */
  acquire: () => Promise<() => void>;
  /** Tasks holding a slot right now. */
  readonly active: number;
};

// Creates a limiter with `concurrency` slots (at least 1).
export function createLimiter(concurrency: number): Limiter {
  const slots = Math.max(1, Math.floor(concurrency));
  let active = 0;
  const waiting: (() => void)[] = [];
  const acquire = async () => {
    if (active < slots) {
      active += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = () => {
    const next = waiting.shift();
    if (next) {
      next(); // hand the slot over without freeing it
    } else {
      active -= 1;
    }
  };
  return {
    acquire: async () => {
      await acquire();
      let released = false;
      return () => {
        if (!released) {
          released = true;
          release();
        }
      };
    },
    run: async (task) => {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
  };
}
