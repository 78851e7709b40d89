// The decode plans on their own (docs/keyframes.md §6 step 3): piped parts merge where they
// overlap and are dealt to the slots longest first (an open-ended forward search counting for
// half its range), and reversed units share a decode only when that saves more than it wastes.
import { describe, expect, it } from 'vitest';
import type { Mp4VideoIndex } from '../../../../src/pipeline/media/mp4-index';
import type { FrameTimeline } from '../../../../src/pipeline/media/frame-timeline';
import {
  planPipedSegments,
  planReversedSegments,
} from '../../../../src/pipeline/media/keyframes/segment-plans';
import { framesUnit, range } from './units';

/** 120 frames, keyframes every 30, samples in presentation order (only what the plan reads). */
const INDEX = {
  keyframes: [0, 30, 60, 90],
  sampleOfFrame: range(0, 119),
} as unknown as Mp4VideoIndex;
const TIMELINE: FrameTimeline = {
  timeBase: { num: 1, den: 15360 },
  pts: range(0, 119).map((n) => n * 512),
  keyframes: [0, 30, 60, 90],
};

describe('planPipedSegments', () => {
  it('merges overlapping parts and deals them to the slots, longest first, ascending within', () => {
    const a = framesUnit([35, 40]);
    const b = framesUnit([38, 50]);
    const c = framesUnit([95, 100]);
    const d = framesUnit([5, 10]);
    const empty = framesUnit([]);
    const segments = planPipedSegments([a, b, c, d, empty], INDEX, 2);
    expect(segments).toEqual([
      {
        startFrame: 30,
        lastFrame: 50,
        units: [a, b],
        isReversed: false,
        runs: [{ firstFrame: 30, lastFrame: 50, firstSample: 30, lastSample: 50 }],
      },
      {
        startFrame: 0,
        lastFrame: 100,
        units: [d, c],
        isReversed: false,
        runs: [
          { firstFrame: 0, lastFrame: 10, firstSample: 0, lastSample: 10 },
          { firstFrame: 90, lastFrame: 100, firstSample: 90, lastSample: 100 },
        ],
      },
    ]);
  });

  it('counts an open-ended search for half its range when balancing the slots', () => {
    const plan = (isOpenEnded: boolean) => {
      const e = framesUnit([0, 58], isOpenEnded); // cost 59, or 30 when open-ended
      const g = framesUnit([60, 85]); // 26
      const k = framesUnit([90, 119]); // 30
      const names = new Map([
        [e, 'e'],
        [g, 'g'],
        [k, 'k'],
      ]);
      return planPipedSegments([e, g, k], INDEX, 2).map((s) => s.units.map((u) => names.get(u)));
    };
    expect(plan(false)).toEqual([['e'], ['g', 'k']]);
    expect(plan(true)).toEqual([['e', 'g'], ['k']]);
  });

  it('uses no more decodes than parts', () => {
    expect(planPipedSegments([framesUnit([3])], INDEX, 4)).toHaveLength(1);
    expect(planPipedSegments([], INDEX, 4)).toEqual([]);
  });
});

describe('planReversedSegments', () => {
  it('shares a decode when the saved frames and start outweigh converting the joining unit', () => {
    const a = framesUnit(range(35, 45)); // 11 frames
    const b = framesUnit(range(40, 50)); // saves 45 − 30 + 70 = 85 ≥ 11 · 6: joins a
    const c = framesUnit(range(41, 60)); // saves 50 − 30 + 70 = 90 < 20 · 6: its own decode
    const d = framesUnit([95, 100]); // keyframe 90 past the decode's end: its own decode
    expect(planReversedSegments([d, c, b, a], TIMELINE)).toEqual([
      { startFrame: 30, lastFrame: 50, units: [a, b], isReversed: true },
      { startFrame: 30, lastFrame: 60, units: [c], isReversed: true },
      { startFrame: 90, lastFrame: 100, units: [d], isReversed: true },
    ]);
  });
});
