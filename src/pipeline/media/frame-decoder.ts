// One ffmpeg child that decodes a sorted set of frame indices of a video in a single pass and
// streams them as raw RGB24 frames, bit-exact with the OpenCV frames the OpenCUA reference uses
// (docs/keyframes.md §3). Lifecycle object per docs/architecture.md §5: start() resolves on
// readiness, start timeout, abort and stop() kill the child, failures carry a code and ffmpeg's
// stderr tail.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { closeSync, constants as fsConstants, openSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Socket } from 'node:net';
import type { OnReadOpts, SocketConstructorOpts } from 'node:net';
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { tailLines } from './run-process';
import {
  killOnExit,
  makeTempDir,
  removeTempDir,
  sweepStaleTempDirs,
  withParentDeathSignal,
} from './child-guard';

/** Default limit between spawning ffmpeg and its readiness line, in ms. */
export const DEFAULT_DECODER_START_TIMEOUT_MS = 30_000;
/** Default delay between SIGTERM and SIGKILL when the decoder kills ffmpeg, in ms. */
export const DEFAULT_DECODER_KILL_GRACE_MS = 1_000;
/** The colour conversion OpenCV applies: BT.601 matrix, bicubic flags, file tags ignored (§3). */
export const OPENCV_SCALE_FILTER = 'scale=in_color_matrix=bt601:flags=bicubic';

/** Characters of stderr kept for error messages. */
const STDERR_TAIL_CHARS = 16 * 1024;
/** Lines of stderr quoted in error messages. */
const ERROR_TAIL_LINES = 8;

/** The ffmpeg executable to run (structurally a subset of the recorder's `FfmpegBinary`). */
export type FfmpegExecutable = {
  /** Path of the ffmpeg executable. */
  path: string;
};

/** One decoded frame handed to {@link FrameDecoderOptions.onFrame}. */
export type DecodedFrame = {
  /** Frame index n (presentation order from 0, docs/keyframes.md §2). */
  index: number;
  /** Position of this frame among the requested frames (0-based). */
  ordinal: number;
  /** Packed RGB24 pixels, width · height · 3 bytes; the callback may keep the buffer. */
  rgb: Buffer;
  /** Frame width in px. */
  width: number;
  /** Frame height in px. */
  height: number;
};

/** Return 'stop' from the frame callback to end decoding early (the result is still success). */
export type FrameCallbackResult = void | 'stop';

/** Options of {@link FrameDecoder} and {@link decodeFrames}. */
export type FrameDecoderOptions = {
  /** ffmpeg to run (the caller resolves it; pipeline code cannot import the recorder). */
  ffmpeg: FfmpegExecutable;
  /** Video file to decode. */
  videoPath: string;
  /** Frame indices to decode (any order, duplicates ignored; each ≥ 0). */
  frames: Iterable<number>;
  /** Video width in px (output frames have the video's resolution). */
  width: number;
  /** Video height in px. */
  height: number;
  /** Start at a keyframe instead of frame 0: ffmpeg seeks there (input seek) and frames are
   * picked by their exact timestamps, so indices stay those of the whole video (§2). */
  seek?: FrameSeek;
  /** Read the frames from a piped Matroska stream instead (exclusive with `seek`). */
  stream?: FrameStream;
  /** How frames travel from ffmpeg: 'auto' (default) a named pipe where the OS has them, else
   * stdout; 'stdout' always stdout. */
  transport?: 'auto' | 'stdout';
  /** Decoder threads for ffmpeg (`-threads`); default: ffmpeg's choice. Use 1 when several
   * decodes run at once: frame threading then only adds overhead. */
  decoderThreads?: number;
  /** Where frame buffers come from (default: a new buffer per frame). With a pool, a frame
   * buffer belongs to the callback until it gives it back with `pool.release`. */
  pool?: FrameBufferPool;
  /** Called once per decoded frame, in ascending index order (descending with seek.reverse);
   * awaited before the next frame. */
  onFrame: (frame: DecodedFrame) => FrameCallbackResult | Promise<FrameCallbackResult>;
  /** Aborts decoding: ffmpeg is killed and `done` rejects with code ABORTED. */
  signal?: AbortSignal;
  /** ms until ffmpeg must have opened the video; default {@link DEFAULT_DECODER_START_TIMEOUT_MS}. */
  startTimeoutMs?: number;
  /** ms between SIGTERM and SIGKILL; default {@link DEFAULT_DECODER_KILL_GRACE_MS}. */
  killGraceMs?: number;
  /** Debug logger (`pipeline:frames`): spawn arguments, readiness, kills and the exit status. */
  log?: (message: string) => void;
};

