// Retry delays for model calls: exponential backoff with full jitter (a random wait between 0
// and min(cap, base·2^retry)), and the server's Retry-After when it sends one.

/** How often and how long to retry a failed call. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 = no retry). */
  maxAttempts: number;
  /** The first retry's upper bound; it doubles with each retry. */
  baseDelayMs: number;
  /** No computed wait is longer than this. */
  maxDelayMs: number;
  /** A Retry-After longer than this is cut to it (a server asking for an hour stops the run
   * sooner through its last attempt instead of hanging it). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 1_000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 120_000,
};

/** The wait before retry number `retry` (0 for the first retry): uniform in
 * [0, min(maxDelayMs, baseDelayMs·2^retry)). */
export function fullJitterDelayMs(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/** A Retry-After header in milliseconds: delta-seconds (fractions accepted, as some gateways
 * send them) or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null) {
    return undefined;
  }
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) {
    return Math.round(Number(text) * 1000);
  }
  const at = Date.parse(text);
  if (Number.isNaN(at)) {
    return undefined;
  }
  return Math.max(0, at - nowMs);
}
