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