/** Where a decode starts and how frame indices map to timestamps (see frame-timeline.ts). */
export type FrameSeek = {
  /** `-ss` value in seconds on the file's own timestamps (`-seek_timestamp 1`): a keyframe's
   * pts, rounded up to the microsecond. Every requested frame lies at or after that keyframe. */
  seconds: string;
  /** pts (stream time base) of frame n. */
  ptsOf: (frame: number) => number;
  /** Deliver the frames in descending index order: ffmpeg reads the input only up to
   * `stopSeconds` (file timestamps, just past the last requested frame), keeps the selected
   * frames (still undecoded to RGB) and converts them last first, so a consumer that stops early
   * spares the conversion of the rest. */
  reverse?: { stopSeconds: string | null };
};

/** Input written to ffmpeg's stdin instead of reading `videoPath`: a Matroska stream whose
 * blocks carry their frame index n as timestamp (see mkv-stream.ts), so frames are selected by
 * that pts. Frames must still come out in ascending index order (send the parts in order). */
export type FrameStream = {
  /** Writes the whole stream to `stdin` (honouring backpressure) and ends it; rejects on a read
   * error. After `signal` aborts (the decode ended), it should stop writing and resolve. */
  feed: (stdin: Writable, signal: AbortSignal) => Promise<void>;
};

/** Reusable frame buffers (all of one size), to spare the allocator and the garbage collector. */
export class FrameBufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    /** Bytes per buffer (width · height · 3). */
    readonly frameBytes: number,
    /** Free buffers kept for reuse at most. */
    private readonly maxFree = 8,
  ) {}

  /** A buffer of frameBytes bytes (contents undefined). */
  acquire(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(this.frameBytes);
  }

  /** Gives a buffer back; the caller must not use it afterwards. */
  release(buffer: Buffer): void {
    if (buffer.length === this.frameBytes && this.free.length < this.maxFree) {
      this.free.push(buffer);
    }
  }
}

/** Outcome of a finished decode. */
export type FrameDecodeResult = {
  /** The requested frame indices, ascending and unique. */
  frames: number[];
  /** Number of frames delivered to the callback. */
  decodedCount: number;
  /** Requested frames the video did not have (past its last frame); [] when stopped early. */
  missingFrames: number[];
  /** True when the callback returned 'stop' or stop() was called before the end. */
  isStoppedEarly: boolean;
  /** Wall-clock time from spawn to exit, in ms (0 when nothing had to be decoded). */
  durationMs: number;
};

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

// Decodes `options.frames` in one ffmpeg pass, calling onFrame for each; resolves when done.
export async function decodeFrames(options: FrameDecoderOptions): Promise<FrameDecodeResult> {
  const decoder = new FrameDecoder(options);
  await decoder.start();
  return await decoder.done;
}

type DecoderState = 'idle' | 'starting' | 'running' | 'stopping' | 'done' | 'failed';

let sweeping: Promise<unknown> | null = null;

/** Removes the temp folders (filter script, named pipe) of decoders whose process died. */
export async function sweepStaleFrameDirs(): Promise<void> {
  await sweepStaleTempDirs();
}

