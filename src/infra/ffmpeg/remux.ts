// Crash recovery for screen recordings (docs/platform-linux.md §5, docs/architecture.md §5
// "Sessions"): turn a fragmented MP4 left by a killed recorder into a regular faststart MP4
// (remuxRecording: temp file, then rename), checked with the decode probe of ./probe.ts.
import { randomBytes } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { probePlayable, runRecoveryFfmpeg } from './probe';
import type { PlayableProbe, RecoveryOptions } from './probe';

export { DEFAULT_RECOVERY_TIMEOUT_MS, probePlayable } from './probe';
export type { PlayableProbe, RecoveryOptions } from './probe';

/** Result of {@link remuxRecording}. */
export type RemuxResult = {
  /** The playable file written. */
  outputPath: string;
  /** Its size in bytes. */
  sizeBytes: number;
  /** Decode check of the written file. */
  probe: PlayableProbe;
};

/** Lines of ffmpeg output quoted in errors. */
const ERROR_TAIL_LINES = 8;

// Copies `inputPath` into a playable faststart MP4 at `outputPath` (may equal the input).
export async function remuxRecording(
  inputPath: string,
  outputPath: string,
  options: RecoveryOptions,
): Promise<RemuxResult> {
  // a sibling temp file keeps the final rename atomic (same file system)
  const tempPath = path.join(
    path.dirname(outputPath),
    `.${path.basename(outputPath)}.remux-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
  try {
    const run = await runRecoveryFfmpeg(buildRemuxArgs(inputPath, tempPath), options);
    if (run.exitCode !== 0) {
      throw new AppError(
        'VIDEO_UNREADABLE',
        `Cannot remux '${inputPath}' with ffmpeg '${options.ffmpegPath}' (${run.isTimedOut ? 'timed out' : `exit code ${String(run.exitCode)}`}): ${tail(run.stderrLines)}`,
        {
          file: inputPath,
          ffmpegPath: options.ffmpegPath,
          exitCode: run.exitCode,
          stderrTail: run.stderrLines.slice(-ERROR_TAIL_LINES),
        },
      );
    }
    const probe = await probePlayable(tempPath, options);
    if (!probe.isPlayable) {
      throw new AppError(
        'VIDEO_UNREADABLE',
        `Remuxing '${inputPath}' produced no decodable frames: ${tail(probe.errorLines)}`,
        {
          file: inputPath,
          ffmpegPath: options.ffmpegPath,
          stderrTail: probe.errorLines.slice(-ERROR_TAIL_LINES),
        },
      );
    }
    await rename(tempPath, outputPath);
    const info = await stat(outputPath);
    return { outputPath, sizeBytes: info.size, probe };
  } finally {
    await rm(tempPath, { force: true });
  }
}

function tail(lines: readonly string[]): string {
  return lines.length === 0 ? 'ffmpeg printed nothing.' : lines.slice(-ERROR_TAIL_LINES).join('\n');
}

// Arguments that copy `inputPath` into a regular (faststart) MP4 at `outputPath`, overwriting it.
export function buildRemuxArgs(inputPath: string, outputPath: string): string[] {
  return [
    '-hide_banner',
    // stdin is not ours to read; a remux is not interactive
    '-nostdin',
    // only problems reach stderr
    '-loglevel',
    'error',
    '-i',
    inputPath,
    // every stream, unchanged
    '-map',
    '0',
    '-c',
    'copy',
    // moov in front: a normal progressive MP4 for players and HTTP range requests
    '-movflags',
    '+faststart',
    // the temp name has no .mp4 extension
    '-f',
    'mp4',
    // the caller passes a fresh temp path
    '-y',
    outputPath,
  ];
}
