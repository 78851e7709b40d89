// Finds recordings left `active` by a recorder that died (crash, SIGKILL, power loss), makes
// their video playable, keeps every committed event and marks them `recovered` (or `corrupt`).
import { resolveFfmpeg, type FfmpegBinary } from '../../infra/ffmpeg/binary';
import { getCapture, listActiveRecordings } from '../../store';
import type { Library } from '../library/library';
import { isProcessAlive } from '../../infra/process-alive';
import { finalizeCapture } from './finalize';

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
  options: { ffmpeg?: FfmpegBinary } = {},
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
    const result = await finalizeCapture(lib, r, ffmpeg, {
      remux: true,
      okStatus: 'recovered',
      stoppedAt: null,
      warnings: [
        `the recorder (${who}) ended without stopping the recording (crash, kill or power loss); recovered everything it had saved, the last second of video and input may be missing`,
      ],
    });
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
