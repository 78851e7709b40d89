// The idle and long-recording warnings over a fake session clock, and the display-change one.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_IDLE_WARN_MS,
  DEFAULT_LONG_RECORDING_WARN_MS,
  displayChangedWarning,
  formatRecordingClock,
  LiveWarningMonitor,
} from '../../src/recorder/live-warnings';
import { liveWarningCodeOf } from '../../src/shared/domain';

const T0 = 50_000; // session clock of frame 0

describe('LiveWarningMonitor', () => {
  it('raises IDLE_LONG once per idle stretch, again after input starts a new one', () => {
    const m = new LiveWarningMonitor({ idleMs: 2000, longRecordingMs: 0, originMs: T0 });
    expect(m.check(T0 + 1999)).toEqual([]);
    const [first, ...rest] = m.check(T0 + 2000);
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ code: 'IDLE_LONG', tMs: T0 + 2000 });
    expect(first!.message).toMatch(/^IDLE_LONG: no input for 2 s \(since 0:00\.0\)/);
    expect(m.check(T0 + 3000)).toEqual([]);
    expect(m.check(T0 + 60_000)).toEqual([]); // still the same stretch
    m.input(T0 + 61_000, T0 + 60_900);
    expect(m.check(T0 + 62_900)).toEqual([]);
    const again = m.check(T0 + 63_000);
    expect(again.map((w) => w.code)).toEqual(['IDLE_LONG']);
    expect(again[0]!.message).toContain('(since 1:00.9)'); // the input's own time
  });

  it('input keeps the stretch short: no warning while input comes often enough', () => {
    const m = new LiveWarningMonitor({ idleMs: 2000, longRecordingMs: 0, originMs: T0 });
    for (let t = T0; t < T0 + 20_000; t += 500) {
      m.input(t);
      expect(m.check(t + 400)).toEqual([]);
    }
  });

  it('paused time counts neither as idle nor as recorded time', () => {
    const m = new LiveWarningMonitor({ idleMs: 2000, longRecordingMs: 5000, originMs: T0 });
    m.check(T0 + 1500);
    m.pause(T0 + 1500);
    expect(m.check(T0 + 100_000)).toEqual([]); // nothing while paused
    m.resume(T0 + 100_000);
    expect(m.check(T0 + 100_400)).toEqual([]); // 1.9 s idle recorded
    expect(m.check(T0 + 100_500).map((w) => w.code)).toEqual(['IDLE_LONG']);
    m.input(T0 + 100_600); // input while recording: the idle stretch ends
    m.pause(T0 + 101_000);
    m.input(T0 + 102_000); // while paused: ignored (the session keeps none)
    m.resume(T0 + 200_000); // recorded 2.5 s, the last input at 2.1 s of it
    expect(m.check(T0 + 201_500)).toEqual([]); // idle 1.9 s, recorded 4 s
    expect(m.check(T0 + 201_600).map((w) => w.code)).toEqual(['IDLE_LONG']);
    expect(m.check(T0 + 202_499)).toEqual([]);
    expect(m.check(T0 + 202_500).map((w) => w.code)).toEqual(['RECORDING_LONG']);
  });

  it('raises RECORDING_LONG once when recorded time passes the threshold', () => {
    const m = new LiveWarningMonitor({ idleMs: 0, longRecordingMs: 10_000, originMs: T0 });
    m.pause(T0 + 4000);
    m.resume(T0 + 64_000); // a minute paused
    expect(m.check(T0 + 69_999)).toEqual([]);
    const [w] = m.check(T0 + 70_000);
    expect(w!.code).toBe('RECORDING_LONG');
    expect(w!.message).toMatch(
      /^RECORDING_LONG: recording for 10 s \(pauses excluded\) at 1:10\.0;/,
    );
    expect(m.check(T0 + 500_000)).toEqual([]);
  });

  it('defaults: 60 s idle, 30 min long; checks at most once a second', () => {
    expect(DEFAULT_IDLE_WARN_MS).toBe(60_000);
    expect(DEFAULT_LONG_RECORDING_WARN_MS).toBe(1_800_000);
    const m = new LiveWarningMonitor({ originMs: 0 });
    expect(m.checkIntervalMs).toBe(1000);
    expect(m.check(59_999)).toEqual([]);
    m.input(59_999);
    expect(m.check(1_799_999).map((w) => w.code)).toEqual(['IDLE_LONG']);
    const long = m.check(1_800_000);
    expect(long.map((w) => w.code)).toEqual(['RECORDING_LONG']);
    expect(long[0]!.message).toContain('recording for 30 min');
    expect(new LiveWarningMonitor({ idleMs: 1500, originMs: 0 }).checkIntervalMs).toBe(150);
  });

  it('the codes are told apart from other warnings', () => {
    const w = displayChangedWarning(
      { x: 0, y: 0, width: 1280, height: 800, scale: 1 },
      { x: -640, y: 50, width: 640, height: 480, scale: 2 },
      T0 + 12_345,
      T0,
    );
    expect(w.message).toMatch(
      /^DISPLAY_CHANGED: the recorded display changed from 1280x800 to 640x480-640\+50 @2x at 0:12\.3;/,
    );
    expect(liveWarningCodeOf(w.message)).toBe('DISPLAY_CHANGED');
    expect(liveWarningCodeOf('IDLE_LONG: x')).toBe('IDLE_LONG');
    expect(liveWarningCodeOf('only 100 MB free on the disk')).toBeNull();
    expect(liveWarningCodeOf('INPUT: something')).toBeNull();
    expect(formatRecordingClock(75 * 60_000 + 4_250)).toBe('75:04.3');
  });
});
