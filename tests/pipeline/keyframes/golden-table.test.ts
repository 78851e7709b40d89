// planKeyframes + resolveKeyframes against the golden table of docs/keyframes.md §5 (no video): the
// "differs" booleans come from the table's outcomes, every time is compared bit-exactly.
import { describe, expect, it } from 'vitest';
import { planKeyframes, resolveKeyframes } from '../../../src/pipeline/keyframes';
import type { KeyframeOutcomes, KeyframeSearchPlan } from '../../../src/pipeline/keyframes';
import {
  GOLDEN_FPS,
  GOLDEN_FRAME_COUNT,
  GOLDEN_ROUNDED_TIMES,
  GOLDEN_ROWS,
  GOLDEN_STEP_INPUTS,
  GOLDEN_TERMINATE,
  GOLDEN_VST,
} from './golden';

const plan = planKeyframes({
  videoStartS: GOLDEN_VST,
  fps: GOLDEN_FPS,
  frameCount: GOLDEN_FRAME_COUNT,
  steps: GOLDEN_STEP_INPUTS,
});

/** Verdicts as the table states them: probes before the differing one are similar. */
function differsFromTable(search: KeyframeSearchPlan, differingK: number | null): boolean[] {
  return search.probes.map((_, k) => (differingK === null ? false : k === differingK));
}

function goldenOutcomes(): KeyframeOutcomes {
  return {
    steps: GOLDEN_ROWS.map((row, index) => {
      const step = plan.steps[index];
      if (row.rule !== 'A' || step?.rule !== 'A') {
        return null;
      }
      return { isRefRead: true, differs: differsFromTable(step.search, row.differing?.k ?? null) };
    }),
    terminate:
      plan.terminate?.rule === 'forward'
        ? {
            isRefRead: true,
            differs: differsFromTable(plan.terminate.search, GOLDEN_TERMINATE.differing.k),
          }
        : null,
  };
}

describe('keyframe plan on the golden table (spec §5)', () => {
  it('has the video length L = 122.6 and one plan per step', () => {
    expect(plan.durationS).toBe(122.6);
    expect(plan.steps).toHaveLength(14);
  });

  it.each(GOLDEN_ROWS)('step $step: rule, lo, hi, reference frame and loop length', (row) => {
    const step = plan.steps[row.step];
    if (row.rule === 'B') {
      expect(step).toEqual({ rule: 'B', timeS: row.chosenT, frame: row.frame });
      return;
    }
    expect(step?.rule).toBe('A');
    const search = (step as { search: KeyframeSearchPlan }).search;
    const differingProbe = row.differing ? search.probes[row.differing.k] : undefined;
    expect({
      direction: search.direction,
      lo: search.loS,
      hi: search.hiS,
      refFrame: search.refFrame,
      probeCount: search.probes.length,
      stopProbe: search.stopProbe,
      differing: differingProbe
        ? {
            t: differingProbe.timeS,
            frame: differingProbe.frame,
            resultT: differingProbe.resultTimeS,
            resultFrame: differingProbe.resultFrame,
          }
        : null,
      fallback: { t: search.fallbackTimeS, frame: search.fallbackFrame },
    }).toEqual({
      direction: 'backward',
      lo: row.lo,
      hi: row.hi,
      refFrame: row.refFrame,
      probeCount: row.probeCount,
      stopProbe: null,
      differing: row.differing && {
        t: row.differing.t,
        frame: row.differing.frame,
        resultT: row.chosenT,
        resultFrame: row.frame,
      },
      fallback: { t: row.lo, frame: Math.floor(row.lo * 30 + 0.5) },
    });
  });

  it('probes step by repeated float64 subtraction, not hi − k·0.1', () => {
    let differsFromMultiplied = 0;
    for (const step of plan.steps) {
      if (step.rule !== 'A') {
        continue;
      }
      let t = step.search.hiS;
      for (const [k, probe] of step.search.probes.entries()) {
        expect(probe.timeS).toBe(t);
        expect(probe.frame).toBe(Math.floor(t * 30 + 0.5));
        if (probe.timeS !== step.search.hiS - k * 0.1) {
          differsFromMultiplied += 1;
        }
        t -= 0.1;
      }
      // the loop ends because the next probe would fall below lo
      expect(t).toBeLessThan(step.search.loS);
    }
    // the table's times would not be reproduced by hi − k·0.1 (so this test can tell them apart)
    expect(differsFromMultiplied).toBeGreaterThan(0);
  });

  it('lists the reference frames of §5 (case A Ref and terminate S) for pass 1', () => {
    expect(plan.referenceFrames).toEqual([
      196, 257, 301, 458, 696, 888, 989, 1101, 1235, 1384, 3237, 3307, 3446, 3473,
    ]);
  });

  it('plans the terminate forward search with hi = (L + vst) − vst', () => {
    expect(plan.terminate?.rule).toBe('forward');
    const search = (plan.terminate as { search: KeyframeSearchPlan }).search;
    expect(search.direction).toBe('forward');
    expect(search.loS).toBe(GOLDEN_TERMINATE.lo);
    expect(search.hiS).toBe(GOLDEN_TERMINATE.hi);
    expect(search.hiS).not.toBe(122.6);
    expect(search.refFrame).toBe(GOLDEN_TERMINATE.refFrame);
    const probe = search.probes[GOLDEN_TERMINATE.differing.k];
    expect(probe).toEqual({
      timeS: GOLDEN_TERMINATE.differing.t,
      frame: GOLDEN_TERMINATE.differing.frame,
      resultTimeS: GOLDEN_TERMINATE.chosenT,
      resultFrame: GOLDEN_TERMINATE.frame,
    });
    // forward loop: lo, lo+0.1, … by repeated addition while t ≤ hi
    let t = search.loS;
    for (const p of search.probes) {
      expect(p.timeS).toBe(t);
      t += 0.1;
    }
    expect(t).toBeGreaterThan(search.hiS);
    expect(search.probes).toHaveLength(69);
    // the last probe (t ≈ 122.577) still reads a frame of the video, so no probe fails
    expect(search.probes.at(-1)?.frame).toBe(GOLDEN_FRAME_COUNT - 1);
    expect(search.stopProbe).toBeNull();
  });

  it('decodes every probe and candidate frame in pass 2, all inside the video', () => {
    const probeFrames = new Set<number>();
    for (const step of plan.steps) {
      if (step.rule === 'A') {
        for (const probe of step.search.probes) {
          if (probe.frame !== step.search.refFrame) {
            probeFrames.add(probe.frame);
          }
        }
      }
    }
    expect(plan.probeFrames).toEqual(expect.arrayContaining([...probeFrames]));
    for (const row of GOLDEN_ROWS) {
      expect(plan.candidateFrames).toContain(row.frame);
    }
    expect(plan.candidateFrames).toContain(GOLDEN_TERMINATE.frame);
    expect(plan.decodeFrames).toEqual(
      [...new Set([...plan.probeFrames, ...plan.candidateFrames])].sort((a, b) => a - b),
    );
    expect(plan.decodeFrames.every((f) => f >= 0 && f < GOLDEN_FRAME_COUNT)).toBe(true);
  });
});

