// The one video probe (docs/architecture.md §5): a file's stream facts (size, frame rate, exact
// frame count, duration) with ffprobe, or with ffmpeg alone when no ffprobe is available (e.g. the
// ffmpeg-static binary); and a decode check (probePlayable) for crash recovery.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { secondsToMs } from '../../shared/clock';
import { AppError } from '../../shared/errors';
import { tailLines } from '../lines';
import { ProcessStartError, runCommand } from '../run-command';
import { ProgressParser } from './progress';
import type { FfmpegProgress } from './progress';
import type { CommandResult } from '../run-command';

/** The binaries {@link probeVideo} needs (a subset of the recorder's `FfmpegBinary`). */
export type ProbeBinaries = {
  /** ffmpeg executable; used when `ffprobePath` is null or cannot be started. */
  path: string;
  /** ffprobe executable, or null to probe with ffmpeg only. */
  ffprobePath: string | null;
};

/** Options of {@link probeVideo}. */
export type ProbeVideoOptions = {
  /** Limit for the probe process in ms; default 60 000 (counting packets reads the whole file). */
  timeoutMs?: number;
  /** Run the probe in a process group of its own (RunCommandOptions.isOwnProcessGroup). */
  isOwnProcessGroup?: boolean;
};

/**
 * Facts about a video file's first video stream.
 *
 * With ffprobe every field is filled when the container provides it. Without ffprobe (parsing
 * `ffmpeg -i` plus a stream-copy pass): `durationMs` is always null (ffmpeg prints only the
 * container duration, reported as `containerDurationMs`), and `fps` / `pixFmt` are null when the
 * stream line lacks them.
 */
export type VideoProbe = {
  /** Coded width in px. */
  width: number;
  /** Coded height in px. */
  height: number;
  /** Frames per second from r_frame_rate (else avg_frame_rate), e.g. 30; null if unknown. */
  fps: number | null;
  /** Exact number of video packets (= frames) counted by reading the file; null if unknown. */
  frameCount: number | null;
  /** Duration of the video stream in ms; null when only the container duration is known. */
  durationMs: number | null;
  /** Duration of the whole container (longest stream) in ms; null if unknown. */
  containerDurationMs: number | null;
  /** Codec name as ffmpeg spells it, e.g. `h264`. */
  codec: string;
  /** Pixel format, e.g. `yuv420p`; null if unknown. */
  pixFmt: string | null;
  /** File size in bytes. */
  sizeBytes: number;
  /** True when the file has at least one audio stream. */
  hasAudio: boolean;
  /** Which tool produced these values. */
  probedWith: 'ffprobe' | 'ffmpeg';
};

/** Default limit of one probe process, in ms. */
export const DEFAULT_PROBE_TIMEOUT_MS = 60_000;
/** Lines of stderr quoted in error messages. */
const ERROR_TAIL_LINES = 5;

// Probes `file` with ffprobe (or ffmpeg as a fallback); throws VIDEO_UNREADABLE on bad files.
export async function probeVideo(
  file: string,
  binaries: ProbeBinaries,
  options: ProbeVideoOptions = {},
): Promise<VideoProbe> {
  const absolute = path.resolve(file);
  const run: ProbeRun = {
    timeoutMs: options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
    isOwnProcessGroup: options.isOwnProcessGroup,
  };
  let sizeBytes: number;
  try {
    const info = await stat(absolute);
    if (!info.isFile()) {
      throw new AppError('VIDEO_UNREADABLE', `Cannot read video '${file}': not a file.`, { file });
    }
    sizeBytes = info.size;
  } catch (error) {
    if (error instanceof AppError) {
      throw error;
    }
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'the file does not exist'
        : errorMessage(error);
    throw new AppError('VIDEO_UNREADABLE', `Cannot read video '${file}': ${reason}.`, { file });
  }

  if (binaries.ffprobePath !== null) {
    try {
      return await probeWithFfprobe(file, absolute, binaries.ffprobePath, sizeBytes, run);
    } catch (error) {
      // an ffprobe that cannot start is treated like a missing one; anything else is the file
      if (!(error instanceof ProcessStartError)) {
        throw error;
      }
    }
  }
  return await probeWithFfmpeg(file, absolute, binaries.path, sizeBytes, run);
}

