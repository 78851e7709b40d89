// FfmpegRecorder: the lifecycle object around one ffmpeg screen-capture process
// (docs/architecture.md §5 "Process class"): start → first frame (readiness) → stop ('q', then SIGTERM,
// then SIGKILL) → done, with coded errors that carry the binary, exit status and stderr tail.
import { LineSplitter } from '../../infra/lines';
import { spawnChild } from '../../infra/spawn-child';
import type { ChildProcessWithoutNullStreams } from '../../infra/spawn-child';
import { StderrTail } from '../../infra/stderr-tail';
import { stopChild } from '../../infra/stop-child';
import { AppError } from '../../shared/errors';
import { monotonicNowMs, sampleWallClockOffset } from '../clock';
import type { WallClockOffset } from '../clock';
import { buildCaptureArgs } from './ffmpeg-args';
import type { CaptureArgsOptions } from './ffmpeg-args';
import {
  ProgressParser,
  emptyFinalCounts,
  parseFinalCountsLine,
  parseInputStartLine,
} from '../../infra/ffmpeg/progress';
import type { FfmpegFinalCounts, FfmpegProgress, InputStart } from '../../infra/ffmpeg/progress';
import { estimateVideoStart } from './video-start';
import type { VideoStartEstimate } from './video-start';

/** Options of {@link FfmpegRecorder.start}: what to capture plus process settings. */
export type FfmpegRecorderStartOptions = CaptureArgsOptions & {
  /** ffmpeg executable (`resolveFfmpeg().path`). */
  ffmpegPath: string;
  /** ms to wait for the first frame before failing with FFMPEG_START_TIMEOUT; default 10 000. */
  startTimeoutMs?: number;
  /** stderr lines kept for error messages and the result; default 50. */
  stderrTailLines?: number;
  /** Called for every `-progress` block (every `progressIntervalMs`, plus the final one). */
  onProgress?: (progress: FfmpegProgress) => void;
  /** Debug logger (`recorder:ffmpeg`): receives lifecycle messages and every stderr line. */
  log?: (message: string) => void;
  /** Environment of the child; default the parent's `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Linux: signal ffmpeg gets when the recorder process dies, so a killed recorder never leaves
   * ffmpeg running; SIGTERM comes exactly once, from a watcher (src/infra/parent-death.ts): a
   * second one would make ffmpeg drop the fragment under way. Default none.
   */
  parentDeathSignal?: NodeJS.Signals;
  /** setpriv executable (util-linux) for a SIGKILL; default the one infra/parent-death.ts finds. */
  setprivPath?: string;
};

/** Options of {@link FfmpegRecorder.stop}. */
export type FfmpegStopOptions = {
  /** ms to wait after `q` before SIGTERM; 0 skips `q` and sends SIGTERM at once; default 5 000. */
  quitGraceMs?: number;
  /** ms to wait after SIGTERM before SIGKILL; default 3 000. */
  termGraceMs?: number;
};

/** Lifecycle state of a {@link FfmpegRecorder} (single use: idle → … → exited). */
export type FfmpegRecorderState = 'idle' | 'starting' | 'recording' | 'stopping' | 'exited';

/** What {@link FfmpegRecorder.start} resolves with once the first frame is captured. */
export type FfmpegStarted = {
  /** Process id of ffmpeg. */
  pid: number;
  /** The exact argument list ffmpeg was started with. */
  args: string[];
  /** Session-clock time of video time 0, with method and uncertainty. */
  videoStart: VideoStartEstimate;
  /** Session-clock ms just before spawning. */
  spawnedAtMs: number;
  /** Session-clock ms when the first frame was reported. */
  readyAtMs: number;
};

/** How the ffmpeg process ended. */
export type FfmpegStopReason =
  /** It read `q` from stdin and finished the file. */
  | 'quit'
  /** Our SIGTERM (exit 255 with a finished file, or death by the signal). */
  | 'SIGTERM'
  /** Our SIGKILL after the grace periods: the last fragment (≤ 1 s) may be missing. */
  | 'SIGKILL'
  /** It exited 0 on its own (e.g. a duration limit). */
  | 'self'
  /** A SIGINT from outside (someone signalled ffmpeg itself): ffmpeg said "received signal 2"
   * and finished the file itself (exit 255). An outside SIGTERM stays a failure. */
  | 'outside-signal';

