// FrameBufferPool: reuses given-back buffers of its size, up to its limit.
import { describe, expect, it } from 'vitest';
import { FrameBufferPool } from '../../../../src/pipeline/media/decoder/buffer-pool';

describe('FrameBufferPool', () => {
  it('hands back released buffers, ignores foreign sizes and keeps at most maxFree', () => {
    const pool = new FrameBufferPool(12, 2);
    const a = pool.acquire();
    const b = pool.acquire();
    const c = pool.acquire();
    expect([a.length, b.length, c.length]).toEqual([12, 12, 12]);
    expect(new Set([a, b, c]).size).toBe(3);
    pool.release(Buffer.alloc(11));
    pool.release(a);
    pool.release(b);
    pool.release(c); // over the limit: dropped
    const reused = [pool.acquire(), pool.acquire()];
    expect(reused.includes(a) && reused.includes(b)).toBe(true);
    const fresh = pool.acquire();
    expect(fresh).not.toBe(a);
    expect(fresh).not.toBe(b);
    expect(fresh).not.toBe(c);
  });
});
