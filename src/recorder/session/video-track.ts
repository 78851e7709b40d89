// The session's video track: one ffmpeg per video segment (`video-<n>.mp4` in the output
// folder; a pause or a display change ends a segment, the next starts on resume or on the new
// geometry), the frames and drops of the segments that ended, and the watch that turns an ffmpeg
// end nobody asked for into a capture fault of the session.
import path from 'node:path';
import { AppError } from '../../shared/errors';
import { monotonicNowMs } from '../clock';
import { recordedDisplayOf } from '../coordinates';
import type { DisplayInfo } from '../display-info';
import { FfmpegRecorder } from '../screen/ffmpeg-process';
import type { VideoStartEstimate } from '../screen/video-start';
import type { TrackContext, VideoSegment } from './types';

/** How long an ffmpeg ended by an outside SIGTERM waits for the recorder's own stop, ms. */
const OUTSIDE_STOP_GRACE_MS = 500;

/** True for ffmpeg's clean exit 255 after a SIGTERM the recorder did not send. */
export function isOutsideTermination(error: AppError): boolean {
  const tail = error.details?.stderrTail;
  return (
    error.details?.exitCode === 255 &&
    Array.isArray(tail) &&
    tail.some((line) => typeof line === 'string' && /received signal 15\b/.test(line))
  );
}

/** What the video track asks of the session when ffmpeg ends by itself. */
export type VideoTrackHooks = {
  /** Session-clock ms of video frame 0 of the first segment (0 before it exists). */
  startedAtMs: () => number;
  /** ffmpeg ended cleanly without being asked (a signal to the process group): stop soon. */
  onEndedByItself: () => void;
  /** ffmpeg failed while recording: stop the session with this fault. */
  onFault: (error: AppError) => void;
};

/** The video track of one recording session. */
export class VideoTrack {
  private ffmpeg: FfmpegRecorder | null = null;
  private readonly segmentList: VideoSegment[] = [];
  /** Frames and drops of the segments that ended. */
  private endedFrames = 0;
  private endedDrops = 0;

  constructor(
    private readonly ctx: TrackContext,
    private readonly hooks: VideoTrackHooks,
  ) {}

  /** The segments so far (a copy), oldest first. */
  get segments(): VideoSegment[] {
    return [...this.segmentList];
  }

  /** Frames and dropped frames ffmpeg reported, every segment. */
  get frameCounts(): { frames: number; droppedFrames: number } {
    const progress = this.ffmpeg?.lastProgress ?? null;
    return {
      frames: this.endedFrames + (progress?.frame ?? 0),
      droppedFrames: this.endedDrops + (progress?.dropFrames ?? 0),
    };
  }

  /** Starts the next segment on `display`; resolves once its frame 0 exists. */
  async startSegment(display: DisplayInfo): Promise<VideoStartEstimate> {
    const o = this.ctx.options;
    const index = this.segmentList.length;
    const file = path.join(o.outputDir, `video-${index}.mp4`);
    const ffmpeg = new FfmpegRecorder();
    // ffmpeg finishes its fragments even when we are SIGKILLed: it gets one SIGTERM when this
    // process dies (src/infra/parent-death.ts: a watcher on Linux, which needs no setpriv)
    const started = await ffmpeg.start({
      ffmpegPath: o.ffmpegPath,
      source: o.platform.capture.source(display),
      outputPath: file,
      fps: o.fps ?? 30,
      env: o.env,
      parentDeathSignal: 'SIGTERM',
    });
    this.ffmpeg = ffmpeg;
    const segment: VideoSegment = {
      path: file,
      videoStart: started.videoStart,
      result: null,
      display: recordedDisplayOf(display),
    };
    this.segmentList.push(segment);
    o.sink.segmentStarted(index, segment);
    this.watchSegment(ffmpeg, segment);
    return started.videoStart;
  }

  /** Ends the running segment (if any) and waits until its file is finished. */
  async endSegment(): Promise<void> {
    const ffmpeg = this.ffmpeg;
    this.ffmpeg = null;
    if (ffmpeg) {
      const segment = this.segmentList[this.segmentList.length - 1];
      await ffmpeg.stop();
      const result = await ffmpeg.done;
      if (segment) {
        segment.result = result;
      }
      const last = result.lastProgress;
      this.endedFrames += last?.frame ?? 0;
      this.endedDrops += last?.dropFrames ?? 0;
    }
  }

  // Watches one ffmpeg segment: an end the session did not ask for stops the whole session.
  private watchSegment(ffmpeg: FfmpegRecorder, segment: VideoSegment): void {
    void (async () => {
      let failure: AppError | null = null;
      try {
        const result = await ffmpeg.done;
        if (this.ffmpeg !== ffmpeg) {
          return; // endSegment() ended it
        }
        segment.result = result;
      } catch (e) {
        if (this.ffmpeg !== ffmpeg) {
          return;
        }
        failure = e instanceof AppError ? e : new AppError('FFMPEG_FAILED', String(e));
      }
      this.ffmpeg = null;
      if (failure !== null && isOutsideTermination(failure)) {
        // SIGTERM to the whole process group (a service manager, `kill -TERM -pgid`): ffmpeg
        // finished its file and the recorder is being stopped by the same signal, which may be
        // handled a moment later; only a session still recording after that is a fault
        await new Promise((resolve) => setTimeout(resolve, OUTSIDE_STOP_GRACE_MS));
        if (this.ctx.state() !== 'recording') {
          return;
        }
      }
      const watcher = this.ctx.options.displayWatcher;
      if (
        this.ctx.state() === 'recording' &&
        watcher &&
        (await watcher.check().catch(() => false))
      ) {
        // the display changed under ffmpeg (x11grab stops when the screen shrinks): the display
        // change (the session's onDisplayChange) starts the next segment instead of a fault
        return;
      }
      if (failure === null) {
        // a clean end we did not ask for: a SIGINT/SIGTERM to the process group (Ctrl+C)
        // reached ffmpeg first; the recorder is being stopped by the same signal
        this.hooks.onEndedByItself();
        return;
      }
      const atS = ((monotonicNowMs() - this.hooks.startedAtMs()) / 1000).toFixed(1);
      const signal = failure.details?.signal;
      const exitCode = failure.details?.exitCode;
      const exit =
        typeof signal === 'string'
          ? `killed by ${signal}`
          : `exit code ${typeof exitCode === 'number' ? exitCode : '?'}`;
      this.hooks.onFault(
        new AppError(
          'FFMPEG_FAILED',
          `Screen capture (ffmpeg) ended unexpectedly ${atS} s into the recording (${exit}); the recording stopped there and keeps everything captured before.`,
          failure.details,
          'Check free disk space and that the X display is still running (cua-annotator doctor), then record the rest of the task again.',
        ),
      );
    })();
  }
}
