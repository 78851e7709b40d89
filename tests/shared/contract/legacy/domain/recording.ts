// Recordings, their video, and the other capture streams.
import type { EventCounts } from './raw-event';

/** Where a recording came from. */
export type RecordingSource = 'recorder' | 'agentnet-import' | 'pull';

/** Capture status: `active` while capturing; later commands turn a left-over `active` into `recovered`. */
export const RECORDING_STATUSES = ['active', 'complete', 'recovered', 'corrupt', 'failed'] as const;
/** One of {@link RECORDING_STATUSES}. */
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

/** Review workflow status (Review issue). */
export const REVIEW_STATUSES = [
  'draft',
  'submitted',
  'accepted',
  'needs-edit',
  'rejected',
] as const;
/** One of {@link REVIEW_STATUSES}. */
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Operating system facts of the capturing machine. */
export type PlatformInfo = {
  /** `linux` | `win32` | `darwin` (AgentNet `system` mapped). */
  os: string;
  /** Free-form OS name as reported (AgentNet `system`, e.g. `Windows`). */
  system: string;
  release: string;
  version: string;
  machine: string;
  model: string | null;
};

/** Geometry of the captured screen; every event coordinate lives in this space. */
export type ScreenInfo = {
  /** Physical pixels. */
  width: number;
  height: number;
  /** Physical / logical pixels. */
  scale: number;
  /** Monitor layout when known: physical-pixel rectangles. */
  monitors: { x: number; y: number; width: number; height: number; primary: boolean }[];
};

/** One video file of a recording. */
export type VideoInfo = {
  /** Path relative to the library root. */
  path: string;
  width: number;
  height: number;
  fps: number;
  frameCount: number | null;
  durationMs: number;
  /** Recording-clock time (ms) of video frame 0. */
  startMs: number;
  /** How `startMs` was obtained (e.g. `agentnet-metadata`, `first-frame-probe`). */
  startMethod: string;
  codec: string | null;
  sizeBytes: number;
  sha256: string | null;
};

/** A recording as listed. */
export type RecordingSummary = {
  id: string;
  task: string;
  status: RecordingStatus;
  reviewStatus: ReviewStatus;
  source: RecordingSource;
  os: string;
  createdAtMs: number;
  durationMs: number | null;
  stepCount: number;
  eventCount: number;
};

/** A recording with everything `show` reports. */
export type RecordingDetail = RecordingSummary & {
  description: string;
  platform: PlatformInfo;
  screen: ScreenInfo;
  videos: VideoInfo[];
  appVersion: string;
  updatedAtMs: number;
  startedAt: string | null;
  stoppedAt: string | null;
  /** Source-specific metadata kept verbatim (AgentNet `metadata.json`), JSON. */
  sourceMetadata: Record<string, unknown> | null;
  /** Warnings recorded at import/capture (e.g. `ALIGNMENT_SUSPECT`). */
  warnings: string[];
  eventCounts: EventCounts;
  /** Relative folder of the recording's files inside the library. */
  dir: string;
};
