// planKeyframes rules beyond the golden table: frame indexing, case selection, clamps, bounds.
import { describe, expect, it } from 'vitest';
import { frameIndexAt, planKeyframes } from '../../../src/pipeline/keyframes';
import type { KeyframeSearchPlan, KeyframeStepInput } from '../../../src/pipeline/keyframes';

const VST = 1000;
/** One second of video at 30 fps (L = 1). */
const SHORT_VIDEO = { videoStartS: VST, fps: 30, frameCount: 30 };

function step(overrides: Partial<KeyframeStepInput>): KeyframeStepInput {
  return {
    action: 'click',
    preMoveStartS: null,
    pressStartS: VST + 0.7,
    endS: VST + 0.8,
    ...overrides,
  };
}

function searchOf(plan: ReturnType<typeof planKeyframes>, index: number): KeyframeSearchPlan {
  const s = plan.steps[index];
  if (s?.rule !== 'A') {
    throw new Error(`step ${index} is not case A`);
  }
  return s.search;
}

describe('frameIndexAt (spec §2)', () => {
  it('rounds half up in float64, unlike Math.round', () => {
    expect(frameIndexAt(0.49999999999999994, 1)).toBe(1);
    expect(Math.round(0.49999999999999994)).toBe(0);
    expect(frameIndexAt(0.5 / 30, 30)).toBe(1);
    expect(frameIndexAt(2.5 / 30, 30)).toBe(3); // Python's round() would give 2
    expect(frameIndexAt(6.224339999997028, 30)).toBe(187);
  });
});

