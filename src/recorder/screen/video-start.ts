// Where video time 0 lies on the session clock, measured per recording (docs/peer-lessons.md §5:
// "video start taken from the first frame's capture time").
//
// Capture devices stamp each packet when they grab it, and ffmpeg prints the first packet's stamp
// as the input's `start:` (its `Duration:` line) before encoding begins. Without -copyts, that
// packet becomes video time 0 (and the fps filter keeps it in slot 0), so its stamp IS the video
// start. Which clock the stamp is on depends on the device and ffmpeg version: Debian's 5.1.9
// x11grab uses av_gettime() (wall clock, measured: start ≈ Date.now()), other builds use
// av_gettime_relative() (CLOCK_MONOTONIC). The clock is recognised by plausibility: frame 0 must
// have been captured after ffmpeg was spawned and before the line arrived.
import type { WallClockOffset } from '../clock';
import type { CaptureDevice } from './ffmpeg-args';
import type { InputStart } from '../../infra/ffmpeg/progress';

/** How the video start was obtained. */
export type VideoStartMethod =
  /** The device's first-packet stamp on the wall clock, converted with a sampled offset. */
  | `${CaptureDevice}-pts-wallclock`
  /** The device's first-packet stamp, already on CLOCK_MONOTONIC. */
  | `${CaptureDevice}-pts-monotonic`
  /** No usable stamp: midpoint between spawning ffmpeg and its first frame report. */
  | 'spawn-to-ready';

/** Session-clock time of video time 0 (the first frame's capture). */
export type VideoStartEstimate = {
  /** Session-clock (CLOCK_MONOTONIC) ms at which frame 0 was captured. */
  monotonicMs: number;
  /** How it was measured. */
  method: VideoStartMethod;
  /** Half-width in ms of the interval the true capture time lies in. */
  uncertaintyMs: number;
  /** The device's raw first-packet stamp in seconds (its own clock); null when none. */
  deviceStartSec: number | null;
};

/** What FfmpegRecorder observed while ffmpeg started. */
export type VideoStartObservation = {
  /** The capture device. */
  device: CaptureDevice;
  /** Parsed `Duration:` line of the input; null when none arrived (e.g. ddagrab). */
  inputStart: InputStart | null;
  /** Session-clock ms just before ffmpeg was spawned. */
  spawnedAtMs: number;
  /** Session-clock ms when the `Duration:` line arrived; null when none. */
  headerAtMs: number | null;
  /** Session-clock ms when the first progress block (frame ≥ 1) arrived. */
  readyAtMs: number;
  /** Wall-clock offsets sampled during start-up (at least one). */
  wallOffsets: readonly WallClockOffset[];
};

/**
 * Time between a device stamping a packet and the pixels being read, in ms. x11grab reads the
 * clock, then sends GetImage (SHM) for the frame; the measured bias of the estimate against a
 * screen change stamped on CLOCK_MONOTONIC was within ±1 ms (tests/recorder/screen).
 */
export const DEVICE_STAMP_LATENCY_MS = 2;
/** Tolerance of the plausibility window around [spawn, header], in ms. */
const PLAUSIBILITY_SLACK_MS = 50;

// Estimates the session-clock time of video time 0 from what ffmpeg reported at start-up.
export function estimateVideoStart(observation: VideoStartObservation): VideoStartEstimate {
  const { inputStart, spawnedAtMs, readyAtMs } = observation;
  const latestMs = observation.headerAtMs ?? readyAtMs;
  const isPlausible = (ms: number): boolean =>
    ms >= spawnedAtMs - PLAUSIBILITY_SLACK_MS && ms <= latestMs + PLAUSIBILITY_SLACK_MS;

  if (inputStart?.kind === 'start') {
    const stampMs = inputStart.seconds * 1000;
    if (isPlausible(stampMs)) {
      return {
        monotonicMs: stampMs,
        method: `${observation.device}-pts-monotonic`,
        uncertaintyMs: DEVICE_STAMP_LATENCY_MS,
        deviceStartSec: inputStart.seconds,
      };
    }
    const offset = nearestOffset(observation.wallOffsets, latestMs);
    if (offset) {
      const fromWallMs = stampMs - offset.offsetMs;
      if (isPlausible(fromWallMs)) {
        return {
          monotonicMs: fromWallMs,
          method: `${observation.device}-pts-wallclock`,
          uncertaintyMs:
            DEVICE_STAMP_LATENCY_MS +
            offset.uncertaintyMs +
            offsetSpreadMs(observation.wallOffsets),
          deviceStartSec: inputStart.seconds,
        };
      }
    }
  }
  // frame 0 was captured somewhere between the spawn and the first report of it
  const halfMs = Math.max(0, latestMs - spawnedAtMs) / 2;
  return {
    monotonicMs: spawnedAtMs + halfMs,
    method: 'spawn-to-ready',
    uncertaintyMs: halfMs,
    deviceStartSec: inputStart?.kind === 'start' ? inputStart.seconds : null,
  };
}

function nearestOffset(
  offsets: readonly WallClockOffset[],
  atMs: number,
): WallClockOffset | undefined {
  let best: WallClockOffset | undefined;
  for (const offset of offsets) {
    if (!best || Math.abs(offset.sampledAtMs - atMs) < Math.abs(best.sampledAtMs - atMs)) {
      best = offset;
    }
  }
  return best;
}

/** How far the samples disagree (a wall-clock step or slew during start-up), in ms. */
function offsetSpreadMs(offsets: readonly WallClockOffset[]): number {
  if (offsets.length < 2) {
    return 0;
  }
  const values = offsets.map((offset) => offset.offsetMs);
  return Math.max(...values) - Math.min(...values);
}