/** Final outcome of a recording (what {@link FfmpegRecorder.done} resolves with). */
export type FfmpegRecordingResult = {
  /** The output file. */
  outputPath: string;
  /** Exit code, or null when ended by a signal. */
  exitCode: number | null;
  /** Signal that ended the process, or null. */
  signal: NodeJS.Signals | null;
  /** Why it ended. */
  stoppedBy: FfmpegStopReason;
  /** True when ffmpeg finalised the file itself; false after a kill (remux before publishing). */
  isComplete: boolean;
  /** The last progress block (frames written, fps, …); null if none arrived. */
  lastProgress: FfmpegProgress | null;
  /** Capture/filter/encoder totals from the verbose end-of-run summary. */
  finalCounts: FfmpegFinalCounts;
  /** Session-clock time of video time 0; null when ffmpeg never reported a frame. */
  videoStart: VideoStartEstimate | null;
  /** The last stderr lines. */
  stderrTail: string[];
};

/** Default limit for the first frame, in ms (ffmpeg starts in 0.1–0.4 s on the build machine). */
export const DEFAULT_START_TIMEOUT_MS = 10_000;
/** Default wait after `q` before SIGTERM, in ms (flushing x264 takes well under 1 s). */
export const DEFAULT_QUIT_GRACE_MS = 5_000;
/** Default wait after SIGTERM before SIGKILL, in ms. */
export const DEFAULT_TERM_GRACE_MS = 3_000;
/** Default number of stderr lines kept. */
export const DEFAULT_STDERR_TAIL_LINES = 50;
/** Grace between SIGTERM and SIGKILL when aborting a start that timed out, in ms. */
const START_ABORT_GRACE_MS = 1_000;

/** ffmpeg's own note that SIGINT (2) ended it and it finished the output. */
const RECEIVED_STOP_SIGNAL = /received signal 2\b/;

/** One ffmpeg screen recording: `start()`, then `stop()`; `done` settles when ffmpeg has ended. */
export class FfmpegRecorder {
  /** Settles when ffmpeg has ended: resolves on success, rejects with FFMPEG_FAILED (or the
   * start error). Never settles if start() is never called. */
  readonly done: Promise<FfmpegRecordingResult>;

  private currentState: FfmpegRecorderState = 'idle';
  private child: ChildProcessWithoutNullStreams | null = null;
  /** Settles when the child's 'close' has fired. */
  private closed: Promise<void> = Promise.resolve();
  private options: FfmpegRecorderStartOptions | null = null;
  private captureArgs: string[] = [];
  private tail = new StderrTail({ maxLines: DEFAULT_STDERR_TAIL_LINES });
  private latestProgress: FfmpegProgress | null = null;
  private readonly finalCounts = emptyFinalCounts();
  private inputStart: InputStart | null = null;
  private headerAtMs: number | null = null;
  private spawnedAtMs = 0;
  private readonly wallOffsets: WallClockOffset[] = [];
  private estimate: VideoStartEstimate | null = null;
  private readonly signalsSent = new Set<NodeJS.Signals>();
  private hasSentQuit = false;
  private failure: AppError | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private resolveStart: ((started: FfmpegStarted) => void) | null = null;
  private rejectStart: ((error: AppError) => void) | null = null;
  private resolveDone: (result: FfmpegRecordingResult) => void = () => undefined;
  private rejectDone: (error: AppError) => void = () => undefined;

  constructor() {
    this.done = new Promise<FfmpegRecordingResult>((resolve, reject) => {
      this.resolveDone = resolve;
      this.rejectDone = reject;
    });
    // callers that only await start()/stop() must not see an unhandled rejection of `done`
    this.done.catch(() => undefined);
  }

  /** Current lifecycle state. */
  get state(): FfmpegRecorderState {
    return this.currentState;
  }

  /** Process id while ffmpeg runs (or ran); null before start(). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** The argument list ffmpeg was started with (empty before start()). */
  get args(): readonly string[] {
    return this.captureArgs;
  }

  /** The most recent progress block; null before the first. */
  get lastProgress(): FfmpegProgress | null {
    return this.latestProgress;
  }

