// resolveKeyframes failure paths: each reference failure becomes a diagnostic (spec §1.6).
import { describe, expect, it } from 'vitest';
import {
  planKeyframes,
  resolveKeyframes,
  resolveUnreadableVideo,
} from '../../../src/pipeline/keyframes';
import type { KeyframeStepInput } from '../../../src/pipeline/keyframes';

const VST = 1000;
const SHORT_VIDEO = { videoStartS: VST, fps: 30, frameCount: 30 };

function click(preMoveRel: number, pressRel: number, endRel = pressRel + 0.1): KeyframeStepInput {
  return {
    action: 'click',
    preMoveStartS: VST + preMoveRel,
    pressStartS: VST + pressRel,
    endS: VST + endRel,
  };
}

describe('resolveKeyframes diagnostics', () => {
  it('reference outside the video: lo (clamped) and KEYFRAME_REF_OUT_OF_RANGE', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(0.5, 2, 0.9)] });
    const { steps } = resolveKeyframes(plan, { steps: [null], terminate: null });
    expect(steps[0]?.timeS).toBe(VST + 0.5 - VST);
    expect(steps[0]?.source).toBe('lo');
    expect(steps[0]?.diagnostics.map((d) => d.code)).toEqual(['KEYFRAME_REF_OUT_OF_RANGE']);
  });

  it('reference not decoded: lo and KEYFRAME_REF_OUT_OF_RANGE', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(0.1, 0.9)] });
    const { steps } = resolveKeyframes(plan, {
      steps: [{ isRefRead: false, differs: [] }],
      terminate: null,
    });
    expect(steps[0]?.timeS).toBe(VST + 0.1 - VST);
    expect(steps[0]?.diagnostics[0]?.code).toBe('KEYFRAME_REF_OUT_OF_RANGE');
    expect(steps[0]?.diagnostics[0]?.message).toMatch(/frame 12 .*not decoded/);
  });

  it('an undecoded probe ends the walk with lo even if a later probe differs', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(0.1, 0.9)] });
    const outcome = (differs: (boolean | null)[]) =>
      resolveKeyframes(plan, { steps: [{ isRefRead: true, differs }], terminate: null }).steps[0];
    expect(outcome([false, null, true])).toMatchObject({
      timeS: VST + 0.1 - VST,
      source: 'lo',
      differingProbe: null,
      diagnostics: [{ code: 'KEYFRAME_PROBE_FAILED' }],
    });
    // the walk stops at the first differing probe: later nulls are never looked at
    expect(outcome([false, true, null])).toMatchObject({
      source: 'differing-probe',
      differingProbe: 1,
      diagnostics: [],
    });
    // nothing differs: lo without a diagnostic
    expect(outcome([false, false, false])).toMatchObject({ source: 'lo', diagnostics: [] });
  });

  it('a backward probe before frame 0 is a failed probe', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(-0.3, 0.6)] });
    const { steps } = resolveKeyframes(plan, {
      steps: [{ isRefRead: true, differs: [false, false] }],
      terminate: null,
    });
    expect(steps[0]?.diagnostics.map((d) => d.code)).toEqual([
      'KEYFRAME_PROBE_FAILED',
      // lo itself is before the video: its frame is missing too
      'KEYFRAME_FRAME_MISSING',
    ]);
    expect(steps[0]?.frame).toBe(-9);
  });

  it('terminate: a result past the video end is the last frame, with no diagnostic (issue 26 item 14)', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(0.1, 0.7, 0.8)] });
    const { terminate } = resolveKeyframes(plan, {
      steps: [{ isRefRead: true, differs: [false, false] }],
      terminate: { isRefRead: true, differs: [false, true] },
    });
    // the reference returns 0.8 + 0.1 + 0.1 (frame 30 of 30) and keeps a null image
    expect(terminate?.timeS).toBe(29 / 30);
    expect(terminate?.frame).toBe(29);
    expect(terminate?.diagnostics).toEqual([]);
  });

  it('terminate: running into the video end without a change is lo and no diagnostic', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(0.1, 0.7, 0.8)] });
    const { terminate } = resolveKeyframes(plan, {
      steps: [{ isRefRead: true, differs: [false, false] }],
      terminate: { isRefRead: true, differs: [false, false] },
    });
    expect(terminate).toMatchObject({ timeS: VST + 0.8 - VST, frame: 24, diagnostics: [] });
  });

  it('asks isFrameReadable about the chosen frame', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [{ ...click(0.1, 0.7), action: 'type' }] });
    const { steps } = resolveKeyframes(
      plan,
      { steps: [null], terminate: null },
      { isFrameReadable: (frame) => frame !== 6 },
    );
    expect(steps[0]?.frame).toBe(6);
    expect(steps[0]?.diagnostics.map((d) => d.code)).toEqual(['KEYFRAME_FRAME_MISSING']);
  });

  it('an unreadable video gives every step and terminate KEYFRAME_VIDEO_UNREADABLE', () => {
    const plan = planKeyframes({ ...SHORT_VIDEO, steps: [click(0.1, 0.7), click(0.2, 0.8)] });
    const resolved = resolveUnreadableVideo(plan, 'moov atom not found');
    expect([...resolved.steps, resolved.terminate]).toEqual(
      Array.from({ length: 3 }, () => ({
        timeS: null,
        frame: null,
        source: 'none',
        differingProbe: null,
        diagnostics: [{ code: 'KEYFRAME_VIDEO_UNREADABLE', message: 'moov atom not found' }],
      })),
    );
  });
});