// Parses a rational like "30000/1001" or "30/1"; null for "0/0", garbage or non-positive values.
export function parseFrameRate(rate: string | undefined): number | null {
  if (rate === undefined) {
    return null;
  }
  const match = /^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/.exec(rate.trim());
  if (!match) {
    return null;
  }
  const numerator = Number(match[1]);
  const denominator = match[2] === undefined ? 1 : Number(match[2]);
  if (!(numerator > 0) || !(denominator > 0)) {
    return null;
  }
  return numerator / denominator;
}

type FfprobeStream = {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  r_frame_rate?: string;
  avg_frame_rate?: string;
  duration?: string;
  nb_read_packets?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
};

type FfprobeOutput = {
  streams?: FfprobeStream[];
  format?: { duration?: string };
};

/** How the probe process runs. */
type ProbeRun = { timeoutMs: number; isOwnProcessGroup?: boolean };

async function probeWithFfprobe(
  file: string,
  absolute: string,
  ffprobePath: string,
  sizeBytes: number,
  run: ProbeRun,
): Promise<VideoProbe> {
  const result = await runCommand(
    ffprobePath,
    [
      ...['-v', 'error'],
      // read every packet so nb_read_packets is exact (no decoding, so it stays fast)
      '-count_packets',
      ...['-show_streams', '-show_format'],
      ...['-of', 'json'],
      ...['-i', absolute],
    ],
    run,
  );
  assertCompleted(file, 'ffprobe', result);

  let parsed: FfprobeOutput;
  try {
    parsed = JSON.parse(result.stdout) as FfprobeOutput;
  } catch {
    throw unreadable(file, 'ffprobe printed no valid JSON', result.stderr);
  }
  const streams = parsed.streams ?? [];
  const video = streams.find(
    (stream) => stream.codec_type === 'video' && stream.disposition?.attached_pic !== 1,
  );
  if (!video) {
    throw unreadable(file, 'no video stream', result.stderr);
  }
  if (!video.width || !video.height || !video.codec_name) {
    throw unreadable(file, 'the video stream has no size or codec', result.stderr);
  }
  return {
    width: video.width,
    height: video.height,
    fps: parseFrameRate(video.r_frame_rate) ?? parseFrameRate(video.avg_frame_rate),
    frameCount: parseCount(video.nb_read_packets),
    durationMs: parseSecondsToMs(video.duration) ?? parseClockToMs(streamDurationTag(video)),
    containerDurationMs: parseSecondsToMs(parsed.format?.duration),
    codec: video.codec_name,
    pixFmt: video.pix_fmt ?? null,
    sizeBytes,
    hasAudio: streams.some((stream) => stream.codec_type === 'audio'),
    probedWith: 'ffprobe',
  };
}

async function probeWithFfmpeg(
  file: string,
  absolute: string,
  ffmpegPath: string,
  sizeBytes: number,
  run: ProbeRun,
): Promise<VideoProbe> {
  let result: CommandResult;
  try {
    // one pass: the input banner (stderr, log level info) gives the stream facts, and copying
    // the video stream to the null muxer counts its packets (-progress prints frame=N to stdout)
    result = await runCommand(
      ffmpegPath,
      [
        ...['-hide_banner', '-nostdin', '-nostats'],
        ...['-i', absolute],
        ...['-map', '0:v:0', '-c', 'copy', '-f', 'null'],
        ...['-progress', 'pipe:1'],
        '-',
      ],
      // the banner comes first; keep enough stderr for files with long metadata and warnings
      { ...run, stderrTailBytes: 1024 * 1024 },
    );
  } catch (error) {
    if (error instanceof ProcessStartError) {
      throw new AppError(
        'FFMPEG_NOT_FOUND',
        `Cannot probe '${file}': ${error.message}. Install ffmpeg (apt-get install ffmpeg) or set CUA_FFMPEG=/path/to/ffmpeg.`,
        { file, ffmpegPath },
      );
    }
    throw error;
  }
  assertCompleted(file, 'ffmpeg', result);
  const banner = parseInputBanner(result.stderr);
  if (!banner) {
    throw unreadable(file, 'no video stream', result.stderr);
  }
  return {
    width: banner.width,
    height: banner.height,
    fps: banner.fps,
    frameCount: parseProgressFrames(result.stdout),
    durationMs: null,
    containerDurationMs: banner.containerDurationMs,
    codec: banner.codec,
    pixFmt: banner.pixFmt,
    sizeBytes,
    hasAudio: banner.hasAudio,
    probedWith: 'ffmpeg',
  };
}

