// Turns a capture's video segments into video rows (remuxing files a killed recorder left) and
// re-reduces the steps: shared by a normal stop and by crash recovery.
import fs from 'node:fs/promises';
import { probeVideo } from '../../infra/ffmpeg/probe';
import { sha256File } from '../../pipeline/io/hash';
import type { FfmpegBinary } from '../../infra/ffmpeg/binary';
import { remuxRecording } from '../../infra/ffmpeg/remux';
import { buildSegmentJoinArgs, type TimelinePiece } from '../../recorder/screen/ffmpeg-args';
import { runCommand } from '../../infra/run-command';
import path from 'node:path';
import { canvasOf, type DisplayGeometry, type RecordingStatus } from '../../shared/domain';
import {
  countEvents,
  deleteRecordingVideos,
  getCapture,
  getRecordingScreen,
  insertVideo,
  listMarks,
  setRecordingScreenSize,
  updateRecording,
} from '../../store';
import { addRecordingWarnings } from '../../store/queries/recording-warnings';
import type { Library } from '../library/library';
import { reduceRecording } from '../reduce-service';

/** One segment as stored in `capture_json.segments`. */
export type StoredSegment = {
  path: string;
  videoStartMs: number;
  method: string;
  uncertaintyMs: number;
  /** The recorded display of the segment (absent in recordings made before it was stored). */
  display?: DisplayGeometry;
  /** Recording-clock ms after the segment's last frame (set here, from the probe). */
  endMs?: number;
};

/** Outcome of {@link finalizeCapture}. */
export type FinalizeResult = {
  status: RecordingStatus;
  /** Frames of the stored video (the joined one after a pause: pauses are black frames). */
  frames: number;
  durationMs: number;
  steps: number;
  /** Every warning the recording now carries (stored ones, the capture's marks, this run's). */
  warnings: string[];
};

/** Probes (and if needed remuxes) every segment, stores video rows, reduces, sets the status. */
export async function finalizeCapture(
  lib: Library,
  rec: { seq: number; id: string },
  ffmpeg: FfmpegBinary,
  options: {
    remux: boolean;
    okStatus: RecordingStatus;
    stoppedAt: string | null;
    /** Warnings to store first (why the recording ended early, why it was recovered). */
    warnings?: string[];
    /**
     * Run ffprobe/ffmpeg in process groups of their own: `record` saving after a Ctrl+C must not
     * have its children killed by a repeated Ctrl+C to the terminal's group; default false.
     */
    isOwnProcessGroup?: boolean;
  },
): Promise<FinalizeResult> {
  const isOwnProcessGroup = options.isOwnProcessGroup ?? false;
  const capture = getCapture(lib.db, rec.seq) ?? {};
  const segments = (Array.isArray(capture.segments) ? capture.segments : []) as StoredSegment[];
  const warnings: string[] = [
    ...(options.warnings ?? []),
    ...markWarnings(lib, rec.seq, segments[0]?.videoStartMs ?? null),
  ];
  let frames = 0;
  let durationMs = 0;
  let ord = 0;
  const videos: Parameters<typeof insertVideo>[3][] = [];
  const ends = new Map<StoredSegment, number>();
  for (const seg of segments) {
    const file = lib.resolve(seg.path);
    try {
      await fs.access(file);
    } catch {
      warnings.push(`video segment ${seg.path} is missing`);
      continue;
    }
    try {
      if (options.remux) {
        await remuxRecording(file, file, { ffmpegPath: ffmpeg.path, isOwnProcessGroup });
      }
      const probe = await probeVideo(file, ffmpeg, { isOwnProcessGroup });
      if (!probe.frameCount || !probe.fps) {
        warnings.push(`video segment ${seg.path} has no frames`);
        continue;
      }
      const segDuration = probe.durationMs ?? (probe.frameCount / probe.fps) * 1000;
      frames += probe.frameCount;
      durationMs += segDuration;
      ends.set(seg, seg.videoStartMs + segDuration);
      videos.push({
        path: seg.path,
        width: probe.width,
        height: probe.height,
        fps: probe.fps,
        frameCount: probe.frameCount,
        durationMs: segDuration,
        startMs: seg.videoStartMs,
        startMethod: seg.method,
        codec: probe.codec,
        sizeBytes: probe.sizeBytes,
        sha256: await sha256File(file),
      });
    } catch (e) {
      warnings.push(`video segment ${seg.path} is unreadable: ${(e as Error).message}`);
    }
  }
  // a display change gave segments of different sizes: the joined video is the canvas holding
  // them all at its top-left corner, and that is the screen the steps' coordinates live in
  const canvas = canvasOf(videos);
  const screen = getRecordingScreen(lib.db, rec.seq);
  const isResized =
    videos.length > 1 && videos.some((v) => v.width !== canvas.width || v.height !== canvas.height);
  if (videos.length > 1) {
    try {
      const joined = await joinSegments(lib, videos, ffmpeg, isOwnProcessGroup);
      videos.unshift(joined);
      durationMs = joined.durationMs;
      // the summary counts what the stored video holds, pauses (black frames) included
      frames = joined.frameCount ?? frames;
    } catch (e) {
      warnings.push(
        `the paused segments could not be joined (exports use the first one): ${(e as Error).message}`,
      );
    }
  }
  const status: RecordingStatus = videos.length ? options.okStatus : 'corrupt';
  let stored: string[] = [];
  lib.db.transaction(() => {
    // warnings stored during capture (low disk space…) stay; new ones are appended once
    stored = addRecordingWarnings(lib.db, rec.seq, warnings, Date.now());
    if (isResized && videos[0]?.startMethod.endsWith('+joined')) {
      const grown = {
        width: Math.max(screen.width, videos[0].width),
        height: Math.max(screen.height, videos[0].height),
      };
      if (grown.width !== screen.width || grown.height !== screen.height) {
        setRecordingScreenSize(lib.db, rec.seq, grown);
      }
    }
    deleteRecordingVideos(lib.db, rec.seq);
    for (const v of videos) {
      insertVideo(lib.db, rec.seq, ord, v);
      ord += 1;
    }
    updateRecording(
      lib.db,
      rec.seq,
      {
        status,
        durationMs,
        stoppedAt: options.stoppedAt,
        warnings: stored,
        // each segment's end on the recording clock (segmentAt, src/shared/domain/display.ts)
        ...(ends.size
          ? {
              capture: {
                ...capture,
                segments: segments.map((seg) =>
                  ends.has(seg) ? { ...seg, endMs: ends.get(seg) } : seg,
                ),
              },
            }
          : {}),
      },
      Date.now(),
    );
  })();
  let steps = 0;
  try {
    steps = reduceRecording(lib, rec.id).steps.length;
    if (steps === 0 && videos.length) {
      // nothing to review or export (issue 26 item 19): said now, and kept with the recording
      const events = countEvents(lib.db, rec.seq).total;
      stored = addRecordingWarnings(lib.db, rec.seq, [noInputWarning(rec.id, events)], Date.now());
    }
  } catch (e) {
    stored.push(`reduction failed: ${(e as Error).message}`);
  }
  return { status, frames, durationMs, steps, warnings: stored };
}