/** Lifecycle of one decoding ffmpeg child (create one per decode). */
export class FrameDecoder {
  /** The frames this decoder delivers, ascending and unique. */
  readonly frames: readonly number[];
  private readonly options: FrameDecoderOptions;
  private readonly frameBytes: number;
  private state: DecoderState = 'idle';
  private child: ChildProcess | null = null;
  private readonly donePromise: Promise<FrameDecodeResult>;
  private resolveDone: (result: FrameDecodeResult) => void = () => undefined;
  private rejectDone: (error: unknown) => void = () => undefined;
  private readyWaiter: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  private isReady = false;
  private failure: unknown = null;
  private isStopRequested = false;
  private decodedCount = 0;
  private stderrTail = '';
  private stderrPartialLine = '';
  private isInOutputBanner = false;
  private startTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  /** The filter script and named pipe's folder until ffmpeg has opened both (or ended). */
  private tempDir: string | null = null;
  private untrackChild: () => void = () => undefined;

  constructor(options: FrameDecoderOptions) {
    const { width, height } = options;
    if (!(Number.isSafeInteger(width) && width > 0 && Number.isSafeInteger(height) && height > 0)) {
      throw new RangeError(
        `FrameDecoder: width and height must be positive integers, got ${width}×${height}`,
      );
    }
    this.options = options;
    this.frames = normalizeFrames(options.frames);
    this.frameBytes = width * height * 3;
    if (options.pool !== undefined && options.pool.frameBytes !== this.frameBytes) {
      throw new RangeError(
        `FrameDecoder: the buffer pool holds ${options.pool.frameBytes}-byte buffers, frames ` +
          `of ${width}×${height} need ${this.frameBytes}`,
      );
    }
    this.donePromise = new Promise<FrameDecodeResult>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    // a failed start rejects both start() and done; callers awaiting only start() are not
    // required to also handle done
    this.donePromise.catch(() => undefined);
  }

  /** Settles when decoding ends: the summary, or the coded error that ended it. */
  get done(): Promise<FrameDecodeResult> {
    return this.donePromise;
  }

  /** Process id of the ffmpeg child, once spawned. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Spawns ffmpeg; resolves once it has opened the video (or delivered a frame). Rejects with
   * ABORTED, FFMPEG_NOT_FOUND, VIDEO_UNREADABLE, FFMPEG_START_TIMEOUT or FFMPEG_FAILED.
   */
  async start(): Promise<void> {
    if (this.state !== 'idle') {
      throw new Error(
        `FrameDecoder.start(): the decoder is already ${this.state}; create a new FrameDecoder ` +
          'for every decode',
      );
    }
    this.state = 'starting';
    const { signal } = this.options;
    if (signal?.aborted) {
      const error = abortedError(this.options.videoPath);
      this.finishWithError(error);
      throw error;
    }
    if (this.frames.length === 0) {
      this.state = 'done';
      this.resolveDone({
        frames: [],
        decodedCount: 0,
        missingFrames: [],
        isStoppedEarly: false,
        durationMs: 0,
      });
      return;
    }

    // once per process: folders left by decoders whose process was killed
    sweeping ??= sweepStaleTempDirs().catch(() => undefined);
    const scriptDir = await makeTempDir();
    this.tempDir = scriptDir;
    const scriptPath = path.join(scriptDir, 'filter.txt');
    const ready = new Promise<void>((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
    });
    try {
      await writeFile(
        scriptPath,
        buildFrameFilterScript(
          this.frames,
          this.options.stream ? (frame) => frame : this.options.seek?.ptsOf,
          this.options.seek?.reverse !== undefined,
        ),
        'utf8',
      );
    } catch (error) {
      await this.releaseTempDir();
      this.finishWithError(error);
      throw error;
    }
    void this.runGuarded(scriptPath, scriptDir);
    await ready;
  }

  /** Stops decoding early (ffmpeg is killed); `done` then resolves with isStoppedEarly. */
  async stop(): Promise<void> {
    if (this.state === 'idle') {
      throw new Error('FrameDecoder.stop(): call start() before stop()');
    }
    if (this.state === 'starting' || this.state === 'running') {
      this.isStopRequested = true;
      this.terminate();
    }
    try {
      await this.donePromise;
    } catch {
      // stop() only ends the child; the failure, if any, is reported through done
    }
  }

  private async runGuarded(scriptPath: string, scriptDir: string): Promise<void> {
    try {
      await this.run(scriptPath, scriptDir);
    } catch (error) {
      // spawn() can throw synchronously (e.g. a NUL byte in a path)
      this.child?.kill('SIGKILL');
      this.untrackChild();
      await this.releaseTempDir();
      this.finishWithError(error);
    }
  }