describe('planKeyframes', () => {
  it('uses the backward search only for click, mouse_press and drag with a pre-move', () => {
    const plan = planKeyframes({
      ...SHORT_VIDEO,
      steps: [
        step({ action: 'Click', preMoveStartS: VST + 0.1 }),
        step({ action: 'MOUSE_PRESS', preMoveStartS: VST + 0.1 }),
        step({ action: 'drag', preMoveStartS: VST + 0.1 }),
        step({ action: 'double_click', preMoveStartS: VST + 0.1 }),
        step({ action: 'scroll', preMoveStartS: VST + 0.1 }),
        step({ action: 'click', preMoveStartS: null }),
      ],
    });
    expect(plan.steps.map((s) => s.rule)).toEqual(['A', 'A', 'A', 'B', 'B', 'B']);
  });

  it('case B: press − 0.5, at least 0.01 s, clamped to L − 0.01 at the video end', () => {
    const plan = planKeyframes({
      ...SHORT_VIDEO,
      steps: [
        step({ action: 'type', pressStartS: VST + 0.7 }),
        step({ action: 'press', pressStartS: VST + 0.2 }),
        // ends after the video: terminate is fixed at L − 0.01 (frame 30, unreadable)
        step({ action: 'scroll', pressStartS: VST + 1.5, endS: VST + 1.6 }),
      ],
    });
    const pressRel = VST + 0.7 - VST;
    expect(plan.steps).toEqual([
      { rule: 'B', timeS: pressRel - 0.5, frame: frameIndexAt(pressRel - 0.5, 30) },
      { rule: 'B', timeS: 0.01, frame: 0 },
      { rule: 'B', timeS: 1 - 0.01, frame: 30 }, // floor(29.7 + 0.5) = 30: past the last frame
    ]);
    // the terminate (fixed, the video ends first) is the last frame (§1.6)
    expect(plan.candidateFrames).toEqual([0, 6, 29]);
  });

  it('case A: hi = max(lo, press − 0.5), probes down from hi, results + 0.1 clamped', () => {
    const plan = planKeyframes({
      ...SHORT_VIDEO,
      steps: [step({ preMoveStartS: VST + 0.5, pressStartS: VST + 1.45 })],
    });
    const search = searchOf(plan, 0);
    const hi = VST + 1.45 - VST - 0.5;
    expect(search.hiS).toBe(hi);
    expect(search.refFrame).toBe(frameIndexAt(hi, 30));
    expect(search.isRefInRange).toBe(true);
    // probe 0 (t ≈ 0.95) would return ≈ 1.05 ≥ L, clamped to L − 0.01
    expect(search.probes[0]).toEqual({
      timeS: hi,
      frame: 29,
      resultTimeS: 0.99,
      resultFrame: 30,
    });
    expect(search.probes[1]?.resultTimeS).toBe(hi - 0.1 + 0.1);
    expect(search.probes.map((p) => p.frame)).toEqual([29, 26, 23, 20, 17]);
    expect(search.stopProbe).toBeNull();
  });

  it('case A with a pre-move shorter than 0.5 s has hi = lo and a single probe', () => {
    const plan = planKeyframes({
      ...SHORT_VIDEO,
      steps: [step({ preMoveStartS: VST + 0.4, pressStartS: VST + 0.6, endS: VST + 1.1 })],
    });
    const search = searchOf(plan, 0);
    expect(search.hiS).toBe(search.loS);
    expect(search.probes).toHaveLength(1);
    expect(plan.probeFrames).toEqual([]); // the only probe is the reference itself
    expect(plan.referenceFrames).toEqual([12]);
  });

  it('marks a reference frame past the video end and plans no probes for it', () => {
    const plan = planKeyframes({
      ...SHORT_VIDEO,
      steps: [step({ preMoveStartS: VST + 0.5, pressStartS: VST + 2, endS: VST + 2.1 })],
    });
    const search = searchOf(plan, 0);
    expect(search.isRefInRange).toBe(false);
    expect(search.probes).toEqual([]);
    expect(plan.referenceFrames).toEqual([]);
    expect(search.fallbackTimeS).toBe(VST + 0.5 - VST);
  });

  it('stops the backward loop at a probe before frame 0 (pre-move before the video)', () => {
    const plan = planKeyframes({
      ...SHORT_VIDEO,
      steps: [step({ preMoveStartS: VST - 0.3, pressStartS: VST + 0.6 })],
    });
    const search = searchOf(plan, 0);
    expect(search.probes.map((p) => p.frame)).toEqual([3, 0]);
    expect(search.stopProbe?.frame).toBe(-3);
  });

  it('terminate: forward search from the last end, or L − 0.01 when the video ends first', () => {
    const forward = planKeyframes({ ...SHORT_VIDEO, steps: [step({ endS: VST + 0.8 })] });
    expect(forward.terminate?.rule).toBe('forward');
    const search = (forward.terminate as { search: KeyframeSearchPlan }).search;
    expect(search.loS).toBe(VST + 0.8 - VST);
    expect(search.hiS).toBe(1 + VST - VST);
    // probes 0.8, 0.9 read frames 24, 27; 1.0 would read frame 30 (past the end) → stop
    expect(search.probes.map((p) => p.frame)).toEqual([24, 27]);
    expect(search.stopProbe?.frame).toBe(30);
    // the result 1.0 of probe 0.9 is frame 30, past the last frame: the last frame (§1.6)
    expect(search.probes[1]?.resultTimeS).toBe(29 / 30);
    expect(search.probes[1]?.resultFrame).toBe(29);

    const late = planKeyframes({ ...SHORT_VIDEO, steps: [step({ endS: VST + 1.2 })] });
    expect(late.terminate).toEqual({
      rule: 'fixed',
      reason: 'video-ends-first',
      timeS: 29 / 30, // L − 0.01 is frame 30, past the last frame
      frame: 29,
    });
  });

  it('has no terminate and no frames without steps', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [] });
    expect(plan.terminate).toBeNull();
    expect(plan.decodeFrames).toEqual([]);
    expect(plan.referenceFrames).toEqual([]);
  });

  it('rejects invalid video facts and step times', () => {
    expect(() => planKeyframes({ ...SHORT_VIDEO, fps: 0, steps: [] })).toThrow(RangeError);
    expect(() => planKeyframes({ ...SHORT_VIDEO, frameCount: 1.5, steps: [] })).toThrow(RangeError);
    expect(() =>
      planKeyframes({ ...SHORT_VIDEO, steps: [step({ pressStartS: Number.NaN })] }),
    ).toThrow(/steps\[0\]\.pressStartS/);
  });
});
