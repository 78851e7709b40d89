// Pure parsers for ffmpeg's output (docs/architecture.md §5 "Pure output parsers"): `-progress` blocks
// on stdout, and the stderr lines the recorder needs (input start time, final counts, stats).

/** One `-progress` block (or the final stderr stats line). */
export type FfmpegProgress = {
  /** Frames handed to the encoder so far (`frame=`). */
  frame: number;
  /** Encoding rate in frames/s as ffmpeg averages it; null when not reported. */
  fps: number | null;
  /** Output bitrate in kbit/s; null while `N/A`. */
  bitrateKbps: number | null;
  /** Bytes written to the output so far; null when not reported. */
  totalSizeBytes: number | null;
  /** Media time of the output in ms (`out_time_us`); null while `N/A`. */
  outTimeMs: number | null;
  /** Frames duplicated by ffmpeg's output rate control (`dup_frames`). */
  dupFrames: number;
  /** Frames dropped by ffmpeg's output rate control (`drop_frames`). */
  dropFrames: number;
  /** Processing speed relative to real time (1 = real time); null while `N/A`. */
  speed: number | null;
  /** True for the last block (`progress=end`, or the final stderr stats line). */
  isFinal: boolean;
};

/** Totals ffmpeg prints at `-loglevel verbose` when it ends (null = line not seen). */
export type FfmpegFinalCounts = {
  /** Frames the capture device delivered (`N packets read` of input stream 0:0). */
  inputFrames: number | null;
  /** Frames the `fps` filter dropped (two captures landed in one slot). */
  filterDroppedFrames: number | null;
  /** Frames the `fps` filter repeated (a slot had no capture of its own: capture was late). */
  filterDuplicatedFrames: number | null;
  /** Frames the encoder produced (`N frames encoded`). */
  encodedFrames: number | null;
};

/** Accumulates `-progress` key=value lines and emits one {@link FfmpegProgress} per block. */
export class ProgressParser {
  private fields = new Map<string, string>();

  // Feeds one stdout line; returns the finished block when the line is `progress=…`, else null.
  push(line: string): FfmpegProgress | null {
    const equals = line.indexOf('=');
    if (equals <= 0) {
      return null;
    }
    const key = line.slice(0, equals).trim();
    const value = line.slice(equals + 1).trim();
    if (key !== 'progress') {
      this.fields.set(key, value);
      return null;
    }
    const block = parseProgressFields(this.fields, value === 'end');
    this.fields = new Map();
    return block;
  }
}

// Converts one block's fields (frame, fps, out_time_us, …) into a typed progress record.
export function parseProgressFields(
  fields: ReadonlyMap<string, string>,
  isFinal: boolean,
): FfmpegProgress {
  const outTimeUs = parseNumber(fields.get('out_time_us'));
  return {
    frame: parseNumber(fields.get('frame')) ?? 0,
    fps: parseNumber(fields.get('fps')),
    bitrateKbps: parseNumber(fields.get('bitrate')?.replace(/kbits\/s$/, '')),
    totalSizeBytes: parseNumber(fields.get('total_size')),
    // out_time_us can be negative before the first packet; clamp to the start
    outTimeMs: outTimeUs === null ? null : Math.max(0, outTimeUs / 1000),
    dupFrames: parseNumber(fields.get('dup_frames')) ?? 0,
    dropFrames: parseNumber(fields.get('drop_frames')) ?? 0,
    speed: parseNumber(fields.get('speed')?.replace(/x$/, '')),
    isFinal,
  };
}

/** What the `Duration:` line of an input says about its start time. */
export type InputStart =
  /** A start time in seconds on the device's clock (x11grab: the first frame's capture time). */
  | { kind: 'start'; seconds: number }
  /** The line was printed without a start time (`start: N/A` or no `start:` field). */
  | { kind: 'none' };

