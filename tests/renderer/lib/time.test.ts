import { describe, expect, it } from 'vitest';
import {
  formatClockSec,
  formatSpanMs,
  recordingOriginMs,
  formatDurationMs,
  localDateEndMs,
  localDateStartMs,
  recordingMsToVideoSec,
  stepIndexAtVideoTime,
  stepVideoTimeSec,
  videoSecToRecordingMs,
} from '../../../src/renderer/lib/time';

// the AgentNet fixture: video t=0 at 30673.6036902 s on the recording clock
const VIDEO_START_MS = 30673603.6902;

describe('stepVideoTimeSec', () => {
  it.each([
    // keyframeMs wins over startMs
    [{ keyframeMs: VIDEO_START_MS + 7023, startMs: VIDEO_START_MS + 6000 }, 7.023],
    // no keyframe yet: the step start
    [{ keyframeMs: null, startMs: VIDEO_START_MS + 15_753 }, 15.753],
    // before the video started: clamped to 0
    [{ keyframeMs: null, startMs: VIDEO_START_MS - 2000 }, 0],
  ])('%o → %f s', (step, sec) => {
    expect(stepVideoTimeSec(step, VIDEO_START_MS)).toBeCloseTo(sec, 6);
  });

  it('round-trips recording ms ↔ video s', () => {
    const ms = VIDEO_START_MS + 12_345.5;
    expect(
      videoSecToRecordingMs(recordingMsToVideoSec(ms, VIDEO_START_MS), VIDEO_START_MS),
    ).toBeCloseTo(ms, 6);
  });
});

describe('stepIndexAtVideoTime', () => {
  const steps = [1000, 2000, 4000, 8000].map((t) => ({ keyframeMs: null, startMs: t }));
  it.each([
    [0, 0], // before the first step: the first
    [0.5, 0],
    [1.0, 0], // exactly at a step
    [1.99, 0],
    [1.9995, 1], // within the 1 ms seek tolerance
    [2.0, 1],
    [3.9, 1],
    [4.0, 2],
    [7.99, 2],
    [8.0, 3],
    [100, 3], // after the last
  ])('playhead %f s → step %i', (sec, index) => {
    expect(stepIndexAtVideoTime(steps, sec, 0)).toBe(index);
  });

  it('uses keyframe times when present and the video offset', () => {
    const s = [
      { keyframeMs: 10_500, startMs: 10_000 },
      { keyframeMs: 12_500, startMs: 12_000 },
    ];
    expect(stepIndexAtVideoTime(s, 2.2, 10_000)).toBe(0);
    expect(stepIndexAtVideoTime(s, 2.5, 10_000)).toBe(1);
  });

  it('is -1 without steps', () => {
    expect(stepIndexAtVideoTime([], 3, 0)).toBe(-1);
  });
});

describe('formatting', () => {
  it.each([
    [null, '–'],
    [0, '0:00'],
    [59_999, '0:59'],
    [122_600, '2:02'],
    [3_600_000 + 61_000, '1:01:01'],
  ])('duration %s → %s', (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text);
  });

  it.each([
    [0, '0:00.0'],
    [7.023, '0:07.0'],
    [122.6, '2:02.6'],
    [-1, '0:00.0'],
  ])('clock %f → %s', (sec, text) => {
    expect(formatClockSec(sec)).toBe(text);
  });

  it('turns a local date into a [start, end) day range', () => {
    const start = localDateStartMs('2024-11-05');
    const end = localDateEndMs('2024-11-05');
    expect(start).not.toBeNull();
    expect(new Date(start!).getDate()).toBe(5);
    expect(new Date(end!).getDate()).toBe(6);
    expect(localDateStartMs('')).toBeNull();
    expect(localDateStartMs('2024-02-31')).toBeNull();
  });
});

describe('issue 10 item 24: times relative to the recording start', () => {
  it('item 24: a step span is shown as offsets from the video start, not raw clock seconds', () => {
    const rec = { video: { startMs: VIDEO_START_MS }, steps: [{ startMs: VIDEO_START_MS + 500 }] };
    const origin = recordingOriginMs(rec);
    expect(origin).toBe(VIDEO_START_MS);
    const text = formatSpanMs(VIDEO_START_MS + 8_400, VIDEO_START_MS + 9_150, origin);
    expect(text).toBe('0:08.4 – 0:09.1 (0.8 s)');
    expect(text).not.toMatch(/30673/);
    // without a video: from the first step
    expect(recordingOriginMs({ video: null, steps: [{ startMs: 1_643_007 }] })).toBe(1_643_007);
  });
});
