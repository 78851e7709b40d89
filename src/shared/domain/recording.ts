// Recordings, their video, and the other capture streams.
import * as v from 'valibot';
import type { EventCounts } from './raw-event';

/** Where a recording came from. */
export const RECORDING_SOURCES = ['recorder', 'agentnet-import', 'pull'] as const;
/** One of {@link RECORDING_SOURCES}. */
export const RecordingSourceSchema = v.picklist(RECORDING_SOURCES);
/** Where a recording came from. */
export type RecordingSource = v.InferOutput<typeof RecordingSourceSchema>;

/** Capture status: `active` while capturing; later commands turn a left-over `active` into `recovered`. */
export const RECORDING_STATUSES = ['active', 'complete', 'recovered', 'corrupt', 'failed'] as const;
/** One of {@link RECORDING_STATUSES}. */
export const RecordingStatusSchema = v.picklist(RECORDING_STATUSES);
/** One of {@link RECORDING_STATUSES}. */
export type RecordingStatus = v.InferOutput<typeof RecordingStatusSchema>;

/** Review workflow status (Review issue). */
export const REVIEW_STATUSES = [
  'draft',
  'submitted',
  'accepted',
  'needs-edit',
  'rejected',
] as const;
/** One of {@link REVIEW_STATUSES}. */
export const ReviewStatusSchema = v.picklist(REVIEW_STATUSES);
/** One of {@link REVIEW_STATUSES}. */
export type ReviewStatus = v.InferOutput<typeof ReviewStatusSchema>;

/** Operating system facts of the capturing machine. */
export const PlatformInfoSchema = v.strictObject({
  /** `linux` | `win32` | `darwin` (AgentNet `system` mapped). */
  os: v.string(),
  /** Free-form OS name as reported (AgentNet `system`, e.g. `Windows`). */
  system: v.string(),
  release: v.string(),
  version: v.string(),
  machine: v.string(),
  model: v.nullable(v.string()),
});
/** Operating system facts of the capturing machine. */
export type PlatformInfo = v.InferOutput<typeof PlatformInfoSchema>;

/** Geometry of the captured screen; every event coordinate lives in this space. */
export const ScreenInfoSchema = v.strictObject({
  /** Physical pixels. */
  width: v.number(),
  height: v.number(),
  /** Physical / logical pixels. */
  scale: v.number(),
  /**
   * Top-left corner of the recorded display in physical px of the virtual desktop (negative left
   * of or above the primary monitor); event and accessibility coordinates are relative to it
   * (docs/architecture.md §5 "Coordinates"). 0,0 on Linux (the whole X screen) and for imports.
   */
  origin: v.optional(v.strictObject({ x: v.number(), y: v.number() })),
  /** Monitor layout when known: physical-pixel rectangles. */
  monitors: v.array(
    v.strictObject({
      x: v.number(),
      y: v.number(),
      width: v.number(),
      height: v.number(),
      primary: v.boolean(),
    }),
  ),
});
/** Geometry of the captured screen; every event coordinate lives in this space. */
export type ScreenInfo = v.InferOutput<typeof ScreenInfoSchema>;

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
export const RecordingSummarySchema = v.strictObject({
  id: v.string(),
  task: v.string(),
  status: RecordingStatusSchema,
  reviewStatus: ReviewStatusSchema,
  source: RecordingSourceSchema,
  os: v.string(),
  /** When it entered this library (recorded here, imported or pulled), epoch ms. */
  createdAtMs: v.number(),
  /** When the recording itself started, as its source wrote it (ISO 8601 for ours; AgentNet's
   * `metadata.json` `start_time`, the annotator's local time), or null when unknown. */
  recordedAt: v.nullable(v.string()),
  durationMs: v.nullable(v.number()),
  stepCount: v.number(),
  eventCount: v.number(),
});
/** A recording as listed. */
export type RecordingSummary = v.InferOutput<typeof RecordingSummarySchema>;

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
