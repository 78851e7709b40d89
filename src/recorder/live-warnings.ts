// Live warnings while recording (docs/architecture.md §5 "Live warnings"): a long idle stretch,
// a very long recording, a display change. The monitor is pure over the session clock (tests drive
// it with a fake one); the session feeds it input, pauses and resumes and polls it.
import type { DisplayGeometry } from '../shared/domain/display';
import type { LiveWarningCode } from '../shared/domain/live-warning';

/** Default idle threshold: no input for this long while recording, ms. */
export const DEFAULT_IDLE_WARN_MS = 60_000;
/** Default long-recording threshold: recorded time (pauses excluded), ms. */
export const DEFAULT_LONG_RECORDING_WARN_MS = 30 * 60_000;

/** Thresholds of the live warnings (0 or Infinity turns one off). */
export type LiveWarningOptions = {
  /** No input for longer than this while recording raises `IDLE_LONG`, ms; default 60 s. */
  idleMs?: number;
  /** Recorded time (pauses excluded) past this raises `RECORDING_LONG`, ms; default 30 min. */
  longRecordingMs?: number;
};

/** One live warning: its code, when (session clock) and the message (`CODE: …`). */
export type LiveWarning = { code: LiveWarningCode; tMs: number; message: string };

/** `m:ss.s` into the recording (the summary's and `show`'s format). */
export function formatRecordingClock(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  const minutes = Math.floor(s / 60);
  return `${minutes}:${(s - minutes * 60).toFixed(1).padStart(4, '0')}`;
}

/** A threshold for messages: `45 s`, `2 min`, `1.5 min`. */
export function formatThreshold(ms: number): string {
  if (ms < 60_000) {
    return `${Math.round(ms / 100) / 10} s`;
  }
  return `${Math.round(ms / 6_000) / 10} min`;
}

const isOn = (ms: number): boolean => ms > 0 && Number.isFinite(ms);

/**
 * Tracks idle stretches and recorded time over the session clock. `IDLE_LONG` is raised once per
 * idle stretch (input ends the stretch; the next one can warn again), `RECORDING_LONG` once. Time
 * paused counts for neither.
 */
export class LiveWarningMonitor {
  private readonly idleMs: number;
  private readonly longMs: number;
  /** Session-clock ms the recording started (labels count from here, pauses included). */
  private readonly originMs: number;
  /** Paused time before now, and the start of the pause under way (null: recording). */
  private pausedTotalMs = 0;
  private pausedAtMs: number | null = null;
  /** Recorded time (pauses excluded) at the last input, and its session-clock time. */
  private lastInputActiveMs = 0;
  private lastInputAtMs: number;
  private isIdleWarned = false;
  private isLongWarned = false;

  constructor(options: LiveWarningOptions & { originMs: number }) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_WARN_MS;
    this.longMs = options.longRecordingMs ?? DEFAULT_LONG_RECORDING_WARN_MS;
    this.originMs = options.originMs;
    this.lastInputAtMs = options.originMs;
  }

  /** Input arrived at `nowMs` (the batch's last event at `eventMs`): the idle stretch ends. */
  input(nowMs: number, eventMs = nowMs): void {
    if (this.pausedAtMs !== null) {
      return; // nothing is kept while paused
    }
    this.lastInputActiveMs = this.activeMs(nowMs);
    this.lastInputAtMs = Math.min(eventMs, nowMs);
    this.isIdleWarned = false;
  }

  /** The recording paused at `nowMs`. */
  pause(nowMs: number): void {
    this.pausedAtMs ??= nowMs;
  }

  /** The recording resumed at `nowMs`. */
  resume(nowMs: number): void {
    if (this.pausedAtMs !== null) {
      this.pausedTotalMs += Math.max(0, nowMs - this.pausedAtMs);
      this.pausedAtMs = null;
    }
  }

  /** The warnings due at `nowMs` (each raised once; none while paused). */
  check(nowMs: number): LiveWarning[] {
    if (this.pausedAtMs !== null) {
      return [];
    }
    const out: LiveWarning[] = [];
    const active = this.activeMs(nowMs);
    if (isOn(this.idleMs) && !this.isIdleWarned && active - this.lastInputActiveMs >= this.idleMs) {
      this.isIdleWarned = true;
      out.push({
        code: 'IDLE_LONG',
        tMs: nowMs,
        message: `IDLE_LONG: no input for ${formatThreshold(this.idleMs)} (since ${formatRecordingClock(this.lastInputAtMs - this.originMs)}); the stretch becomes dead video or a long wait step. Pause the recording while you step away, or go on with the task.`,
      });
    }
    if (isOn(this.longMs) && !this.isLongWarned && active >= this.longMs) {
      this.isLongWarned = true;
      out.push({
        code: 'RECORDING_LONG',
        tMs: nowMs,
        message: `RECORDING_LONG: recording for ${formatThreshold(this.longMs)} (pauses excluded) at ${formatRecordingClock(nowMs - this.originMs)}; long recordings are hard to review and replay. Stop when the task is done, or split the rest into its own recording.`,
      });
    }
    return out;
  }

  /** How often to call {@link check}, ms: a tenth of the shorter threshold, 100 ms to 1 s. */
  get checkIntervalMs(): number {
    const shortest = Math.min(
      isOn(this.idleMs) ? this.idleMs : Infinity,
      isOn(this.longMs) ? this.longMs : Infinity,
    );
    return Math.min(1000, Math.max(100, Math.round(shortest / 10)));
  }

  // Recorded time at `nowMs`, pauses excluded.
  private activeMs(nowMs: number): number {
    const pausedNow = this.pausedAtMs === null ? 0 : nowMs - this.pausedAtMs;
    return nowMs - this.originMs - this.pausedTotalMs - pausedNow;
  }
}

/** `WIDTHxHEIGHT` plus `+X+Y` when off 0,0 and `@Sx` when not 1. */
function geometryLabel(g: DisplayGeometry): string {
  const signed = (n: number) => (n < 0 ? `${n}` : `+${n}`);
  const at = g.x !== 0 || g.y !== 0 ? `${signed(g.x)}${signed(g.y)}` : '';
  const scale = g.scale !== 1 ? ` @${g.scale}x` : '';
  return `${g.width}x${g.height}${at}${scale}`;
}

/** The `DISPLAY_CHANGED` warning of a change seen at `tMs` (`originMs`: recording start). */
export function displayChangedWarning(
  from: DisplayGeometry,
  to: DisplayGeometry,
  tMs: number,
  originMs: number,
): LiveWarning {
  return {
    code: 'DISPLAY_CHANGED',
    tMs,
    message: `DISPLAY_CHANGED: the recorded display changed from ${geometryLabel(from)} to ${geometryLabel(to)} at ${formatRecordingClock(tMs - originMs)}; the video goes on in a new segment at the new size (saving pads the smaller one). Check the steps around it.`,
  };
}
