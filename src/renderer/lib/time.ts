// Mapping between the recording clock (ms) and the video timeline (s), and time formatting.
import type { StepDto } from '../../shared/contract';

/** The part of a step the time mapping needs. */
export type TimedStep = Pick<StepDto, 'keyframeMs' | 'startMs'>;

/** Recording-clock ms a step is shown at: its keyframe when computed, else its start. */
export function stepAnchorMs(step: TimedStep): number {
  return step.keyframeMs ?? step.startMs;
}

// Video time (s) of a step: (keyframeMs or startMs − video.startMs) / 1000, never negative.
export function stepVideoTimeSec(step: TimedStep, videoStartMs: number): number {
  return Math.max(0, (stepAnchorMs(step) - videoStartMs) / 1000);
}

// Recording-clock ms of a video time in seconds.
export function videoSecToRecordingMs(videoSec: number, videoStartMs: number): number {
  return videoStartMs + videoSec * 1000;
}

// Video time (s) of a recording-clock time in ms.
export function recordingMsToVideoSec(recordingMs: number, videoStartMs: number): number {
  return (recordingMs - videoStartMs) / 1000;
}

/**
 * Index of the step playing at `videoSec`: the last step whose video time is ≤ the playhead
 * (steps are in time order). Before the first step → 0; no steps → -1.
 */
export function stepIndexAtVideoTime(
  steps: readonly TimedStep[],
  videoSec: number,
  videoStartMs: number,
): number {
  if (steps.length === 0) {
    return -1;
  }
  // binary search over the (sorted) anchor times; a small epsilon absorbs float seek error
  const targetMs = videoSecToRecordingMs(videoSec, videoStartMs) + 1;
  let lo = 0;
  let hi = steps.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const step = steps[mid];
    if (step !== undefined && stepAnchorMs(step) <= targetMs) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

// `m:ss.s` or `h:mm:ss` for a duration in ms ('–' when unknown).
export function formatDurationMs(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms) || ms < 0) {
    return '–';
  }
  const totalSec = Math.floor(ms / 1000);
  const h = Math.floor(totalSec / 3600);
  const m = Math.floor((totalSec % 3600) / 60);
  const s = totalSec % 60;
  if (h > 0) {
    return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  }
  return `${m}:${String(s).padStart(2, '0')}`;
}

// `m:ss.t` clock for the player (tenths of a second).
export function formatClockSec(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) {
    return '0:00.0';
  }
  const tenths = Math.floor(sec * 10);
  const m = Math.floor(tenths / 600);
  const s = Math.floor((tenths % 600) / 10);
  return `${m}:${String(s).padStart(2, '0')}.${tenths % 10}`;
}

// `YYYY-MM-DD HH:MM` in local time for an epoch-ms date.
export function formatDateTime(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}`
  );
}

/** Epoch ms of the local midnight starting a `YYYY-MM-DD` date; null when empty or invalid. */
export function localDateStartMs(date: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) {
    return null;
  }
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (d.getMonth() !== Number(m[2]) - 1) {
    return null;
  }
  return d.getTime();
}

/** Epoch ms of the local midnight ending a `YYYY-MM-DD` date (the next day's start). */
export function localDateEndMs(date: string): number | null {
  const start = localDateStartMs(date);
  if (start === null) {
    return null;
  }
  const d = new Date(start);
  d.setDate(d.getDate() + 1);
  return d.getTime();
}

/** Where a recording's offsets count from: the video's first frame (the player's 0:00.0), else
 * its first step. Recording-clock stamps are not shown raw (they may be seconds since boot). */
export function recordingOriginMs(rec: {
  video: { startMs: number } | null;
  steps: readonly { startMs: number }[];
}): number {
  return rec.video?.startMs ?? rec.steps[0]?.startMs ?? 0;
}

// A span of the recording clock as offsets from `originMs` in the player's `m:ss.t`, with its
// length: `0:08.4 – 0:09.1 (0.7 s)`.
export function formatSpanMs(startMs: number, endMs: number, originMs: number): string {
  const lengthSec = Math.max(0, endMs - startMs) / 1000;
  const length = lengthSec < 60 ? `${lengthSec.toFixed(1)} s` : formatDurationMs(endMs - startMs);
  return `${formatClockSec((startMs - originMs) / 1000)} – ${formatClockSec((endMs - originMs) / 1000)} (${length})`;
}
