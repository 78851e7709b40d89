// The shared tick: periods that are multiples of SHARED_TICK_MS run off one interval (one timer,
// so one wake-up, for all of them), others get their own; the interval stops with its last
// subscriber, and a throwing subscriber does not keep the others from running.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SHARED_TICK_MS, everyPeriod, sharedTickSubscribers } from '../../src/infra/shared-tick';

describe('everyPeriod', () => {
  const stops: (() => void)[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    stops.splice(0).forEach((stop) => stop());
    vi.useRealTimers();
  });

  it('runs 500 ms and 1 s periods off one timer, each at its own period', () => {
    const calls = { a: 0, b: 0, c: 0 };
    stops.push(everyPeriod(SHARED_TICK_MS, () => (calls.a += 1)));
    stops.push(everyPeriod(SHARED_TICK_MS, () => (calls.b += 1)));
    stops.push(everyPeriod(2 * SHARED_TICK_MS, () => (calls.c += 1)));
    expect(vi.getTimerCount()).toBe(1);
    expect(sharedTickSubscribers()).toBe(3);
    vi.advanceTimersByTime(SHARED_TICK_MS - 1);
    expect(calls).toEqual({ a: 0, b: 0, c: 0 });
    vi.advanceTimersByTime(1);
    expect(calls).toEqual({ a: 1, b: 1, c: 0 });
    vi.advanceTimersByTime(SHARED_TICK_MS);
    expect(calls).toEqual({ a: 2, b: 2, c: 1 });
    vi.advanceTimersByTime(4 * SHARED_TICK_MS);
    expect(calls).toEqual({ a: 6, b: 6, c: 3 });
  });

  it('gives a period that is no multiple of the tick a timer of its own', () => {
    let fast = 0;
    let shared = 0;
    stops.push(everyPeriod(SHARED_TICK_MS, () => (shared += 1)));
    stops.push(everyPeriod(20, () => (fast += 1)));
    expect(vi.getTimerCount()).toBe(2);
    expect(sharedTickSubscribers()).toBe(1);
    vi.advanceTimersByTime(SHARED_TICK_MS);
    expect(fast).toBe(25);
    expect(shared).toBe(1);
  });

  it('stops the shared timer with its last subscriber, and a stop twice is harmless', () => {
    let calls = 0;
    const stopA = everyPeriod(SHARED_TICK_MS, () => (calls += 1));
    const stopB = everyPeriod(SHARED_TICK_MS, () => (calls += 1));
    stopA();
    stopA();
    expect(vi.getTimerCount()).toBe(1);
    stopB();
    expect(vi.getTimerCount()).toBe(0);
    expect(sharedTickSubscribers()).toBe(0);
    vi.advanceTimersByTime(10 * SHARED_TICK_MS);
    expect(calls).toBe(0);
    // a new subscriber starts it again
    stops.push(everyPeriod(SHARED_TICK_MS, () => (calls += 1)));
    vi.advanceTimersByTime(SHARED_TICK_MS);
    expect(calls).toBe(1);
  });

  it('skips a subscriber stopped by another one during the same tick', () => {
    let second = 0;
    let stopSecond: () => void = () => undefined;
    stops.push(everyPeriod(SHARED_TICK_MS, () => stopSecond()));
    stopSecond = everyPeriod(SHARED_TICK_MS, () => (second += 1));
    vi.advanceTimersByTime(3 * SHARED_TICK_MS);
    expect(second).toBe(0);
  });

  it('runs the others when one throws, then throws its error', () => {
    let after = 0;
    stops.push(
      everyPeriod(SHARED_TICK_MS, () => {
        throw new Error('disk check failed');
      }),
    );
    stops.push(everyPeriod(SHARED_TICK_MS, () => (after += 1)));
    expect(() => vi.advanceTimersByTime(SHARED_TICK_MS)).toThrow('disk check failed');
    expect(after).toBe(1);
  });
});
