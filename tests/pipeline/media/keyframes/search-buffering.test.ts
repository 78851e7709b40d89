// How searches fit the memory budget, on its own (docs/keyframes.md §6 step 3): a backward
// search gets a reversed decode when a timeline exists and ffmpeg may hold its frames (1.5 bytes
// per pixel) within the budget; decoded forward it buffers RGB (3 bytes per pixel) unless that
// exceeds the budget, and then its reference is prefetched. Forward searches never buffer.
import { describe, expect, it } from 'vitest';
import { planKeyframes } from '../../../../src/pipeline/keyframes/plan';
import type { KeyframeSearchPlan } from '../../../../src/pipeline/keyframes/plan';
import {
  bufferedFrameCount,
  planSearchDecodes,
} from '../../../../src/pipeline/media/keyframes/search-buffering';
import { BACKWARD } from './units';

describe('bufferedFrameCount', () => {
  it('counts the distinct probe and candidate frames before the reference, inside the video', () => {
    expect(bufferedFrameCount(BACKWARD, 100)).toBe(2); // 24 and 27 (30 is the reference)
    expect(bufferedFrameCount(BACKWARD, 25)).toBe(1); // 27 lies past the video's end
  });
});

describe('planSearchDecodes', () => {
  // 10 s at 30 fps: a click with a pre-move (backward search), a typed key (fixed frame), and
  // the terminate search after them
  const plan = planKeyframes({
    videoStartS: 0,
    fps: 30,
    frameCount: 300,
    steps: [
      { action: 'click', preMoveStartS: 1, pressStartS: 3, endS: 3.1 },
      { action: 'type', preMoveStartS: null, pressStartS: 5, endS: 5.5 },
    ],
  });
  const backward = (plan.steps[0] as { search: KeyframeSearchPlan }).search;
  const pixels = bufferedFrameCount(backward, 300) * 100;
  const decide = (hasTimeline: boolean, searchBudget: number) => {
    const d = planSearchDecodes(plan, {
      frameLimit: 300,
      pixelCount: 100,
      searchBudget,
      hasTimeline,
    });
    return {
      reversed: d.searches.filter((s) => d.reversed.has(s)).map((s) => s.target),
      prefetched: d.prefetched.map((s) => s.target),
    };
  };

  it('lists the case A searches, then a forward terminate', () => {
    expect(plan.steps.map((s) => s.rule)).toEqual(['A', 'B']);
    expect(pixels).toBeGreaterThan(0);
    const { searches } = planSearchDecodes(plan, {
      frameLimit: 300,
      pixelCount: 100,
      searchBudget: 1e9,
      hasTimeline: true,
    });
    expect(searches.map((s) => s.target)).toEqual(
      plan.terminate?.rule === 'forward' ? [0, 'terminate'] : [0],
    );
    expect(searches[0]?.plan).toBe(backward);
  });

  it('reverses a backward search with a timeline while its frames fit at 1.5 bytes per pixel', () => {
    expect(decide(true, pixels * 1.5)).toEqual({ reversed: [0], prefetched: [] });
    expect(decide(true, pixels * 1.5 - 1)).toEqual({ reversed: [], prefetched: [0] });
  });

  it('without a timeline, buffers RGB within the budget, else prefetches the reference', () => {
    expect(decide(false, pixels * 3)).toEqual({ reversed: [], prefetched: [] });
    expect(decide(false, pixels * 3 - 1)).toEqual({ reversed: [], prefetched: [0] });
  });

  it('never buffers for a search whose reference lies past the frames that exist', () => {
    const d = planSearchDecodes(plan, {
      frameLimit: backward.refFrame,
      pixelCount: 100,
      searchBudget: 0,
      hasTimeline: true,
    });
    expect([d.reversed.size, d.prefetched.length]).toEqual([0, 0]);
  });
});
