import { describe, expect, it } from 'vitest';
import {
  backoffDelayMs,
  withRetry,
  type RetryInfo,
  type RetryPolicy,
} from '../../../src/services/upload/retry';
import { AppError, isAppError } from '../../../src/shared/errors';

const POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 4 };
const transient = () => new AppError('UPLOAD_UNREACHABLE', 'ECONNREFUSED', { retryable: true });

describe('retry', () => {
  it.each([
    { retry: 0, random: 0, delay: 125 },
    { retry: 0, random: 0.999999, delay: 250 },
    { retry: 3, random: 0, delay: 1000 },
    { retry: 3, random: 1, delay: 2000 },
    { retry: 10, random: 0, delay: 5000 },
    { retry: 10, random: 1, delay: 10_000 },
  ])('backs off exponentially with equal jitter: retry $retry, random $random', (c) => {
    const policy = { maxAttempts: 8, baseDelayMs: 250, maxDelayMs: 10_000 };
    expect(backoffDelayMs(c.retry, policy, () => c.random)).toBeCloseTo(c.delay, 0);
  });

  it('retries transient failures and returns the first success', async () => {
    const retries: RetryInfo[] = [];
    let calls = 0;
    const value = await withRetry(
      () => {
        calls += 1;
        return calls < 3 ? Promise.reject(transient()) : Promise.resolve('ok');
      },
      { policy: POLICY, onRetry: (i) => retries.push(i) },
    );
    expect(value).toBe('ok');
    expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('gives up after maxAttempts, saying so, and never retries permanent failures', async () => {
    let calls = 0;
    let caught: unknown;
    try {
      await withRetry(
        () => {
          calls += 1;
          return Promise.reject(transient());
        },
        { policy: POLICY },
      );
    } catch (e) {
      caught = e;
    }
    expect(calls).toBe(4);
    expect((caught as Error).message).toBe('ECONNREFUSED (gave up after 4 attempts)');

    calls = 0;
    const denied = new AppError('UPLOAD_AUTH', 'denied', { retryable: false });
    await expect(
      withRetry(
        () => {
          calls += 1;
          return Promise.reject(denied);
        },
        { policy: POLICY },
      ),
    ).rejects.toBe(denied);
    expect(calls).toBe(1);
  });

  it('stops with ABORTED when the signal fires during a backoff', async () => {
    const controller = new AbortController();
    let caught: unknown;
    try {
      await withRetry(() => Promise.reject(transient()), {
        policy: { maxAttempts: 10, baseDelayMs: 10_000, maxDelayMs: 10_000 },
        signal: controller.signal,
        onRetry: () => setTimeout(() => controller.abort(), 5),
      });
    } catch (e) {
      caught = e;
    }
    expect(isAppError(caught, 'ABORTED')).toBe(true);
  });
});
