import { describe, expect, it } from 'vitest';
import { fullJitterDelayMs, parseRetryAfterMs } from '../../../src/infra/openai/backoff';

const policy = { baseDelayMs: 1000, maxDelayMs: 8000 };

describe('fullJitterDelayMs', () => {
  it.each([
    // retry, random, expected: uniform in [0, min(cap, base·2^retry))
    [0, 0, 0],
    [0, 0.5, 500],
    [0, 0.999, 999],
    [1, 0.5, 1000],
    [2, 0.999, 3996],
    [3, 0.5, 4000],
    [4, 0.5, 4000], // 16 s capped at 8 s
    [10, 0.999, 7992],
  ])('retry %i with random %f waits %i ms', (retry, r, expected) => {
    expect(fullJitterDelayMs(retry, policy, () => r)).toBe(expected);
  });

  it('stays inside its bounds over many draws and spreads across them', () => {
    for (let retry = 0; retry < 6; retry += 1) {
      const ceiling = Math.min(8000, 1000 * 2 ** retry);
      const draws = Array.from({ length: 400 }, () => fullJitterDelayMs(retry, policy));
      expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...draws)).toBeLessThan(ceiling);
      // full jitter, not equal jitter: draws fall in the lower quarter too
      expect(draws.some((d) => d < ceiling / 4)).toBe(true);
      expect(draws.some((d) => d > (ceiling * 3) / 4)).toBe(true);
    }
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-12-07T06:00:00Z');
  it.each([
    [null, undefined],
    ['2', 2000],
    [' 0 ', 0],
    ['1.5', 1500],
    ['Mon, 07 Dec 2026 06:00:30 GMT', 30_000],
    ['Mon, 07 Dec 2026 05:59:00 GMT', 0],
    ['soon', undefined],
  ])('%j → %j', (value, expected) => {
    expect(parseRetryAfterMs(value, now)).toBe(expected);
  });
});
