import { describe, expect, it } from 'vitest';
import { scoreOf, stepResult, type StepResult } from '../../../src/pipeline/replay/score';
import type { ScreenDiff } from '../../../src/pipeline/replay/screen-diff';

function diff(changedFraction: number): ScreenDiff {
  return {
    changedFraction,
    meanAbsDiff: changedFraction / 10,
    changedBlocks: Math.round(changedFraction * 1000),
    totalBlocks: 1000,
  };
}

describe('stepResult', () => {
  it('is ok when the screen matches and the element does not mismatch', () => {
    expect(stepResult(0, diff(0.01), true)).toEqual({
      index: 0,
      screenDiff: 0.01,
      elementMatch: true,
      ok: true,
    });
    expect(stepResult(1, diff(0.02), null).ok).toBe(true);
    expect(stepResult(2, diff(0.01), false).ok).toBe(false);
    expect(stepResult(3, diff(0.021), true).ok).toBe(false);
    expect(stepResult(4, null, true)).toEqual({
      index: 4,
      screenDiff: null,
      elementMatch: true,
      ok: false,
    });
    expect(stepResult(5, diff(0.04), null, 0.05).ok).toBe(true);
  });
});

describe('scoreOf', () => {
  const r = (index: number, ok: boolean): StepResult => ({
    index,
    screenDiff: ok ? 0 : 0.5,
    elementMatch: null,
    ok,
  });

  it('is the share of steps whose screen and element both match', () => {
    expect(scoreOf([r(0, true), r(1, true), r(2, false), r(3, true)])).toEqual({
      score: 0.75,
      firstDivergent: 2,
    });
    expect(scoreOf([r(0, true), r(1, true)])).toEqual({ score: 1, firstDivergent: null });
    expect(scoreOf([r(5, false), r(6, false)])).toEqual({ score: 0, firstDivergent: 5 });
  });

  it('counts an element not recorded as matching and a mismatched element as divergent', () => {
    const steps = [
      stepResult(0, diff(0), null),
      stepResult(1, diff(0), false),
      stepResult(2, diff(0), true),
    ];
    expect(scoreOf(steps)).toEqual({ score: 2 / 3, firstDivergent: 1 });
  });

  it('is 0 with no steps (nothing was shown to replay)', () => {
    expect(scoreOf([])).toEqual({ score: 0, firstDivergent: null });
  });
});
