import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../../src/services/upload/limiter';

describe('limiter', () => {
  it('runs at most N tasks at once, in order, and frees slots on failure', async () => {
    const limiter = createLimiter(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) =>
      limiter.run(async () => {
        started.push(i);
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active -= 1;
        if (i === 1) {
          throw new Error('boom');
        }
        return i;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(task));
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(limiter.active).toBe(0);
  });
});
