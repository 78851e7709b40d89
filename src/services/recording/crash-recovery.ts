// Finds recordings left `active` by a recorder that died (crash, SIGKILL, power loss), makes
// their video playable, keeps every committed event and marks them `recovered` (or `corrupt`).
import { resolveFfmpeg, type FfmpegBinary } from '../../infra/ffmpeg/binary';
import { getCapture, listActiveRecordings } from '../../store';
import type { Library } from '../library/library';
import { isProcessAlive, processesWritingFile } from '../../infra/process-alive';
import { endOpenExclusionMarks } from './exclusion-marks';
import { finalizeCapture, type StoredSegment } from './finalize';

/**
 * How long recovery waits, in ms, for another process to stop writing a recording's video: the
 * ffmpeg of a recorder that just died finishes its last fragment after the parent-death SIGTERM
 * (≈ 0.1 s; longer on a loaded machine), and remuxing before that would lose it.
 */
export const DEFAULT_WRITER_WAIT_MS = 10_000;

/** One recovered recording. */
export type RecoveredRecording = {
  id: string;
  status: string;
  frames: number;
  steps: number;
  warnings: string[];
};

/** Recovers every `active` recording whose recorder process is gone. */
export async function recoverActiveRecordings(
  lib: Library,
  options: {
    ffmpeg?: FfmpegBinary;
    /** Limit of the wait for the video's last writer; default {@link DEFAULT_WRITER_WAIT_MS}. */
    writerWaitMs?: number;
  } = {},
): Promise<RecoveredRecording[]> {
  const stale = listActiveRecordings(lib.db).filter((r) => {
    const capture = getCapture(lib.db, r.seq);
    // a row whose recorder is still running is a live recording, not a crash
    return !isProcessAlive(capture?.pid);
  });
  if (!stale.length) {
    return [];
  }
  const ffmpeg = options.ffmpeg ?? (await resolveFfmpeg());
  const out: RecoveredRecording[] = [];
  for (const r of stale) {
    const capture = getCapture(lib.db, r.seq);
    const who =
      typeof capture?.pid === 'number'
        ? `pid ${capture.pid}${typeof capture.host === 'string' ? ` on ${capture.host}` : ''}`
        : 'unknown process';
    const segments = (
      Array.isArray(capture?.segments) ? capture.segments : []
    ) as Partial<StoredSegment>[];
    const files = segments
      .map((segment) => segment.path)
      .filter((file): file is string => typeof file === 'string')
      .map((file) => lib.resolve(file));
    const writers = await waitForWriters(files, options.writerWaitMs ?? DEFAULT_WRITER_WAIT_MS);
    const result = await finalizeCapture(lib, r, ffmpeg, {
      remux: true,
      okStatus: 'recovered',
      stoppedAt: null,
      warnings: [
        `the recorder (${who}) ended without stopping the recording (crash, kill or power loss); recovered everything it had saved, the last second of video and input may be missing`,
        ...(writers.length > 0
          ? [
              `the video was still being written by pid ${writers.join(', ')} when it was recovered; what was written later is not in it`,
            ]
          : []),
      ],
    });
    // an excluded window was in front when the recorder died: its interval ends now
    endOpenExclusionMarks(lib, r.seq);
    out.push({
      id: r.id,
      status: result.status,
      frames: result.frames,
      steps: result.steps,
      warnings: result.warnings,
    });
  }
  return out;
}

// Waits until no other process writes any of `files` (up to `limitMs`); returns those still
// writing then.
async function waitForWriters(files: string[], limitMs: number): Promise<number[]> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const writers = [...new Set(files.flatMap((file) => processesWritingFile(file)))];
    if (writers.length === 0 || performance.now() >= deadline) {
      return writers;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