describe('keyframe resolution on the golden table (spec §5)', () => {
  const resolved = resolveKeyframes(plan, goldenOutcomes());

  it('chooses every step time and frame of the table bit-exactly, without diagnostics', () => {
    expect(
      resolved.steps.map((step) => ({
        t: step.timeS,
        frame: step.frame,
        k: step.differingProbe,
        diagnostics: step.diagnostics,
      })),
    ).toEqual(
      GOLDEN_ROWS.map((row) => ({
        t: row.chosenT,
        frame: row.frame,
        k: row.rule === 'B' ? null : (row.differing?.k ?? null),
        diagnostics: [],
      })),
    );
    expect(resolved.steps.map((step) => step.source)).toEqual([
      'lo',
      'differing-probe',
      'lo',
      'differing-probe',
      'differing-probe',
      'pre-press',
      'lo',
      'lo',
      'differing-probe',
      'differing-probe',
      'differing-probe',
      'differing-probe',
      'differing-probe',
      'differing-probe',
    ]);
  });

  it('chooses the terminate time (video-relative) and frame of the table', () => {
    expect(resolved.terminate).toEqual({
      timeS: GOLDEN_TERMINATE.chosenT,
      frame: GOLDEN_TERMINATE.frame,
      source: 'differing-probe',
      differingProbe: 1,
      diagnostics: [],
    });
  });

  it('matches the rounded summary of docs/pyautogui-code.md §6.1', () => {
    const times = [...resolved.steps, resolved.terminate].map((k) => k?.timeS ?? NaN);
    expect(times.map((t) => Math.round(t * 10_000) / 10_000)).toEqual(GOLDEN_ROUNDED_TIMES);
  });

  it('never chooses a time after press − 0.5 (no future leakage, §5)', () => {
    for (const [index, step] of resolved.steps.entries()) {
      const input = GOLDEN_STEP_INPUTS[index]!;
      const pressRel = input.pressStartS - GOLDEN_VST;
      const planStep = plan.steps[index]!;
      const bound = planStep.rule === 'A' ? planStep.search.hiS : pressRel - 0.5;
      expect(step.timeS!).toBeLessThanOrEqual(bound + 1e-9);
    }
  });
});
