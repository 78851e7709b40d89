// estimateVideoStart: which clock a device stamp is on, and the fallback when there is none.
import { describe, expect, it } from 'vitest';
import type { WallClockOffset } from '../../../src/recorder/clock';
import {
  DEVICE_STAMP_LATENCY_MS,
  estimateVideoStart,
} from '../../../src/recorder/screen/video-start';
import type { VideoStartObservation } from '../../../src/recorder/screen/video-start';

/** Numbers from a real x11grab start-up (Debian 5.1.9): spawn → header 260 ms. */
const WALL_OFFSET_MS = 1_796_046_970_000.25;
const offsets: WallClockOffset[] = [
  { offsetMs: WALL_OFFSET_MS, uncertaintyMs: 0.125, sampledAtMs: 1_000_000 },
  { offsetMs: WALL_OFFSET_MS + 0.5, uncertaintyMs: 0.25, sampledAtMs: 1_000_260 },
];
const base: Omit<VideoStartObservation, 'inputStart'> = {
  device: 'x11grab',
  spawnedAtMs: 1_000_000,
  headerAtMs: 1_000_260,
  readyAtMs: 1_000_300,
  wallOffsets: offsets,
};

describe('estimateVideoStart', () => {
  it('converts a wall-clock stamp (x11grab av_gettime) with the nearest offset', () => {
    const frame0Ms = 1_000_221.5;
    const estimate = estimateVideoStart({
      ...base,
      inputStart: { kind: 'start', seconds: (frame0Ms + WALL_OFFSET_MS + 0.5) / 1000 },
    });
    expect(estimate.method).toBe('x11grab-pts-wallclock');
    expect(estimate.monotonicMs).toBeCloseTo(frame0Ms, 2);
    // stamp latency + offset uncertainty + disagreement of the two samples
    expect(estimate.uncertaintyMs).toBe(DEVICE_STAMP_LATENCY_MS + 0.25 + 0.5);
    expect(estimate.deviceStartSec).toBeCloseTo((frame0Ms + WALL_OFFSET_MS + 0.5) / 1000, 6);
  });

  it('avfoundation: its relative stamp (start 0) says nothing, the wall-clock one does', () => {
    // without -use_wallclock_as_timestamps avfoundation stamps av_gettime() - first_pts
    expect(
      estimateVideoStart({
        ...base,
        device: 'avfoundation',
        inputStart: { kind: 'start', seconds: 0 },
      }).method,
    ).toBe('spawn-to-ready');
    // with it (ffmpeg-args.ts), the same read time as an absolute wall-clock stamp
    const frame0Ms = 1_000_180;
    const estimate = estimateVideoStart({
      ...base,
      device: 'avfoundation',
      inputStart: { kind: 'start', seconds: (frame0Ms + WALL_OFFSET_MS + 0.5) / 1000 },
    });
    expect(estimate.method).toBe('avfoundation-pts-wallclock');
    expect(estimate.monotonicMs).toBeCloseTo(frame0Ms, 2);
  });

  it('takes a CLOCK_MONOTONIC stamp (av_gettime_relative builds) as is', () => {
    const estimate = estimateVideoStart({
      ...base,
      device: 'gdigrab',
      inputStart: { kind: 'start', seconds: 1_000.2215 },
    });
    expect(estimate).toEqual({
      monotonicMs: 1_000_221.5,
      method: 'gdigrab-pts-monotonic',
      uncertaintyMs: DEVICE_STAMP_LATENCY_MS,
      deviceStartSec: 1_000.2215,
    });
  });

  it('falls back to the spawn-to-header window for implausible or missing stamps', () => {
    // e.g. a stamp relative to the device's own start, or Windows' wall + 42 h fallback clock
    const implausible = estimateVideoStart({
      ...base,
      inputStart: { kind: 'start', seconds: 0.1 },
    });
    expect(implausible).toEqual({
      monotonicMs: 1_000_130,
      method: 'spawn-to-ready',
      uncertaintyMs: 130,
      deviceStartSec: 0.1,
    });
    const none = estimateVideoStart({
      ...base,
      device: 'ddagrab',
      inputStart: null,
      headerAtMs: null,
    });
    expect(none).toEqual({
      monotonicMs: 1_000_150,
      method: 'spawn-to-ready',
      uncertaintyMs: 150,
      deviceStartSec: null,
    });
  });

  it('rejects a stamp after the header arrived or long before the spawn', () => {
    const late = estimateVideoStart({
      ...base,
      inputStart: { kind: 'start', seconds: 1_000.4 }, // 100 ms after the header line
    });
    expect(late.method).toBe('spawn-to-ready');
    const early = estimateVideoStart({
      ...base,
      inputStart: { kind: 'start', seconds: 999.9 }, // 100 ms before spawning
    });
    expect(early.method).toBe('spawn-to-ready');
  });
});
