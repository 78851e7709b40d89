// The snapshot policy on a fake clock: when a walk is due, never two at once, reuse of unchanged
// windows, and input standing in for content events only where the adapter has none.
import { describe, expect, it } from 'vitest';
import type { AxSnapshot } from '../../src/axtree/model';
import { SnapshotPolicy, type SnapshotPolicyOptions } from '../../src/axtree/snapshot-policy';

function setup(options: Partial<SnapshotPolicyOptions> = {}): {
  policy: SnapshotPolicy;
  clock: { t: number };
} {
  const clock = { t: 1000 };
  const policy = new SnapshotPolicy({
    now: () => clock.t,
    settleMs: 600,
    minIntervalMs: 1000,
    ...options,
  });
  return { policy, clock };
}

function snap(name: string, truncated = false): AxSnapshot {
  return {
    tMs: 0,
    durationMs: 40,
    root: { role: 'frame', name, states: [], bounds: null, children: [] },
    nodeCount: 1,
    truncated,
  };
}

describe('SnapshotPolicy', () => {
  it('does nothing until the window is known or something happens', () => {
    const { policy } = setup({ hasContentEvents: true });
    expect(policy.decide()).toEqual({ kind: 'idle' });
  });

  it('walks a newly focused window once it settled, and not again while it is unchanged', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    expect(policy.decide()).toEqual({ kind: 'wait', inMs: 600 });
    clock.t += 599;
    expect(policy.decide()).toEqual({ kind: 'wait', inMs: 1 });
    clock.t += 1;
    expect(policy.decide()).toEqual({ kind: 'walk' });
    policy.finished(snap('A'));
    // keys, clicks and the same window again change nothing the adapter did not report
    policy.inputAction();
    policy.windowChanged('0x1');
    clock.t += 5000;
    expect(policy.decide()).toEqual({ kind: 'idle' });
    expect(policy.counts).toEqual({ walks: 1, reuses: 0 });
  });

  it('restarts the settle time with every change', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    clock.t += 500;
    policy.contentChanged(true);
    expect(policy.decide()).toEqual({ kind: 'wait', inMs: 600 });
    clock.t += 600;
    expect(policy.decide().kind).toBe('walk');
  });

  it('never starts a walk while one is in flight, and walks again after it when changed meanwhile', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    clock.t += 600;
    expect(policy.decide().kind).toBe('walk');
    expect(policy.isWalking).toBe(true);
    policy.contentChanged(true);
    clock.t += 5000;
    expect(policy.decide()).toEqual({ kind: 'idle' });
    policy.finished(snap('A'));
    expect(policy.decide().kind).toBe('walk');
    // the walk that saw a change was not cached: switching away and back walks again
    policy.finished(snap('A2'));
    policy.windowChanged('0x2');
    clock.t += 1000;
    expect(policy.decide().kind).toBe('walk');
    policy.finished(snap('B'));
    policy.windowChanged('0x1');
    clock.t += 600;
    expect(policy.decide()).toMatchObject({ kind: 'reuse', snapshot: { root: { name: 'A2' } } });
  });

  it('keeps walks at least the minimum interval apart', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    clock.t += 600;
    expect(policy.decide().kind).toBe('walk');
    policy.finished(snap('A'));
    clock.t += 10;
    policy.contentChanged(true);
    clock.t += 600; // settled, but only 610 ms after the last walk started
    expect(policy.decide()).toEqual({ kind: 'wait', inMs: 390 });
    clock.t += 390;
    expect(policy.decide().kind).toBe('walk');
  });

  it('reuses the snapshot of an unchanged window, stamped now, without a walk', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    clock.t += 600;
    policy.decide();
    policy.finished(snap('A'));
    policy.windowChanged('0x2');
    clock.t += 1000;
    policy.decide();
    policy.finished(snap('B'));
    policy.windowChanged('0x1');
    clock.t += 600;
    const decision = policy.decide();
    expect(decision).toEqual({
      kind: 'reuse',
      snapshot: { ...snap('A'), tMs: clock.t, durationMs: 0 },
    });
    expect(policy.counts).toEqual({ walks: 2, reuses: 1 });
  });

  it('drops cached snapshots on content changes: the focused one, or the others', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    for (const key of ['0x1', '0x2']) {
      policy.windowChanged(key);
      clock.t += 1000;
      expect(policy.decide().kind).toBe('walk');
      policy.finished(snap(key));
    }
    // another application changed: the cached 0x1 may be stale, the focused 0x2 is not
    policy.contentChanged(false);
    clock.t += 1000;
    expect(policy.decide()).toEqual({ kind: 'idle' });
    policy.windowChanged('0x1');
    clock.t += 1000;
    expect(policy.decide().kind).toBe('walk');
    policy.finished(snap('0x1'));
    policy.windowChanged('0x2');
    clock.t += 1000;
    expect(policy.decide().kind).toBe('reuse');
  });

  it('does not cache truncated or empty snapshots', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    clock.t += 600;
    policy.decide();
    policy.finished(snap('A', true));
    policy.windowChanged('0x2');
    clock.t += 1000;
    policy.decide();
    policy.finished({ ...snap('B'), root: null, nodeCount: 0 });
    policy.windowChanged('0x1');
    clock.t += 1000;
    expect(policy.decide().kind).toBe('walk');
  });

  it('treats input as a content change without content events', () => {
    const { policy, clock } = setup({ hasContentEvents: false });
    policy.windowChanged('0x1');
    clock.t += 600;
    policy.decide();
    policy.finished(snap('A'));
    clock.t += 2000;
    policy.inputAction();
    expect(policy.decide()).toEqual({ kind: 'wait', inMs: 600 });
    clock.t += 600;
    expect(policy.decide().kind).toBe('walk');
  });

  it('treats input as a change while no tracker tells the window, even with content events', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.inputAction();
    clock.t += 600;
    expect(policy.decide().kind).toBe('walk');
    policy.finished(snap('A'));
    // no key: nothing cached, the next action walks again
    policy.inputAction();
    clock.t += 1000;
    expect(policy.decide().kind).toBe('walk');
  });

  it('keeps at most maxCachedWindows snapshots, dropping the oldest', () => {
    const { policy, clock } = setup({ hasContentEvents: true, maxCachedWindows: 2 });
    for (const key of ['0x1', '0x2', '0x3']) {
      policy.windowChanged(key);
      clock.t += 1000;
      policy.decide();
      policy.finished(snap(key));
    }
    policy.windowChanged('0x2');
    clock.t += 1000;
    expect(policy.decide().kind).toBe('reuse');
    policy.windowChanged('0x1');
    clock.t += 1000;
    expect(policy.decide().kind).toBe('walk');
  });

  it('does not cache after a failed walk and waits for the next change', () => {
    const { policy, clock } = setup({ hasContentEvents: true });
    policy.windowChanged('0x1');
    clock.t += 600;
    policy.decide();
    policy.finished(null);
    clock.t += 5000;
    expect(policy.decide()).toEqual({ kind: 'idle' });
    policy.contentChanged(true);
    clock.t += 600;
    expect(policy.decide().kind).toBe('walk');
  });
});
