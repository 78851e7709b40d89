// The kept range of a trimmed export and AgentNet's wall-clock strings
// (docs/agentnet-raw-export.md §2, §3).
import { describe, expect, it } from 'vitest';
import { isKept, planKeptRange } from '../../../src/pipeline/export/kept-range';
import { agentNetWallClock, toAgentNetWallClock } from '../../../src/pipeline/export/wall-clock';

const VIDEO = { startMs: 1000, fps: 30, frameCount: 300 };

describe('kept range', () => {
  it('keeps everything without a trim', () => {
    expect(planKeptRange(VIDEO, [], { startMs: null, endMs: null })).toBeNull();
    expect(isKept(null, 123)).toBe(true);
  });

  it('cuts at the frame showing the trim start and reaches the end of the last kept step', () => {
    const kept = planKeptRange(VIDEO, [{ startMs: 5000, endMs: 8500 }], {
      startMs: 4990,
      endMs: 8000,
    })!;
    // 4990 ms is 3.99 s into the video: frame 119 (shown from 3.9667 s) is the cut's frame 0
    expect(kept.startFrame).toBe(119);
    expect(kept.videoStartMs).toBeCloseTo(1000 + (119 * 1000) / 30, 9);
    // the step kept by its start ends at 8500 ms = frame 225; frames up to it are kept
    expect(kept.endFrame).toBe(226);
    expect([kept.fromMs, kept.toMs]).toEqual([4990, 8500]);
    expect([
      isKept(kept, 4989),
      isKept(kept, 4990),
      isKept(kept, 8500),
      isKept(kept, 8501),
    ]).toEqual([false, true, true, false]);
  });

  it('a time exactly on a frame starts the cut on that frame; open ends reach the video ends', () => {
    const start = planKeptRange(VIDEO, [], { startMs: 5000, endMs: null })!;
    expect([start.startFrame, start.endFrame, start.videoStartMs]).toEqual([120, 300, 5000]);
    const end = planKeptRange(VIDEO, [], { startMs: null, endMs: 2000 })!;
    expect([end.startFrame, end.endFrame, end.videoStartMs]).toEqual([0, 31, 1000]);
  });

  it('clamps to the video', () => {
    const kept = planKeptRange(VIDEO, [], { startMs: -5000, endMs: 99_000 })!;
    expect([kept.startFrame, kept.endFrame]).toEqual([0, 300]);
  });
});

describe('AgentNet wall clock', () => {
  it('formats local time to the second, like the fixture', () => {
    expect(agentNetWallClock(new Date(2024, 10, 5, 18, 56, 31, 900))).toBe('2024-11-05 18:56:31');
  });

  it('converts ISO strings and leaves AgentNet strings and other values alone', () => {
    const iso = '2026-12-01T13:44:37.003Z';
    expect(toAgentNetWallClock(iso)).toBe(agentNetWallClock(new Date(iso)));
    expect(toAgentNetWallClock('2024-11-05 18:56:31')).toBe('2024-11-05 18:56:31');
    expect(toAgentNetWallClock('')).toBe('');
    expect(toAgentNetWallClock(null)).toBeNull();
  });
});
