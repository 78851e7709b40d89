// Polling for tests that wait on another process (a child's output, an X server, a job's status).
import { readFileSync } from 'node:fs';

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

/** Whether process `pid` still runs (a zombie, exited but not yet reaped, does not). Linux. */
export function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The child processes of `pid` (Linux: /proc/<pid>/task/<pid>/children). */
export function childPidsOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Polls every 20 ms until every process of `pids` has exited (for the children of a killed
 * process winding down); after `timeoutMs` throws naming those still running.
 */
export async function untilExited(pids: number[], timeoutMs = 10_000): Promise<void> {
  await until(
    () => !pids.some(isRunning),
    () => `pids ${pids.filter(isRunning).join(', ')} to exit`,
    timeoutMs,
  );
}
