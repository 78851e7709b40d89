// Polling for tests that wait on another process (a child's output, an X server, a job's status).

/**
 * Polls `condition` every 10 ms until it holds; after `timeoutMs` throws "timed out waiting for
 * <what>" (`what` may be a function, to say what was seen by then).
 */
export async function until(
  condition: () => boolean,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Polls the async `probe` every 100 ms until it answers a value (not null, undefined or false)
 * and resolves with it; after `timeoutMs` throws "timed out waiting for <what>". For state kept
 * in a database (a job's state, a queue's counts).
 */
export async function untilValue<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== null && got !== undefined && got !== false) {
      return got;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