  private async run(scriptPath: string, scriptDir: string): Promise<void> {
    const { ffmpeg, videoPath, signal } = this.options;
    const fifo = this.options.transport === 'stdout' ? null : await openFrameFifo(scriptDir);
    const args = buildFrameDecoderArgs({
      outputPath: fifo?.path,
      videoPath,
      filterScriptPath: scriptPath,
      frameCount: this.frames.length,
      seekSeconds: this.options.seek?.seconds,
      reverseStopSeconds: this.options.seek?.reverse?.stopSeconds ?? undefined,
      decoderThreads: this.options.decoderThreads,
      isStdinStream: this.options.stream !== undefined,
    });
    this.startedAt = performance.now();
    this.log(`spawn ${ffmpeg.path} ${args.join(' ')} (${this.frames.length} frames)`);
    const [command, commandArgs] = withParentDeathSignal(ffmpeg.path, args);
    const child = spawn(command, commandArgs, {
      stdio: [this.options.stream ? 'pipe' : 'ignore', fifo ? 'ignore' : 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.child = child;

    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve) => {
        child.once('close', (code, exitSignal) => resolve({ code, signal: exitSignal }));
        child.once('error', (error: NodeJS.ErrnoException) => {
          // 'error' without a pid means the spawn itself failed; 'close' may not follow
          if (child.pid === undefined) {
            this.failure ??= new AppError(
              'FFMPEG_NOT_FOUND',
              `Cannot start ffmpeg '${ffmpeg.path}' (${error.code ?? error.message}) to decode ` +
                `'${videoPath}'. Install ffmpeg (apt-get install ffmpeg) or set CUA_FFMPEG.`,
              { ffmpegPath: ffmpeg.path, videoPath },
            );
            resolve({ code: null, signal: null });
          }
        });
      },
    );
    if (child.pid !== undefined) {
      this.untrackChild = killOnExit(child);
    }

    const onAbort = (): void => {
      this.failure ??= abortedError(videoPath);
      this.terminate();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) {
      // aborted while the filter script was being written
      onAbort();
    } else if (this.isStopRequested) {
      // stop() came while the filter script was being written
      this.terminate();
    }
    const startTimeoutMs = this.options.startTimeoutMs ?? DEFAULT_DECODER_START_TIMEOUT_MS;
    this.startTimer = setTimeout(() => {
      if (!this.isReady) {
        this.failure ??= new AppError(
          'FFMPEG_START_TIMEOUT',
          `ffmpeg did not open '${videoPath}' within ${startTimeoutMs} ms (killed)` +
            this.tailSuffix(),
          { ffmpegPath: ffmpeg.path, videoPath, stderrTail: this.stderrTailLines() },
        );
        this.terminate();
      }
    }, startTimeoutMs);

    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => this.onStderr(text));
    const pumped = fifo
      ? this.pumpFifo(fifo)
      : child.stdout
        ? this.pump(child.stdout)
        : Promise.resolve(0);
    const feedEnd = new AbortController();
    const fed = this.feedStream(child, feedEnd.signal);

    const exit = await closed;
    // ffmpeg is gone: let the named pipe report its end once its data is read
    fifo?.closeWriter();
    feedEnd.abort();
    const pendingBytes = await pumped;
    await fed;
    this.log(
      `exit code ${exit.code} signal ${exit.signal}; ${this.decodedCount}/${this.frames.length} ` +
        `frames in ${Math.round(performance.now() - this.startedAt)} ms`,
    );
    clearTimeout(this.startTimer);
    clearTimeout(this.killTimer);
    signal?.removeEventListener('abort', onAbort);
    this.untrackChild();
    await this.releaseTempDir();
    this.settle(exit, pendingBytes);
  }

