// Stopping a long-lived child in steps (docs/architecture.md §5): the owner's polite request
// (ffmpeg's `q`, a helper's shutdown line, closing stdin), then a signal, then SIGKILL, each step
// only when the previous one has not ended the child within its grace.
import type { ChildProcess } from 'node:child_process';

/** Options of {@link stopChild}. */
export type StopChildOptions = {
  /** Settles once the child has ended (its 'close'); rejections count as ended. */
  exited: Promise<unknown>;
  /**
   * The polite first step (write `q`, a shutdown line, close stdin). Return false when it could
   * not be sent (stdin gone): the signal then follows at once.
   */
  request?: () => boolean | void;
  /** ms to wait after the request before the signal; default 1 000. */
  requestGraceMs?: number;
  /** Signal after the request's grace; default SIGTERM. */
  signal?: NodeJS.Signals;
  /** ms to wait after that signal before SIGKILL; default 1 000. */
  killGraceMs?: number;
  /** Sends a signal; default `child.kill(signal)` (pass one to log or to signal a group). */
  kill?: (signal: NodeJS.Signals) => void;
};

/** Which step the child ended after: already gone, the request, the signal, or SIGKILL. */
export type StopStep = 'already-exited' | 'request' | 'signal' | 'kill';

/** True when `exited` settles within `ms` (the timer is cleared either way). */
export async function exitsWithin(exited: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  const ended = (async (): Promise<true> => {
    try {
      await exited;
    } catch {
      // a rejected exit promise still means the child has ended
    }
    return true;
  })();
  try {
    return await Promise.race([ended, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stops `child`: request, wait `requestGraceMs`, `signal`, wait `killGraceMs`, SIGKILL, then
 * waits for `exited`. Resolves with the step after which the child ended.
 */
export async function stopChild(child: ChildProcess, options: StopChildOptions): Promise<StopStep> {
  const kill = options.kill ?? ((signal: NodeJS.Signals) => void child.kill(signal));
  if (child.exitCode !== null || child.signalCode !== null) {
    await options.exited.catch(() => undefined);
    return 'already-exited';
  }
  if (options.request && options.request() !== false) {
    if (await exitsWithin(options.exited, options.requestGraceMs ?? 1000)) {
      return 'request';
    }
  }
  kill(options.signal ?? 'SIGTERM');
  if (await exitsWithin(options.exited, options.killGraceMs ?? 1000)) {
    return 'signal';
  }
  kill('SIGKILL');
  await options.exited.catch(() => undefined);
  return 'kill';
}
