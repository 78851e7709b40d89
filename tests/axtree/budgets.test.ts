import { describe, expect, it } from 'vitest';
import { BudgetTracker, DEFAULT_SNAPSHOT_BUDGET, normalizeBudget } from '../../src/axtree/budgets';

function clock(start = 1000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('normalizeBudget', () => {
  it('fills defaults', () => {
    expect(normalizeBudget()).toEqual(DEFAULT_SNAPSHOT_BUDGET);
  });

  it('clamps nonsense to sane minimums', () => {
    expect(normalizeBudget({ maxNodes: 0, maxMs: -5, maxChildrenPerNode: 2.7 })).toEqual({
      maxNodes: 1,
      maxMs: 0,
      maxChildrenPerNode: 2,
    });
    expect(normalizeBudget({ maxNodes: Number.NaN }).maxNodes).toBe(2000);
  });
});

describe('BudgetTracker', () => {
  it('grants nodes until the budget and notes the cut', () => {
    const c = clock();
    const t = new BudgetTracker({ maxNodes: 5 }, c.now);
    expect(t.takeNodes(3)).toBe(3);
    expect(t.takeNodes(4)).toBe(2);
    expect(t.takeNodes(1)).toBe(0);
    expect(t.nodeCount()).toBe(5);
    expect(t.isTruncated()).toBe(true);
    expect(t.note()).toBe('node budget 5 reached (3 nodes left out)');
  });

  it('gives back released nodes', () => {
    const t = new BudgetTracker({ maxNodes: 2 }, clock().now);
    t.takeNodes(2);
    t.releaseNodes(1);
    expect(t.takeNodes(1)).toBe(1);
    expect(t.isTruncated()).toBe(false);
    expect(t.note()).toBeUndefined();
  });

  it('tracks time against its own clock', () => {
    const c = clock();
    const t = new BudgetTracker({ maxMs: 100 }, c.now);
    expect(t.remainingMs()).toBe(100);
    c.advance(60);
    expect(t.elapsedMs()).toBe(60);
    expect(t.isOutOfTime()).toBe(false);
    c.advance(50);
    expect(t.remainingMs()).toBe(0);
    expect(t.isOutOfTime()).toBe(true);
  });

  it('caps children per node and joins several reasons', () => {
    const t = new BudgetTracker({ maxChildrenPerNode: 10 }, clock().now);
    expect(t.childrenAllowed(25)).toBe(10);
    expect(t.childrenAllowed(4)).toBe(4);
    t.record('time', 3);
    t.record('errors');
    expect(t.note()).toBe(
      'child budget 10 per node reached (15 children left out); ' +
        'time budget 1500 ms reached (3 nodes not read or not walked); 1 nodes could not be read',
    );
  });
});