  /** Writes the piped input, if any; a read error ends the decode with that error. */
  private async feedStream(child: ChildProcess, signal: AbortSignal): Promise<void> {
    const { stream } = this.options;
    const { stdin } = child;
    if (stream === undefined || stdin === null) {
      return;
    }
    // ffmpeg exiting (done, stopped, failed) breaks the pipe: not an error of the feed
    stdin.on('error', () => undefined);
    try {
      await stream.feed(stdin, signal);
    } catch (error) {
      if (!signal.aborted && !this.isStopRequested) {
        this.failure ??= error;
        this.terminate();
      }
    }
  }

  /** Reads stdout (no named pipe: Windows, or mkfifo failed) into frames and hands them to the
   * callback; returns leftover bytes. */
  private async pump(stdout: NodeJS.ReadableStream): Promise<number> {
    let current: Buffer | null = null;
    let filled = 0;
    try {
      for await (const chunk of stdout as AsyncIterable<Buffer>) {
        this.markReady();
        let offset = 0;
        while (offset < chunk.length) {
          current ??= this.options.pool?.acquire() ?? Buffer.allocUnsafe(this.frameBytes);
          const count = Math.min(this.frameBytes - filled, chunk.length - offset);
          chunk.copy(current, filled, offset, offset + count);
          filled += count;
          offset += count;
          if (filled < this.frameBytes) {
            continue;
          }
          const frameBuffer: Buffer = current;
          current = null;
          filled = 0;
          if (await this.deliver(frameBuffer)) {
            return 0;
          }
        }
      }
    } catch {
      // a broken pipe after a kill; the exit status decides what happened
      return 0;
    }
    return filled;
  }

  /** Reads frames from the named pipe straight into frame buffers (no chunks, no copies). */
  private pumpFifo(fifo: FrameFifo): Promise<number> {
    return new Promise<number>((resolve) => {
      let current: Buffer | null = null;
      let filled = 0;
      let isFinished = false;
      const finish = (leftover: number): void => {
        if (!isFinished) {
          isFinished = true;
          resolve(leftover);
        }
      };
      // `onread` works for a Socket made from an fd (Node ≥ 12) but is typed for connect() only
      const options: SocketConstructorOpts & { onread: OnReadOpts } = {
        fd: fifo.readFd,
        readable: true,
        writable: false,
        onread: {
          buffer: () => {
            current ??= this.options.pool?.acquire() ?? Buffer.allocUnsafe(this.frameBytes);
            return current.subarray(filled);
          },
          callback: (bytes: number): boolean => {
            this.markReady();
            filled += bytes;
            if (filled < this.frameBytes || current === null) {
              return true;
            }
            const frame: Buffer = current;
            current = null;
            filled = 0;
            void (async () => {
              if (await this.deliverOrStop(frame)) {
                // closing the reader makes ffmpeg's next write fail: it cannot block
                socket.destroy();
                finish(0);
              } else {
                socket.resume();
              }
            })();
            return false; // paused until the frame is delivered
          },
        },
      };
      const socket = new Socket(options);
      socket.once('end', () => finish(filled));
      socket.once('error', () => finish(0));
      socket.once('close', () => finish(filled));
    });
  }

  /** {@link deliver}, and true (stop) should it ever throw. */
  private async deliverOrStop(rgb: Buffer): Promise<boolean> {
    try {
      return await this.deliver(rgb);
    } catch (error) {
      this.failure ??= error;
      this.terminate();
      return true;
    }
  }

  /** Calls onFrame; true when reading must stop. */
  private async deliver(rgb: Buffer): Promise<boolean> {
    if (this.failure !== null || this.isStopRequested) {
      return true;
    }
    const ordinal = this.decodedCount;
    const index =
      this.options.seek?.reverse === undefined
        ? this.frames[ordinal]
        : this.frames[this.frames.length - 1 - ordinal];
    if (index === undefined) {
      this.failure = new AppError(
        'FFMPEG_FAILED',
        `ffmpeg emitted more than the ${this.frames.length} frames selected from ` +
          `'${this.options.videoPath}' (is the video really ${this.options.width}×` +
          `${this.options.height}?)`,
        { videoPath: this.options.videoPath },
      );
      this.terminate();
      return true;
    }
    this.decodedCount += 1;
    const { width, height } = this.options;
    let verdict: FrameCallbackResult;
    try {
      verdict = await this.options.onFrame({ index, ordinal, rgb, width, height });
    } catch (error) {
      // a callback that throws ends the decode with its own error
      this.failure ??= error;
      this.terminate();
      return true;
    }
    if (verdict === 'stop' && this.failure === null) {
      this.isStopRequested = true;
      this.terminate();
      return true;
    }
    return this.failure !== null || this.isStopRequested;
  }