  /** Session-clock time of video time 0; null until start() resolved. */
  get videoStart(): VideoStartEstimate | null {
    return this.estimate;
  }

  // Spawns ffmpeg and resolves once it has captured and reported its first frame.
  async start(options: FfmpegRecorderStartOptions): Promise<FfmpegStarted> {
    if (this.currentState !== 'idle') {
      throw new AppError(
        'INVALID_STATE',
        this.currentState === 'exited'
          ? 'This FfmpegRecorder has finished; create a new FfmpegRecorder for the next recording.'
          : `FfmpegRecorder is already ${this.currentState}; call stop() before start().`,
        { state: this.currentState },
      );
    }
    // validate everything before spawning (argument errors throw here)
    this.captureArgs = buildCaptureArgs(options);
    this.options = options;
    this.tail = new StderrTail({
      maxLines: options.stderrTailLines ?? DEFAULT_STDERR_TAIL_LINES,
    });
    this.currentState = 'starting';

    const startPromise = new Promise<FfmpegStarted>((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
    });

    this.wallOffsets.push(sampleWallClockOffset());
    this.spawnedAtMs = monotonicNowMs();
    this.log(`spawn ${options.ffmpegPath} ${this.captureArgs.join(' ')}`);
    // With a parent-death SIGTERM, ffmpeg ends (and finishes the fragment under way) even when
    // the recorder itself is SIGKILLed: spawnChild's watcher sends it exactly once, because
    // ffmpeg treats a second SIGTERM as "exit now" and drops every write still to come (the
    // kernel's setpriv signal comes once per recorder thread, 2–4 times). On this process's
    // exit it gets SIGTERM (not SIGKILL) from the exit hook instead, and finishes the file on
    // its own (exit 255, docs/platform-linux.md §5); hosts that die by a signal run no 'exit'
    // handlers and should call process.exit() from theirs.
    // In a process group of its own: a terminal's Ctrl+C goes to the whole foreground group, and
    // an impatient user's fourth one made ffmpeg "hard exit" (code 123) halfway through finishing
    // the file, leaving no frames at all; the recorder hears the Ctrl+C and stops ffmpeg once.
    const child = spawnChild(options.ffmpegPath, this.captureArgs, {
      env: options.env ?? process.env,
      parentDeathSignal: options.parentDeathSignal ?? null,
      setprivPath: options.setprivPath,
      exitSignal: 'SIGTERM',
      detached: true,
    });
    this.child = child;
    this.closed = new Promise<void>((resolve) => child.once('close', () => resolve()));

    const stdoutLines = new LineSplitter();
    const progress = new ProgressParser();
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      for (const line of stdoutLines.push(chunk)) {
        const block = progress.push(line);
        if (block) {
          this.onProgressBlock(block);
        }
      }
    });
    const stderrLines = new LineSplitter();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      for (const line of stderrLines.push(chunk)) {
        this.onStderrLine(line);
      }
    });
    child.stderr.on('end', () => {
      for (const line of stderrLines.flush()) {
        this.onStderrLine(line);
      }
    });
    // writing 'q' to an ffmpeg that already exited raises EPIPE: not a failure of ours
    child.stdin.on('error', (error) => this.log(`stdin: ${error.message}`));

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) {
        // the spawn itself failed; no 'exit' may follow
        const code =
          error.code === 'ENOENT' || error.code === 'EACCES' ? 'FFMPEG_NOT_FOUND' : 'FFMPEG_FAILED';
        this.finish(
          null,
          null,
          new AppError(
            code,
            `Could not start ffmpeg '${options.ffmpegPath}' (${error.code ?? 'error'}): ${error.message}.`,
            { ffmpegPath: options.ffmpegPath, errno: error.code },
          ),
        );
      } else {
        this.log(`process error: ${error.message}`);
      }
    });
    child.once('close', (code, signal) => this.finish(code, signal, null));

    const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.addTimer(startTimeoutMs, () => {
      if (this.currentState !== 'starting') {
        return;
      }
      this.failure = new AppError(
        'FFMPEG_START_TIMEOUT',
        `ffmpeg '${options.ffmpegPath}' did not capture a first frame within ${startTimeoutMs} ms` +
          ` (recording to '${options.outputPath}').${this.tailText()}`,
        this.errorDetails(null, null),
      );
      this.failStart(this.failure);
      this.currentState = 'stopping';
      void stopChild(child, {
        exited: this.closed,
        killGraceMs: START_ABORT_GRACE_MS,
        kill: (signal) => this.sendSignal(signal),
      });
    });

    return await startPromise;
  }

  // Stops gracefully ('q'), then SIGTERM, then SIGKILL; resolves with the final result.
  async stop(options: FfmpegStopOptions = {}): Promise<FfmpegRecordingResult> {
    if (this.currentState === 'idle') {
      throw new AppError(
        'INVALID_STATE',
        'FfmpegRecorder has not been started; call start() before stop().',
        { state: this.currentState },
      );
    }
    if (this.currentState === 'starting' || this.currentState === 'recording') {
      this.currentState = 'stopping';
      const quitGraceMs = options.quitGraceMs ?? DEFAULT_QUIT_GRACE_MS;
      const child = this.child;
      if (child) {
        void stopChild(child, {
          exited: this.closed,
          request: () => {
            if (quitGraceMs <= 0 || !child.stdin.writable) {
              return false;
            }
            this.log('stop: q');
            this.hasSentQuit = true;
            child.stdin.write('q');
            return true;
          },
          requestGraceMs: quitGraceMs,
          signal: 'SIGTERM',
          killGraceMs: options.termGraceMs ?? DEFAULT_TERM_GRACE_MS,
          kill: (signal) => this.sendSignal(signal),
        });
      }
    }
    return await this.done;
  }

  private onProgressBlock(block: FfmpegProgress): void {
    this.latestProgress = block;
    if (this.currentState === 'starting' && block.frame >= 1) {
      this.checkReady();
    }
    try {
      this.options?.onProgress?.(block);
    } catch (error) {
      this.log(`onProgress threw: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private onStderrLine(line: string): void {
    this.log(line);
    this.tail.pushLine(line);
    if (this.headerAtMs === null) {
      const start = parseInputStartLine(line);
      if (start) {
        this.headerAtMs = monotonicNowMs();
        this.inputStart = start;
        // sample the wall clock right next to the stamp it converts (x11grab: av_gettime())
        this.wallOffsets.push(sampleWallClockOffset());
        this.checkReady();
        return;
      }
    }
    parseFinalCountsLine(line, this.finalCounts);
  }

  private checkReady(): void {
    const options = this.options;
    const frame = this.latestProgress?.frame ?? 0;
    // ddagrab is a filter source: there is no input header to wait for
    const hasHeader = this.headerAtMs !== null || options?.source.kind === 'ddagrab';
    if (this.currentState !== 'starting' || frame < 1 || !hasHeader || !options || !this.child) {
      return;
    }
    const readyAtMs = monotonicNowMs();
    this.estimate = estimateVideoStart({
      device: options.source.kind,
      inputStart: this.inputStart,
      spawnedAtMs: this.spawnedAtMs,
      headerAtMs: this.headerAtMs,
      readyAtMs,
      wallOffsets: this.wallOffsets,
    });
    this.currentState = 'recording';
    this.log(
      `ready: video start ${this.estimate.monotonicMs.toFixed(3)} ms ±${this.estimate.uncertaintyMs.toFixed(3)} (${this.estimate.method})`,
    );
    const resolve = this.resolveStart;
    this.resolveStart = null;
    this.rejectStart = null;
    resolve?.({
      pid: this.child.pid ?? -1,
      args: [...this.captureArgs],
      videoStart: this.estimate,
      spawnedAtMs: this.spawnedAtMs,
      readyAtMs,
    });
  }

  private finish(
    code: number | null,
    signal: NodeJS.Signals | null,
    spawnError: AppError | null,
  ): void {
    if (this.currentState === 'exited') {
      return;
    }
    const wasStarting = this.currentState === 'starting';
    this.currentState = 'exited';
    for (const timer of this.timers) {
      clearTimeout(timer);
    }
    this.timers.clear();
    this.log(`exit code=${String(code)} signal=${String(signal)}`);

    const stoppedBy = spawnError ? null : this.classifyExit(code, signal);
    let error = spawnError ?? this.failure;
    if (!error && stoppedBy === null) {
      error = this.exitError(code, signal, wasStarting);
    }
    if (wasStarting) {
      this.failStart(
        error ??
          new AppError(
            'FFMPEG_FAILED',
            `ffmpeg '${this.options?.ffmpegPath ?? 'ffmpeg'}' ended (${describeExit(code, signal)}) before capturing a first frame because stop() was called.${this.tailText()}`,
            this.errorDetails(code, signal),
          ),
      );
    }
    if (error || stoppedBy === null) {
      this.rejectDone(error ?? this.exitError(code, signal, wasStarting));
      return;
    }
    this.resolveDone({
      outputPath: this.options?.outputPath ?? '',
      exitCode: code,
      signal,
      stoppedBy,
      // exit 0, or 255 after our SIGTERM: ffmpeg wrote the trailer itself
      isComplete: signal === null,
      lastProgress: this.latestProgress,
      finalCounts: { ...this.finalCounts },
      videoStart: this.estimate,
      stderrTail: this.tail.lines(),
    });
  }

  /** Why ffmpeg ended, when that counts as success; null for a failure. */
  private classifyExit(
    code: number | null,
    signal: NodeJS.Signals | null,
  ): FfmpegStopReason | null {
    if (signal !== null) {
      // death by a signal is only fine when the signal was ours
      if (!this.signalsSent.has(signal)) {
        return null;
      }
      return signal === 'SIGKILL' ? 'SIGKILL' : 'SIGTERM';
    }
    if (code === 0) {
      return this.hasSentQuit ? 'quit' : this.signalsSent.size > 0 ? 'SIGTERM' : 'self';
    }
    // ffmpeg exits 255 after SIGINT/SIGTERM with a finished file (docs/platform-linux.md §5)
    if (code === 255 && (this.signalsSent.has('SIGTERM') || this.signalsSent.has('SIGINT'))) {
      return 'SIGTERM';
    }
    // the same clean end when SIGINT came from elsewhere (a `kill -INT` of ffmpeg itself; a
    // terminal's Ctrl+C no longer reaches it, as it runs in a process group of its own)
    if (code === 255 && this.tail.lines().some((line) => RECEIVED_STOP_SIGNAL.test(line))) {
      return 'outside-signal';
    }
    return null;
  }

  private exitError(
    code: number | null,
    signal: NodeJS.Signals | null,
    wasStarting: boolean,
  ): AppError {
    const ffmpegPath = this.options?.ffmpegPath ?? 'ffmpeg';
    const phase = wasStarting ? 'before capturing a first frame' : 'while recording';
    return new AppError(
      'FFMPEG_FAILED',
      `ffmpeg '${ffmpegPath}' failed ${phase} to '${this.options?.outputPath ?? ''}': ${describeExit(code, signal)}.${this.tailText()}`,
      this.errorDetails(code, signal),
    );
  }

  private errorDetails(
    code: number | null,
    signal: NodeJS.Signals | null,
  ): Record<string, unknown> {
    return {
      ffmpegPath: this.options?.ffmpegPath,
      args: [...this.captureArgs],
      exitCode: code,
      signal,
      stderrTail: this.tail.lines(),
    };
  }

  private tailText(): string {
    const lines = this.tail.lines();
    return lines.length === 0
      ? ' ffmpeg printed nothing on stderr.'
      : ` Last stderr lines:\n${lines.join('\n')}`;
  }

  private failStart(error: AppError): void {
    const reject = this.rejectStart;
    this.resolveStart = null;
    this.rejectStart = null;
    reject?.(error);
  }

  private sendSignal(signal: NodeJS.Signals): void {
    const child = this.child;
    if (!child || this.currentState === 'exited' || child.exitCode !== null) {
      return;
    }
    this.log(`stop: ${signal}`);
    this.signalsSent.add(signal);
    child.kill(signal);
  }

  private addTimer(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
    }, delayMs);
    this.timers.add(timer);
  }

  private log(message: string): void {
    this.options?.log?.(message);
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal !== null ? `killed by ${signal}` : `exit code ${String(code)}`;
}