type BannerFacts = Pick<
  VideoProbe,
  'width' | 'height' | 'fps' | 'codec' | 'pixFmt' | 'hasAudio' | 'containerDurationMs'
>;

// Parses the "Input #0" banner of `ffmpeg -i` (stderr at log level info); null without video.
export function parseInputBanner(stderr: string): BannerFacts | null {
  const inputSection = inputBannerLines(stderr);
  const streamLines = inputSection.filter((line) => /^\s*Stream #\d+:\d+/.test(line));
  const videoLine = streamLines.find(
    (line) => line.includes(': Video: ') && !line.includes('(attached pic)'),
  );
  if (videoLine === undefined) {
    return null;
  }
  const body = videoLine.slice(videoLine.indexOf(': Video: ') + ': Video: '.length);
  const parts = splitTopLevel(body);
  const codec = /^([A-Za-z0-9_]+)/.exec(parts[0] ?? '')?.[1];
  let size: { width: number; height: number } | null = null;
  let pixFmt: string | null = null;
  let fps: number | null = null;
  let tbr: number | null = null;
  for (const [index, part] of parts.entries()) {
    const sizeMatch = /^(\d+)x(\d+)\b/.exec(part);
    if (sizeMatch && size === null) {
      size = { width: Number(sizeMatch[1]), height: Number(sizeMatch[2]) };
      continue;
    }
    // the pixel format, when known, directly follows the codec: "yuv420p(tv, bt709, progressive)"
    if (index === 1 && /^[a-z][a-z0-9_]*(\(|$)/.test(part)) {
      pixFmt = /^[a-z][a-z0-9_]*/.exec(part)?.[0] ?? null;
      continue;
    }
    const rate = /^(\d+(?:\.\d+)?)(k?) (fps|tbr)$/.exec(part);
    if (rate) {
      const value = Number(rate[1]) * (rate[2] === 'k' ? 1000 : 1);
      if (rate[3] === 'fps') {
        fps = value;
      } else {
        tbr = value;
      }
    }
  }
  if (codec === undefined || size === null || size.width === 0 || size.height === 0) {
    return null;
  }
  const duration = inputSection
    .map((line) => /^\s*Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(line))
    .find((match) => match !== null);
  return {
    width: size.width,
    height: size.height,
    fps: fps ?? tbr,
    codec,
    pixFmt,
    hasAudio: streamLines.some((line) => line.includes(': Audio: ')),
    containerDurationMs: duration ? clockPartsToMs(duration[1], duration[2], duration[3]) : null,
  };
}

/** The lines of the "Input #0" banner (the output banner repeats "Stream #…" lines). */
function inputBannerLines(stderr: string): string[] {
  const lines = stderr.split(/\r?\n/);
  const start = lines.findIndex((line) => line.startsWith('Input #0'));
  if (start < 0) {
    return [];
  }
  const end = lines.findIndex(
    (line, index) => index > start && /^(Output #|Stream mapping:|Input #)/.test(line),
  );
  return lines.slice(start, end < 0 ? undefined : end);
}

/** Splits on ", " outside parentheses and brackets ("yuv420p(tv, bt709)" stays one part). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(' || char === '[') {
      depth += 1;
    } else if (char === ')' || char === ']') {
      depth = Math.max(0, depth - 1);
    }
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current.trim());
  // drop trailing dispositions such as "(default)" that follow the last comma-separated item
  return parts.map((part) => part.replace(/\s+\((default|forced|attached pic)\)$/, ''));
}

function parseProgressFrames(progress: string): number | null {
  // -progress prints blocks of key=value lines; the last "frame=" is the final count
  const matches = [...progress.matchAll(/^frame=(\d+)\s*$/gm)];
  const last = matches.at(-1);
  return last ? Number(last[1]) : null;
}

function streamDurationTag(stream: FfprobeStream): string | undefined {
  // Matroska keeps per-stream durations in a DURATION tag ("00:00:10.000000000")
  const tags = stream.tags ?? {};
  const key = Object.keys(tags).find((name) => name.toUpperCase() === 'DURATION');
  return key === undefined ? undefined : tags[key];
}

function parseCount(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value)) {
    return null;
  }
  return Number(value);
}

function parseSecondsToMs(value: string | undefined): number | null {
  if (value === undefined || value === 'N/A') {
    return null;
  }
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? secondsToMs(seconds) : null;
}

function parseClockToMs(value: string | undefined): number | null {
  const match = /^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(value?.trim() ?? '');
  return match ? clockPartsToMs(match[1], match[2], match[3]) : null;
}

function clockPartsToMs(
  hours: string | undefined,
  minutes: string | undefined,
  seconds: string | undefined,
): number {
  const wholeSeconds = Number(hours) * 3600 + Number(minutes) * 60;
  return wholeSeconds * 1000 + secondsToMs(Number(seconds));
}

function assertCompleted(file: string, tool: string, result: CommandResult): void {
  if (result.isTimedOut) {
    throw new AppError(
      'FFMPEG_FAILED',
      `${tool} did not finish probing '${file}' in time (killed after the timeout).`,
      { file, stderrTail: tailLines(result.stderr, ERROR_TAIL_LINES) },
    );
  }
  if (result.code !== 0) {
    const status = result.code === null ? `signal ${result.signal}` : `exit code ${result.code}`;
    throw unreadable(file, `${tool} failed with ${status}`, result.stderr);
  }
}

function unreadable(file: string, reason: string, stderr: string): AppError {
  const tail = tailLines(stderr, ERROR_TAIL_LINES);
  return new AppError(
    'VIDEO_UNREADABLE',
    `Cannot read video '${file}': ${reason}${tail ? `: ${tail}` : '.'}`,
    { file, stderrTail: tail },
  );
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Options of {@link probePlayable} (and of remuxRecording in ./remux.ts). */
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

/** Default limit of one recovery ffmpeg run, in ms. */
export const DEFAULT_RECOVERY_TIMEOUT_MS = 300_000;

/** Outcome of one recovery ffmpeg run (decode check or remux). */
export type FfmpegRun = {
  exitCode: number | null;
  isTimedOut: boolean;
  lastProgress: FfmpegProgress | null;
  /** Non-empty stderr lines (the tail kept by the runner). */
  stderrLines: string[];
};

// Decodes `file`'s first video stream with ffmpeg and reports how many frames decode (unlike
// probeVideo, which counts packets without decoding: a torn last fragment counts there).
export async function probePlayable(
  file: string,
  options: RecoveryOptions,
): Promise<PlayableProbe> {
  const run = await runRecoveryFfmpeg(buildDecodeCheckArgs(file), options);
  const frames = run.lastProgress?.frame ?? 0;
  return {
    isPlayable: run.exitCode === 0 && frames > 0,
    decodableFrames: frames,
    durationMs: run.lastProgress?.outTimeMs ?? null,
    errorLines: run.stderrLines,
    exitCode: run.exitCode,
  };
}

/** Runs ffmpeg to completion for crash recovery; FFMPEG_NOT_FOUND when it cannot start. */
export async function runRecoveryFfmpeg(
  args: string[],
  options: RecoveryOptions,
): Promise<FfmpegRun> {
  let result: CommandResult;
  try {
    result = await runCommand(options.ffmpegPath, args, {
      timeoutMs: options.timeoutMs ?? DEFAULT_RECOVERY_TIMEOUT_MS,
      killSignal: 'SIGKILL',
      isOwnProcessGroup: options.isOwnProcessGroup,
    });
  } catch (error) {
    if (error instanceof ProcessStartError) {
      throw new AppError(
        'FFMPEG_NOT_FOUND',
        `Could not start ffmpeg '${options.ffmpegPath}' (${error.errno ?? 'error'}): ${errorMessage(error.cause)}.`,
        { ffmpegPath: options.ffmpegPath, errno: error.errno },
      );
    }
    throw error;
  }
  // -progress blocks on stdout; the last complete one carries the final count
  const progress = new ProgressParser();
  let lastProgress: FfmpegProgress | null = null;
  for (const line of result.stdout.split(/\r\n|\n|\r/)) {
    lastProgress = progress.push(line) ?? lastProgress;
  }
  return {
    exitCode: result.code,
    isTimedOut: result.isTimedOut,
    lastProgress,
    stderrLines: result.stderr.split(/\r\n|\n|\r/).filter((line) => line.trim() !== ''),
  };
}

// Arguments that decode the first video stream of `inputPath` and report the frame count.
export function buildDecodeCheckArgs(inputPath: string): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    // decode errors only; the count comes from the final -progress block
    '-loglevel',
    'error',
    '-progress',
    'pipe:1',
    '-i',
    inputPath,
    '-map',
    '0:v:0',
    // decode everything, write nothing
    '-f',
    'null',
    '-',
  ];
}
