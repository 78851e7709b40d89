// Retries with exponential backoff and jitter for transient storage failures (network errors,
// 5xx, throttling). Permanent failures (bad credentials, missing bucket) are thrown at once.
import { AppError, isAppError } from '../../shared/errors';

/** How often and how patiently to retry one request. */
export type RetryPolicy = {
  /** Attempts including the first; 1 = no retry. Default 8. */
  maxAttempts: number;
  /** Backoff before the first retry (ms, before jitter). Default 250. */
  baseDelayMs: number;
  /** Ceiling of one backoff (ms). Default 10,000. */
  maxDelayMs: number;
};

/** ~25 s of patience in total on average: rides out a proxy restart or a short network drop. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
};

// Backoff before retry number `retryIndex` (0-based): "equal jitter", i.e. a random delay between
// half and all of min(max, base × 2^retryIndex), so delays grow but concurrent workers spread out.
// https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
export function backoffDelayMs(
  retryIndex: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return cap / 2 + random() * (cap / 2);
}

/** True for errors worth retrying (AppErrors carrying `details.retryable`). */
export function isRetryable(e: unknown): boolean {
  return isAppError(e) && e.details?.retryable === true;
}

/** One retry about to happen. */
export type RetryInfo = {
  /** 1-based attempt that failed. */
  attempt: number;
  delayMs: number;
  error: AppError;
};

/** Options of {@link withRetry}. */
export type WithRetryOptions = {
  policy: RetryPolicy;
  signal?: AbortSignal;
  /** Called before each backoff sleep. */
  onRetry?: (info: RetryInfo) => void;
  /** Random source in [0, 1) for the jitter (tests). Default Math.random. */
  random?: () => number;
};

// Sleeps `ms`, rejecting with ABORTED when the signal fires.
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// The error a cancelled operation rejects with.
export function abortedError(): AppError {
  return new AppError('ABORTED', 'The upload was cancelled.');
}

// Runs `op` until it succeeds, fails permanently, runs out of attempts or is aborted.
export async function withRetry<T>(
  op: (attempt: number) => Promise<T>,
  options: WithRetryOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    if (options.signal?.aborted) {
      throw abortedError();
    }
    try {
      return await op(attempt);
    } catch (e) {
      if (options.signal?.aborted) {
        throw abortedError();
      }
      if (!isRetryable(e) || attempt >= options.policy.maxAttempts) {
        if (isRetryable(e) && isAppError(e)) {
          throw new AppError(e.code, `${e.message} (gave up after ${attempt} attempts)`, {
            ...e.details,
            attempts: attempt,
          });
        }
        throw e;
      }
      const delayMs = backoffDelayMs(attempt - 1, options.policy, options.random);
      options.onRetry?.({ attempt, delayMs, error: e as AppError });
      await sleep(delayMs, options.signal);
    }
  }
}