  private onStderr(text: string): void {
    this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
    const lines = (this.stderrPartialLine + text).split(/\r?\n/);
    this.stderrPartialLine = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('Stream mapping:')) {
        this.markReady();
      } else if (line.startsWith('Output #0')) {
        this.isInOutputBanner = true;
      } else if (this.isInOutputBanner) {
        this.checkOutputSize(line);
      }
    }
  }

  /** The output stream line names the frame size ffmpeg writes; it must be the one we read. */
  private checkOutputSize(line: string): void {
    const match = /^\s*Stream #0:0.*: Video: rawvideo\b.*?, (\d+)x(\d+)\b/.exec(line);
    if (!match) {
      return;
    }
    this.isInOutputBanner = false;
    const width = Number(match[1]);
    const height = Number(match[2]);
    if (width !== this.options.width || height !== this.options.height) {
      this.failure ??= new AppError(
        'FFMPEG_FAILED',
        `ffmpeg decodes '${this.options.videoPath}' as ${width}×${height}, but ` +
          `${this.options.width}×${this.options.height} was expected (probe the video again)`,
        { videoPath: this.options.videoPath, width, height },
      );
      this.terminate();
    }
  }

  private markReady(): void {
    if (this.isReady) {
      return;
    }
    this.isReady = true;
    this.log('ready');
    // ffmpeg has read the filter script and opened the named pipe: the folder can go now, so a
    // kill of this process from here on leaves nothing behind
    void this.releaseTempDir();
    clearTimeout(this.startTimer);
    if (this.state === 'starting') {
      this.state = 'running';
    }
    this.readyWaiter?.resolve();
    this.readyWaiter = null;
  }

  private async releaseTempDir(): Promise<void> {
    const dir = this.tempDir;
    this.tempDir = null;
    if (dir !== null) {
      await removeTempDir(dir).catch(() => undefined);
    }
  }

  /** SIGTERM now, SIGKILL after the grace period (ffmpeg ignores nothing, but be sure). */
  private terminate(): void {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    if (this.state === 'starting' || this.state === 'running') {
      this.state = 'stopping';
    }
    this.log('kill: SIGTERM');
    child.kill('SIGTERM');
    clearTimeout(this.killTimer);
    this.killTimer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
      }
    }, this.options.killGraceMs ?? DEFAULT_DECODER_KILL_GRACE_MS);
  }

  private settle(
    exit: { code: number | null; signal: NodeJS.Signals | null },
    pendingBytes: number,
  ): void {
    const { videoPath, ffmpeg } = this.options;
    if (this.failure !== null) {
      this.finishWithError(this.failure);
      return;
    }
    const durationMs = performance.now() - this.startedAt;
    if (this.isStopRequested) {
      // killed on request: whatever the exit status, the frames delivered so far are good
      this.finishWithResult({ missingFrames: [], durationMs });
      return;
    }
    if (exit.code !== 0) {
      const status = exit.code === null ? `signal ${exit.signal}` : `exit code ${exit.code}`;
      const details = {
        ffmpegPath: ffmpeg.path,
        videoPath,
        exitCode: exit.code,
        signal: exit.signal,
        stderrTail: this.stderrTailLines(),
      };
      // before readiness ffmpeg could not even open the input: the file is the problem
      this.finishWithError(
        this.isReady
          ? new AppError(
              'FFMPEG_FAILED',
              `ffmpeg failed while decoding '${videoPath}' (${status})${this.tailSuffix()}`,
              details,
            )
          : new AppError(
              'VIDEO_UNREADABLE',
              `Cannot decode video '${videoPath}': ffmpeg failed with ${status}${this.tailSuffix()}`,
              details,
            ),
      );
      return;
    }
    if (pendingBytes !== 0) {
      this.finishWithError(
        new AppError(
          'FFMPEG_FAILED',
          `ffmpeg ended '${videoPath}' with a partial frame (${pendingBytes} of ` +
            `${this.frameBytes} bytes)${this.tailSuffix()}`,
          { ffmpegPath: ffmpeg.path, videoPath, stderrTail: this.stderrTailLines() },
        ),
      );
      return;
    }
    if (this.options.seek?.reverse !== undefined && this.decodedCount < this.frames.length) {
      // reversed frames are labelled from the top of the list: a frame that did not come means
      // every label was off by its place, so nothing of this decode can be trusted
      this.finishWithError(
        new AppError(
          'FFMPEG_FAILED',
          `a reversed decode of '${videoPath}' delivered ${this.decodedCount} of ` +
            `${this.frames.length} frames; request only frames the video has (see its timeline)`,
          { ffmpegPath: ffmpeg.path, videoPath, stderrTail: this.stderrTailLines() },
        ),
      );
      return;
    }
    this.finishWithResult({ missingFrames: this.frames.slice(this.decodedCount), durationMs });
  }

  private finishWithResult(result: { missingFrames: number[]; durationMs: number }): void {
    this.state = 'done';
    this.readyWaiter?.resolve();
    this.readyWaiter = null;
    this.resolveDone({
      frames: [...this.frames],
      decodedCount: this.decodedCount,
      missingFrames: result.missingFrames,
      isStoppedEarly: this.isStopRequested && this.decodedCount < this.frames.length,
      durationMs: result.durationMs,
    });
  }

  private finishWithError(error: unknown): void {
    this.state = 'failed';
    this.readyWaiter?.reject(error);
    this.readyWaiter = null;
    this.rejectDone(error);
  }

  private log(message: string): void {
    this.options.log?.(message);
  }

  private stderrTailLines(): string {
    return tailLines(this.stderrTail + this.stderrPartialLine, ERROR_TAIL_LINES);
  }

  private tailSuffix(): string {
    const tail = this.stderrTailLines();
    return tail === '' ? '.' : `:\n${tail}`;
  }
}

