// The ffmpeg command of a frame decode, as pure builders (docs/architecture.md §5): the select
// expression for the requested frames, the filtergraph with OpenCV's colour conversion
// (docs/keyframes.md §3) and the argument list.

/** The colour conversion OpenCV applies: BT.601 matrix, bicubic flags, file tags ignored (§3). */
export const OPENCV_SCALE_FILTER = 'scale=in_color_matrix=bt601:flags=bicubic';

/** Options of {@link buildFrameDecoderArgs}. */
export type FrameDecoderArgsOptions = {
  /** Video file to decode. */
  videoPath: string;
  /** File holding the filtergraph (see {@link buildFrameFilterScript}). */
  filterScriptPath: string;
  /** Number of frames selected; ffmpeg stops after emitting that many. */
  frameCount: number;
  /** Input seek in seconds (file timestamps); the filter then selects by pts. */
  seekSeconds?: string;
  /** With a seek: stop reading the input here and emit the selected frames in reverse order. */
  reverseStopSeconds?: string;
  /** Read a Matroska stream from stdin (frames selected by pts = frame index) instead. */
  isStdinStream?: boolean;
  /** Write the frames to this file (a named pipe) instead of stdout. */
  outputPath?: string;
  /** `-threads` of the decoder; absent: ffmpeg's default. */
  decoderThreads?: number;
};

// Builds the select expression matching exactly `frames` (ascending, unique) on the variable
// `n` (frame index) or `pts`, as a balanced if/lt tree over runs, so that thousands of values
// cost O(log n) per decoded frame.
export function buildSelectExpression(
  frames: readonly number[],
  variable: 'n' | 'pts' = 'n',
): string {
  const v = variable;
  const runs: { first: number; last: number }[] = [];
  for (const frame of frames) {
    const run = runs.at(-1);
    if (run !== undefined && frame === run.last + 1) {
      run.last = frame;
    } else {
      runs.push({ first: frame, last: frame });
    }
  }
  if (runs.length === 0) {
    return '0';
  }
  const build = (from: number, to: number): string => {
    if (from === to) {
      const run = runs[from] as { first: number; last: number };
      return run.first === run.last
        ? `eq(${v},${run.first})`
        : `between(${v},${run.first},${run.last})`;
    }
    const middle = Math.ceil((from + to) / 2);
    const pivot = (runs[middle] as { first: number }).first;
    return `if(lt(${v},${pivot}),${build(from, middle - 1)},${build(middle, to)})`;
  };
  return build(0, runs.length - 1);
}

// The filtergraph of a decode: select the frames (by index, or by pts when `ptsOf` is given, for
// decodes that start at a seek), then OpenCV's BT.601/bicubic conversion (§3).
export function buildFrameFilterScript(
  frames: readonly number[],
  ptsOf?: (frame: number) => number,
  isReversed = false,
): string {
  const expression = ptsOf
    ? buildSelectExpression(frames.map(ptsOf), 'pts')
    : buildSelectExpression(frames);
  // single quotes keep the expression's commas away from the filtergraph parser; `reverse`
  // buffers the selected frames before the (costly) RGB conversion
  return `select='${expression}',${isReversed ? 'reverse,' : ''}${OPENCV_SCALE_FILTER}`;
}

// The ffmpeg argument list of a decode (the filtergraph comes from a script file so that
// hundreds of indices never hit the command-line length limit).
export function buildFrameDecoderArgs(options: FrameDecoderArgsOptions): string[] {
  return [
    // no banner, never read stdin (we stop ffmpeg with signals), no progress lines
    ...['-hide_banner', '-nostdin', '-nostats'],
    // info level prints "Stream mapping:" once the input is open: our readiness signal
    ...['-loglevel', 'info'],
    // a seek starts at a keyframe (no accurate-seek trimming) and keeps the file's timestamps,
    // so that the filter can select frames by their pts
    ...(options.seekSeconds === undefined
      ? []
      : [
          ...['-seek_timestamp', '1', '-noaccurate_seek', '-ss', options.seekSeconds, '-copyts'],
          ...(options.reverseStopSeconds === undefined ? [] : ['-to', options.reverseStopSeconds]),
        ]),
    ...(options.decoderThreads === undefined ? [] : ['-threads', String(options.decoderThreads)]),
    // a piped stream keeps its timestamps (the frame indices) for the selection
    ...(options.isStdinStream
      ? ['-copyts', '-f', 'matroska', '-i', 'pipe:0']
      : ['-i', options.videoPath]),
    // the first video stream only: audio is neither demuxed into a decoder nor converted
    ...['-map', '0:v:0'],
    // select + scale=in_color_matrix=bt601:flags=bicubic (docs/keyframes.md §3)
    ...['-filter_script:v', options.filterScriptPath],
    // keep selected frames back to back without duplicating or dropping (= -vsync 0, §3)
    ...['-fps_mode', 'passthrough'],
    // output timestamps in the input's time base (ms indices would collide in a guessed one)
    ...(options.isStdinStream ? ['-enc_time_base:v', '-1'] : []),
    // end right after the last selected frame instead of decoding to the end of the file
    ...['-frames:v', String(options.frameCount)],
    // raw RGB24 on stdout, 3·W·H bytes per frame, in index order
    ...['-f', 'rawvideo', '-pix_fmt', 'rgb24'],
    ...(options.outputPath === undefined ? ['-'] : ['-y', options.outputPath]),
  ];
}