// Reads `  Duration: N/A, start: 1796048293.177741, bitrate: …` (an input's header); else null.
export function parseInputStartLine(line: string): InputStart | null {
  if (!/^\s*Duration: /.test(line)) {
    return null;
  }
  const match = /\bstart: (-?\d+(?:\.\d+)?)\b/.exec(line);
  return match ? { kind: 'start', seconds: Number(match[1]) } : { kind: 'none' };
}

// Updates `counts` from one stderr line of ffmpeg's verbose end-of-run summary; true if it matched.
export function parseFinalCountsLine(line: string, counts: FfmpegFinalCounts): boolean {
  const read = /^\s*Input stream #0:0 \(video\): (\d+) packets read/.exec(line);
  if (read) {
    counts.inputFrames = Number(read[1]);
    return true;
  }
  const encoded = /^\s*Output stream #0:0 \(video\): (\d+) frames encoded/.exec(line);
  if (encoded) {
    counts.encodedFrames = Number(encoded[1]);
    return true;
  }
  // "[Parsed_fps_0 @ 0x…] 62 frames in, 61 frames out; 2 frames dropped, 1 frames duplicated."
  const filter =
    /\[Parsed_fps_\d+ @ [^\]]+\] \d+ frames in, \d+ frames out; (\d+) frames dropped, (\d+) frames duplicated/.exec(
      line,
    );
  if (filter) {
    counts.filterDroppedFrames = Number(filter[1]);
    counts.filterDuplicatedFrames = Number(filter[2]);
    return true;
  }
  return false;
}

// Empty final counts (nothing seen yet).
export function emptyFinalCounts(): FfmpegFinalCounts {
  return {
    inputFrames: null,
    filterDroppedFrames: null,
    filterDuplicatedFrames: null,
    encodedFrames: null,
  };
}

// Parses stderr's stats line (`frame=   30 fps=0.0 q=-1.0 Lsize=… dup=4 drop=2 speed=1.04x`).
export function parseStatsLine(line: string): FfmpegProgress | null {
  const frame = /^frame=\s*(\d+)\b/.exec(line.trim());
  if (!frame) {
    return null;
  }
  const field = (name: string): string | undefined =>
    new RegExp(`\\b${name}=\\s*(\\S+)`).exec(line)?.[1];
  const size = field('L?size');
  const time = field('time');
  return {
    frame: Number(frame[1]),
    fps: parseNumber(field('fps')),
    bitrateKbps: parseNumber(field('bitrate')?.replace(/kbits\/s$/, '')),
    totalSizeBytes: size === undefined ? null : parseSize(size),
    outTimeMs: time === undefined ? null : parseClockTime(time),
    dupFrames: parseNumber(field('dup')) ?? 0,
    dropFrames: parseNumber(field('drop')) ?? 0,
    speed: parseNumber(field('speed')?.replace(/x$/, '')),
    // `Lsize=` (with L) marks the last report
    isFinal: /\bLsize=/.test(line),
  };
}

function parseNumber(text: string | undefined): number | null {
  if (text === undefined) {
    return null;
  }
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'N/A') {
    return null;
  }
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** `5kB` / `1024KiB` / `N/A` → bytes (ffmpeg prints kB = 1024 bytes). */
function parseSize(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(kB|KiB|MB|MiB|B)?$/.exec(text);
  if (!match) {
    return null;
  }
  const unit = match[2] ?? 'B';
  const factor = unit === 'B' ? 1 : unit === 'kB' || unit === 'KiB' ? 1024 : 1024 * 1024;
  return Math.round(Number(match[1]) * factor);
}

/** `00:00:01.96` or `-00:00:00.03` → ms. */
function parseClockTime(text: string): number | null {
  const match = /^(-?)(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/.exec(text);
  if (!match) {
    return null;
  }
  const ms =
    (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4])) *
    1000 *
    (match[1] === '-' ? -1 : 1);
  return Math.max(0, Math.round(ms * 1000) / 1000);
}