/** A named pipe for the frames: ffmpeg writes it, we read it with a Socket whose reads land
 * in our frame buffers. Stdout would hand us ~50 freshly allocated chunks per 720p frame, and
 * their garbage collection and copying cost more CPU than the RGB conversion itself. */
type FrameFifo = {
  path: string;
  readFd: number;
  /** Closes our own write end (held so the pipe does not report its end before ffmpeg opens it). */
  closeWriter: () => void;
};

// A named pipe in `dir`, open for reading; null where there are none (Windows) or mkfifo fails
// (frames then come through stdout).
async function openFrameFifo(dir: string): Promise<FrameFifo | null> {
  if (process.platform === 'win32') {
    return null;
  }
  const fifoPath = path.join(dir, 'frames.fifo');
  const isMade = await new Promise<boolean>((resolve) => {
    execFile('mkfifo', ['-m', '600', fifoPath], { timeout: 10_000 }, (error) => resolve(!error));
  });
  if (!isMade) {
    return null;
  }
  let readFd: number | null = null;
  try {
    readFd = openSync(fifoPath, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    const writeFd = openSync(fifoPath, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK);
    let isOpen = true;
    return {
      path: fifoPath,
      readFd,
      closeWriter: () => {
        if (isOpen) {
          isOpen = false;
          closeSync(writeFd);
        }
      },
    };
  } catch {
    if (readFd !== null) {
      closeSync(readFd);
    }
    return null;
  }
}

function abortedError(videoPath: string): AppError {
  return new AppError('ABORTED', `Decoding frames of '${videoPath}' was aborted.`, { videoPath });
}

function normalizeFrames(frames: Iterable<number>): number[] {
  const unique = new Set<number>();
  for (const frame of frames) {
    if (!(Number.isSafeInteger(frame) && frame >= 0)) {
      throw new RangeError(`FrameDecoder: frame indices must be integers ≥ 0, got ${frame}`);
    }
    unique.add(frame);
  }
  return [...unique].sort((a, b) => a - b);
}