/** The warning stored on a recording whose input gave no step (`NO_INPUT: …`). */
export function noInputWarning(id: string, events: number): string {
  return (
    `NO_INPUT: no input was recorded (${events ? `${events} events, none of them an action` : 'no key, click or scroll'}), ` +
    `so the recording has no steps and cannot be exported; \`export --all\` skips it. Delete it ` +
    `(cua-annotator delete ${id}) or record again.`
  );
}

/** Longest capture-fault detail kept in a warning (hook stderr can be long). */
const MAX_DETAIL_CHARS = 160;

// Warnings the capture's timeline marks call for: input gaps and the fault that ended it.
function markWarnings(lib: Library, seq: number, videoStartMs: number | null): string[] {
  const at = (tMs: number | null): string =>
    tMs === null
      ? 'the end'
      : videoStartMs === null
        ? `${(tMs / 1000).toFixed(1)} s`
        : formatClock(Math.max(0, tMs - videoStartMs));
  const out: string[] = [];
  for (const m of listMarks(lib.db, seq)) {
    if (m.kind === 'input-gap') {
      const text = m.data.detail ?? m.data.reason;
      const detail = (typeof text === 'string' ? text : '').slice(0, MAX_DETAIL_CHARS);
      const how = m.data.isGivenUp
        ? 'the input hook failed repeatedly and was given up'
        : 'the input hook was restarted';
      out.push(
        `no keyboard or mouse input from ${at(m.tMs)} to ${at(m.endMs)} (${how}: ${detail})`,
      );
    } else if (m.kind === 'capture-fault') {
      out.push(`recording stopped at ${at(m.tMs)}: ${String(m.data.message ?? m.data.code)}`);
    }
  }
  return out;
}

/** `m:ss.s` for a span in ms. */
function formatClock(ms: number): string {
  const totalS = ms / 1000;
  const minutes = Math.floor(totalS / 60);
  const seconds = totalS - minutes * 60;
  return `${minutes}:${seconds.toFixed(1).padStart(4, '0')}`;
}

type VideoRow = Parameters<typeof insertVideo>[3];

/** One CFR video over the whole session: segments with black frames for the pauses. */
async function joinSegments(
  lib: Library,
  segments: VideoRow[],
  ffmpeg: FfmpegBinary,
  isOwnProcessGroup: boolean,
): Promise<VideoRow> {
  const first = segments[0]!;
  const fps = first.fps;
  const canvas = canvasOf(segments);
  const pieces: TimelinePiece[] = [];
  let cursorMs = first.startMs;
  for (const seg of segments) {
    const gapFrames = Math.round(((seg.startMs - cursorMs) * fps) / 1000);
    if (pieces.length && gapFrames > 0) {
      pieces.push({ kind: 'gap', frames: gapFrames });
    }
    pieces.push({
      kind: 'segment',
      path: lib.resolve(seg.path),
      size: { width: seg.width, height: seg.height },
    });
    cursorMs = seg.startMs + ((seg.frameCount ?? 0) * 1000) / fps;
  }
  const rel = `${path.posix.dirname(first.path)}/video.mp4`;
  const out = lib.resolve(rel);
  const tmp = `${out}.tmp.mp4`;
  const run = await runCommand(
    ffmpeg.path,
    buildSegmentJoinArgs({
      pieces,
      width: canvas.width,
      height: canvas.height,
      fps,
      outputPath: tmp,
    }),
    { timeoutMs: 30 * 60_000, isOwnProcessGroup },
  );
  if (run.code !== 0) {
    await fs.rm(tmp, { force: true });
    throw new Error(`ffmpeg exited ${run.code}: ${run.stderr.split('\n').slice(-4).join(' ')}`);
  }
  await fs.rename(tmp, out);
  const probe = await probeVideo(out, ffmpeg, { isOwnProcessGroup });
  return {
    ...first,
    path: rel,
    width: probe.width,
    height: probe.height,
    frameCount: probe.frameCount,
    durationMs: probe.durationMs ?? ((probe.frameCount ?? 0) * 1000) / fps,
    startMethod: `${first.startMethod}+joined`,
    sizeBytes: probe.sizeBytes,
    sha256: await sha256File(out),
  };
}
