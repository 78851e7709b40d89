// EventBatcher: full batches go at once, flush hands on the rest, nothing empty is ever handed on.
import { describe, expect, it } from 'vitest';
import { EventBatcher } from '../../../src/recorder/input/event-batcher';
import type { InputEvent } from '../../../src/recorder/input/normalize-input-event';

const move = (tMs: number): InputEvent =>
  ({ tMs, kind: 'move', x: tMs, y: 0 }) as unknown as InputEvent;

describe('EventBatcher', () => {
  it('hands on a batch when it is full and the rest on flush, in order', () => {
    const batcher = new EventBatcher(3);
    expect(batcher.flush()).toBeNull();
    expect([1, 2].map((t) => batcher.push(move(t)))).toEqual([null, null]);
    expect(batcher.pendingCount).toBe(2);
    expect(batcher.push(move(3))?.map((e) => e.tMs)).toEqual([1, 2, 3]);
    expect(batcher.pendingCount).toBe(0);
    batcher.push(move(4));
    expect(batcher.flush()?.map((e) => e.tMs)).toEqual([4]);
    expect(batcher.flush()).toBeNull();
  });

  it('holds 500 events by default', () => {
    const batcher = new EventBatcher();
    const full = Array.from({ length: 500 }, (_, i) => batcher.push(move(i)));
    expect(full.slice(0, 499).every((b) => b === null)).toBe(true);
    expect(full[499]).toHaveLength(500);
  });
});
