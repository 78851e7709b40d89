// Crash recovery for screen recordings (docs/platform-linux.md §5, docs/architecture.md §5
// "Sessions"): count the decodable frames of a file (probePlayable) and turn a fragmented MP4 left
// by a killed recorder into a regular faststart MP4 (remuxRecording: temp file, then rename).
// The recorder may not use src/pipeline/media/probe.ts (layering), so this is its own small probe.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { buildDecodeCheckArgs, buildRemuxArgs } from './ffmpeg-args';
import { LineSplitter, ProgressParser } from './ffmpeg-progress';
import type { FfmpegProgress } from './ffmpeg-progress';

/** Options of {@link probePlayable} and {@link remuxRecording}. */
export type RecoveryOptions = {
  /** ffmpeg executable (`resolveFfmpeg().path`). */
  ffmpegPath: string;
  /** Limit for each ffmpeg run in ms (decoding reads the whole file); default 300 000. */
  timeoutMs?: number;
  /**
   * Start ffmpeg in a process group of its own, so a terminal's Ctrl+C to the foreground group
   * does not reach it (saving a recording); default false.
   */
  isOwnProcessGroup?: boolean;
};

/** Result of decoding a file's first video stream. */
export type PlayableProbe = {
  /** True when ffmpeg opened the file and decoded at least one frame. */
  isPlayable: boolean;
  /** Frames decoded (0 when the file could not be opened). */
  decodableFrames: number;
  /** Media time of the last decoded frame's end in ms; null when unknown. */
  durationMs: number | null;
  /** ffmpeg's error lines (a truncated last fragment shows up here while still playable). */
  errorLines: string[];
  /** ffmpeg's exit code (null when killed on timeout). */
  exitCode: number | null;
};

/** Result of {@link remuxRecording}. */
export type RemuxResult = {
  /** The playable file written. */
  outputPath: string;
  /** Its size in bytes. */
  sizeBytes: number;
  /** Decode check of the written file. */
  probe: PlayableProbe;
};

/** Default limit of one recovery ffmpeg run, in ms. */
export const DEFAULT_RECOVERY_TIMEOUT_MS = 300_000;
/** Lines of ffmpeg output quoted in errors. */
const ERROR_TAIL_LINES = 8;

// Decodes `file`'s first video stream with ffmpeg and reports how many frames decode.
export async function probePlayable(
  file: string,
  options: RecoveryOptions,
): Promise<PlayableProbe> {
  const run = await runFfmpeg(options.ffmpegPath, buildDecodeCheckArgs(file), options);
  const frames = run.lastProgress?.frame ?? 0;
  return {
    isPlayable: run.exitCode === 0 && frames > 0,
    decodableFrames: frames,
    durationMs: run.lastProgress?.outTimeMs ?? null,
    errorLines: run.stderrLines,
    exitCode: run.exitCode,
  };
}

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
    const run = await runFfmpeg(options.ffmpegPath, buildRemuxArgs(inputPath, tempPath), options);
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

type FfmpegRun = {
  exitCode: number | null;
  isTimedOut: boolean;
  lastProgress: FfmpegProgress | null;
  stderrLines: string[];
};

/** Runs ffmpeg to completion, collecting `-progress` blocks (stdout) and stderr lines. */
async function runFfmpeg(
  ffmpegPath: string,
  args: string[],
  options: RecoveryOptions,
): Promise<FfmpegRun> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_RECOVERY_TIMEOUT_MS;
  return await new Promise<FfmpegRun>((resolve, reject) => {
    const child = spawn(ffmpegPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      detached: options.isOwnProcessGroup ?? false,
    });
    const stdoutLines = new LineSplitter();
    const stderrLines = new LineSplitter();
    const progress = new ProgressParser();
    const errors: string[] = [];
    let lastProgress: FfmpegProgress | null = null;
    let isTimedOut = false;
    const timer = setTimeout(() => {
      isTimedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      for (const line of stdoutLines.push(chunk)) {
        lastProgress = progress.push(line) ?? lastProgress;
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      for (const line of stderrLines.push(chunk)) {
        if (line.trim() !== '') {
          errors.push(line);
        }
      }
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        clearTimeout(timer);
        reject(
          new AppError(
            'FFMPEG_NOT_FOUND',
            `Could not start ffmpeg '${ffmpegPath}' (${error.code ?? 'error'}): ${error.message}.`,
            { ffmpegPath, errno: error.code },
          ),
        );
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      errors.push(...stderrLines.flush().filter((line) => line.trim() !== ''));
      resolve({ exitCode: code, isTimedOut, lastProgress, stderrLines: errors });
    });
  });
}

function tail(lines: readonly string[]): string {
  return lines.length === 0 ? 'ffmpeg printed nothing.' : lines.slice(-ERROR_TAIL_LINES).join('\n');
}
