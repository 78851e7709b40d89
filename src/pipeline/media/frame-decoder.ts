// One ffmpeg child that decodes a sorted set of frame indices of a video in a single pass and
// streams them as raw RGB24 frames, bit-exact with the OpenCV frames the OpenCUA reference uses
// (docs/keyframes.md §3). Lifecycle object per docs/architecture.md §5: start() resolves on
// readiness, start timeout, abort and stop() kill the child, failures carry a code and ffmpeg's
// stderr tail. Its parts live in decoder/: the ffmpeg arguments, the buffer pool, the named-pipe
// and stdout transports, the stderr monitor and the exit outcome; this module re-exports their
// public names.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnChild } from '../../infra/spawn-child';
import type { ChildProcess } from '../../infra/spawn-child';
import { AppError } from '../../shared/errors';
import { makeTempDir, removeTempDir, sweepStaleTempDirs } from './child-guard';
import { buildFrameDecoderArgs, buildFrameFilterScript } from './decoder/ffmpeg-args';
import { decodeExitOutcome } from './decoder/exit-outcome';
import { openFrameFifo, readFramesFromFifo } from './decoder/fifo-transport';
import type { FrameSink } from './decoder/frame-sink';
import { DecoderStderrMonitor } from './decoder/stderr-monitor';
import { readFramesFromStream } from './decoder/stdout-transport';
import { DEFAULT_DECODER_KILL_GRACE_MS, DEFAULT_DECODER_START_TIMEOUT_MS } from './decoder/types';
import type { FrameCallbackResult, FrameDecodeResult, FrameDecoderOptions } from './decoder/types';

export { FrameBufferPool } from './decoder/buffer-pool';
export {
  OPENCV_SCALE_FILTER,
  buildFrameDecoderArgs,
  buildFrameFilterScript,
  buildSelectExpression,
} from './decoder/ffmpeg-args';
export type { FrameDecoderArgsOptions } from './decoder/ffmpeg-args';
export { DEFAULT_DECODER_KILL_GRACE_MS, DEFAULT_DECODER_START_TIMEOUT_MS } from './decoder/types';
export type {
  DecodedFrame,
  FfmpegExecutable,
  FrameCallbackResult,
  FrameDecodeResult,
  FrameDecoderOptions,
  FrameSeek,
  FrameStream,
} from './decoder/types';

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
  private readonly stderr = new DecoderStderrMonitor();
  private startTimer: NodeJS.Timeout | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  /** The filter script and named pipe's folder until ffmpeg has opened both (or ended). */
  private tempDir: string | null = null;

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
    // parent-death signal and kill-on-exit: an ffmpeg blocked opening a named pipe whose reader
    // is gone would otherwise wait forever (it ignores SIGTERM there)
    const child = spawnChild(ffmpeg.path, args, {
      stdio: [this.options.stream ? 'pipe' : 'ignore', fifo ? 'ignore' : 'pipe', 'pipe'],
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
            this.stderr.tailSuffix(),
          { ffmpegPath: ffmpeg.path, videoPath, stderrTail: this.stderr.tailLines() },
        );
        this.terminate();
      }
    }, startTimeoutMs);

    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => this.onStderr(text));
    const sink: FrameSink = {
      frameBytes: this.frameBytes,
      acquire: () => this.options.pool?.acquire() ?? Buffer.allocUnsafe(this.frameBytes),
      onData: () => this.markReady(),
      deliver: async (frame) => await this.deliverOrStop(frame),
    };
    const pumped = fifo
      ? readFramesFromFifo(fifo, sink)
      : child.stdout
        ? readFramesFromStream(child.stdout, sink)
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
    for (const signal of this.stderr.push(text)) {
      if (signal.kind === 'ready') {
        this.markReady();
      } else {
        this.checkOutputSize(signal.width, signal.height);
      }
    }
  }

  /** The output stream line names the frame size ffmpeg writes; it must be the one we read. */
  private checkOutputSize(width: number, height: number): void {
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
    const outcome = decodeExitOutcome({
      ...exit,
      ffmpegPath: this.options.ffmpeg.path,
      videoPath: this.options.videoPath,
      isReady: this.isReady,
      frames: this.frames,
      decodedCount: this.decodedCount,
      pendingBytes,
      frameBytes: this.frameBytes,
      isReversed: this.options.seek?.reverse !== undefined,
      stderrTail: this.stderr.tailLines(),
    });
    if ('error' in outcome) {
      this.finishWithError(outcome.error);
    } else {
      this.finishWithResult({ missingFrames: outcome.missingFrames, durationMs });
    }
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
