import { describe, expect, it } from 'vitest';
import { findingClock, findingTarget } from '../../../src/renderer/lib/privacy-target';
import type { PiiFinding } from '../../../src/shared/domain';
import { makeRecording } from '../helpers/dto';

const base: PiiFinding = {
  id: 'f',
  kind: 'card',
  source: 'typed',
  stepIndex: 2,
  tMs: 3400,
  excerpt: '**** **** **** 1111',
};

describe('findingTarget', () => {
  // steps start at 1000·(i+1) ms; the video's frame 0 is at 500 ms
  const rec = makeRecording(4);

  it('selects the step and seeks to the finding time', () => {
    expect(findingTarget(base, rec)).toEqual({ stepId: 's2', videoSec: 2.9 });
    expect(findingClock(base, rec)).toBe('0:02.9');
  });

  it("seeks to the step's start when the finding has no time", () => {
    expect(findingTarget({ ...base, tMs: null }, rec)).toEqual({ stepId: 's2', videoSec: 2.5 });
    expect(findingClock({ ...base, tMs: null }, rec)).toBe('');
  });

  it('finds the step by its index, not its position, and has no target for the task text', () => {
    const shifted = makeRecording(0, {
      steps: makeRecording(4).steps.slice(1),
    });
    expect(findingTarget(base, shifted).stepId).toBe('s2');
    expect(findingTarget({ ...base, source: 'task', stepIndex: null, tMs: null }, rec)).toEqual({
      stepId: null,
      videoSec: null,
    });
  });

  it('a time without a video selects the step only', () => {
    expect(findingTarget(base, { ...rec, video: null })).toEqual({ stepId: 's2', videoSec: null });
  });
});
