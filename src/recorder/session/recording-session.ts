// One recording session: an explicit state machine (idle → starting → recording ⇄ paused →
// stopping → done | failed, docs/architecture.md §5) over the shared monotonic clock. It starts,
// pauses and stops its tracks (input-track.ts, accessibility-track.ts, window-track.ts,
// video-track.ts) in order, runs pauses, resumes and display changes one at a time, turns a
// track's failure into a capture fault that stops the session, and raises the live warnings.
// Everything captured goes to a sink (implemented by services; the recorder never touches the
// store).
import { everyPeriod } from '../../infra/shared-tick';
import { AppError } from '../../shared/errors';
import { isSameGeometry } from '../../shared/domain/display';
import { monotonicNowMs } from '../clock';
import { coordinateSpace, recordedDisplayOf, type CoordinateSpace } from '../coordinates';
import type { DisplayInfo } from '../display-info';
import type { InputHookDiagnostic } from '../input/hook-types';
import type { VideoStartEstimate } from '../screen/video-start';
import { CaptureExclusion } from '../privacy/capture-exclusion';
import {
  displayChangedWarning,
  formatRecordingClock,
  LiveWarningMonitor,
  type LiveWarning,
} from '../live-warnings';
import { AccessibilityTrack } from './accessibility-track';
import { APP_GESTURE_WINDOW_MS, InputTrack } from './input-track';
import type {
  RecordingSessionOptions,
  SessionResult,
  SessionState,
  SessionStats,
  TrackContext,
} from './types';
import { isOutsideTermination, VideoTrack } from './video-track';
import { WindowTrack } from './window-track';

/** What runs as the session's transition in flight: a pause, a resume or a display change. */
type TransitionKind = 'pause' | 'resume' | 'display';

/** A recording session: `start()`, optionally `pause()`/`resume()`, then `stop()`. */
export class RecordingSession {
  private stateValue: SessionState = 'idle';
  private startedAt = 0;
  private pausedAtMs: number | null = null;
  /** Session-clock ms the session started recording (0 before), and pauses summed so far. */
  private recordingSinceMs = 0;
  private pausedTotalMs = 0;
  private readonly pending = new Set<Promise<unknown>>();
  private fault: AppError | null = null;
  private faultAtMs: number | null = null;
  /**
   * The pause or resume in flight (its video segment ending or starting): stop() waits for it,
   * so no ffmpeg outlives the session and no segment is left unflushed.
   */
  private transition: { kind: TransitionKind; promise: Promise<void> } | null = null;
  /** The display recorded now, and how positions map into its pixels (a display change moves
   * both). */
  private display: DisplayInfo;
  private space: CoordinateSpace;
  /** Exclusion rules at capture (null: none); input then passes through them in order. */
  private readonly exclusion: CaptureExclusion | null;
  /** Idle and long-recording warnings (created when recording starts), polled by a timer. */
  private liveWarnings: LiveWarningMonitor | null = null;
  private stopLiveWarnings: (() => void) | null = null;
  private readonly video: VideoTrack;
  private readonly input: InputTrack;
  private readonly accessibility: AccessibilityTrack;
  private readonly windows: WindowTrack;
  private resolveDone: (r: SessionResult) => void = () => undefined;
  /** Settles when the session is done or failed. */
  readonly done: Promise<SessionResult>;

  constructor(private readonly options: RecordingSessionOptions) {
    this.display = options.display;
    this.space = coordinateSpace(options.display, options.inputUnit);
    const rules = options.exclusion;
    this.exclusion =
      rules && (!rules.matcher.isEmpty || rules.isOwnWindow)
        ? new CaptureExclusion(
            rules,
            {
              open: (mark) => options.sink.mark({ ...mark, endMs: null }),
              end: (kind, tMs, endMs) => options.sink.endMark?.(kind, tMs, endMs),
            },
            monotonicNowMs,
            options.onWarning,
          )
        : null;
    const ctx: TrackContext = {
      options,
      state: () => this.stateValue,
      space: () => this.space,
      exclusion: this.exclusion,
      track: (p) => this.track(p),
    };
    this.windows = new WindowTrack(ctx, (entry) => this.accessibility.noteWindow(entry));
    this.accessibility = new AccessibilityTrack(ctx, this.windows, () => this.input.hook);
    this.input = new InputTrack(ctx, this.windows, this.accessibility, {
      // any input ends an idle stretch
      onActivity: (nowMs, lastTMs) => this.liveWarnings?.input(nowMs, lastTMs),
      onInputLost: (d) => this.noteInputLost(d),
      onFault: (error) => this.stopWithFault(error),
    });
    this.video = new VideoTrack(ctx, {
      startedAtMs: () => this.startedAt,
      onEndedByItself: () => this.stopSoon(),
      onFault: (error) => this.stopWithFault(error),
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  /** Current state. */
  get state(): SessionState {
    return this.stateValue;
  }

  /** Live figures: time recorded, frames, drops, events. */
  get stats(): SessionStats {
    const now = monotonicNowMs();
    const pausedNow = this.pausedAtMs === null ? 0 : now - this.pausedAtMs;
    return {
      elapsedMs:
        this.recordingSinceMs === 0
          ? 0
          : Math.max(0, Math.round(now - this.recordingSinceMs - this.pausedTotalMs - pausedNow)),
      ...this.video.frameCounts,
      events: this.input.events,
      isAccessibilityOn: this.options.accessibility != null,
    };
  }

  /**
   * Leaves the gesture that asked for a stop or pause at `requestMs` out of the steps: the last
   * press before the request, at most {@link APP_GESTURE_WINDOW_MS} earlier, when it was aimed at
   * the app's own window (the Record page, the HUD, the tray: {@link RecordingSessionOptions.
   * isAppPress}). First waits until the input hook has handed on everything stamped before the
   * request (the click usually arrives after the request does). An `app-input` mark from that
   * press to now tells the reducer to skip those events (the raw events stay stored). A press
   * aimed elsewhere is the annotator's own input (a request from a script, or from a click the
   * hook cannot see): nothing is left out then, nor without a check.
   */
  async excludeAppGesture(
    requestMs = monotonicNowMs(),
    withinMs = APP_GESTURE_WINDOW_MS,
  ): Promise<void> {
    await this.input.excludeAppGesture(requestMs, withinMs);
  }

  /** Session-clock ms of video frame 0 of the first segment (0 before start()). */
  get startedAtMs(): number {
    return this.startedAt;
  }

  /** The capture fault that stopped the session, or null. */
  get faultError(): AppError | null {
    return this.fault;
  }

  /** Starts every capture; resolves once video frame 0 exists and input is hooked. */
  async start(): Promise<{ startedAtMs: number; videoStart: VideoStartEstimate }> {
    if (this.stateValue !== 'idle') {
      throw new AppError(
        'INVALID_STATE',
        `start() needs an idle session (state: ${this.stateValue}); create a new session.`,
      );
    }
    this.stateValue = 'starting';
    try {
      await this.input.start();
      await this.accessibility.start();
      await this.windows.start();
      const videoStart = await this.video.startSegment(this.display);
      this.startedAt = videoStart.monotonicMs;
      this.recordingSinceMs = monotonicNowMs();
      this.stateValue = 'recording';
      this.accessibility.pumpSnapshots(); // the window in front at the start
      this.watchDisplay();
      this.watchLiveWarnings();
      return { startedAtMs: this.startedAt, videoStart };
    } catch (e) {
      await this.teardown();
      this.stateValue = 'failed';
      const error = e instanceof AppError ? e : new AppError('INTERNAL', (e as Error).message);
      this.resolveDone(this.result('failed', error));
      throw error;
    }
  }

  /** Pauses: the video segment ends and no input is kept until resume(). */
  async pause(): Promise<void> {
    if (this.stateValue !== 'recording') {
      throw new AppError(
        'INVALID_STATE',
        `pause() needs a recording session (state: ${this.stateValue}).`,
      );
    }
    this.stateValue = 'paused';
    this.pausedAtMs = monotonicNowMs();
    this.liveWarnings?.pause(this.pausedAtMs);
    this.input.clearPresses();
    await this.runTransition('pause', () => this.video.endSegment());
  }

  /** Resumes after pause(): a new video segment starts; the pause goes into the timeline. */
  async resume(): Promise<void> {
    if (this.stateValue !== 'paused') {
      throw new AppError(
        'INVALID_STATE',
        `resume() needs a paused session (state: ${this.stateValue}).`,
      );
    }
    if (this.transition?.kind === 'resume') {
      return await this.transition.promise; // already resuming
    }
    await this.runTransition('resume', async () => {
      if (this.stateValue !== 'paused') {
        return; // stopped while the pause before was still ending its segment
      }
      const videoStart = await this.video.startSegment(this.display);
      if (this.stateValue !== 'paused') {
        // stop() came while the segment was starting: it waits for this transition and then
        // ends the new segment with everything else; the session must not go back to recording
        return;
      }
      this.options.sink.mark({
        tMs: this.pausedAtMs ?? videoStart.monotonicMs,
        endMs: videoStart.monotonicMs,
        kind: 'pause',
      });
      this.pausedTotalMs += monotonicNowMs() - (this.pausedAtMs ?? monotonicNowMs());
      this.pausedAtMs = null;
      this.liveWarnings?.resume(monotonicNowMs());
      this.stateValue = 'recording';
      this.accessibility.pumpSnapshots(); // a change during the pause still gets its snapshot
    });
  }

  // Runs a pause/resume step as the transition in flight (after the one before it, if any).
  private async runTransition(kind: TransitionKind, work: () => Promise<void>): Promise<void> {
    const before = this.transition?.promise;
    const promise = (async () => {
      await before?.catch(() => undefined); // its caller got its error
      await work();
    })();
    const transition = { kind, promise };
    this.transition = transition;
    try {
      await promise;
    } finally {
      if (this.transition === transition) {
        this.transition = null;
      }
    }
  }

  /** Stops every capture and finalises the video; resolves with the session result. */
  async stop(): Promise<SessionResult> {
    if (
      this.stateValue === 'done' ||
      this.stateValue === 'failed' ||
      this.stateValue === 'stopping'
    ) {
      return await this.done;
    }
    if (this.stateValue !== 'recording' && this.stateValue !== 'paused') {
      throw new AppError(
        'INVALID_STATE',
        `stop() needs a started session (state: ${this.stateValue}).`,
      );
    }
    if (this.stateValue === 'paused' && this.pausedAtMs !== null) {
      this.options.sink.mark({ tMs: this.pausedAtMs, endMs: monotonicNowMs(), kind: 'pause' });
    }
    this.stateValue = 'stopping';
    // a pause still flushing its segment, or a resume still starting one, finishes first: the
    // teardown below then ends whatever ffmpeg is running and nothing starts after it
    // (a segment a pause could not end is this session's error; a resume that could not start
    // one lost nothing the user still wanted, since they stopped)
    let transitionError: AppError | null = null;
    for (let t = this.transition; t; t = this.transition) {
      try {
        await t.promise;
      } catch (e) {
        if (t.kind === 'pause') {
          transitionError ??=
            e instanceof AppError ? e : new AppError('INTERNAL', (e as Error).message);
        }
      }
    }
    let error: AppError | null = null;
    try {
      await this.teardown();
    } catch (e) {
      error = e instanceof AppError ? e : new AppError('INTERNAL', (e as Error).message);
    }
    error = this.fault ?? error ?? transitionError;
    this.stateValue = error ? 'failed' : 'done';
    const result = this.result(this.stateValue, error);
    this.resolveDone(result);
    return result;
  }

  private result(state: 'done' | 'failed', error: AppError | null): SessionResult {
    return {
      state,
      startedAtMs: this.startedAt,
      stoppedAtMs: monotonicNowMs(),
      segments: this.video.segments,
      events: this.input.events,
      gaps: this.input.gaps,
      error,
    };
  }

  // Starts watching the recorded display (no-op without a watcher).
  private watchDisplay(): void {
    const watcher = this.options.displayWatcher;
    if (!watcher) {
      return;
    }
    watcher.onChange((next) => this.onDisplayChange(next));
    watcher.start(this.display);
  }

  // The recorded display changed (docs/architecture.md §5 "Coordinates"): the video segment ends
  // and the next one starts on the new geometry, as the transition in flight; input goes on into
  // the same recording on the same clock and is mapped with the new origin from now on. While
  // paused only the geometry changes (resume starts on it). A `display-change` mark keeps both
  // geometries, from the change seen to frame 0 of the next segment.
  private onDisplayChange(next: DisplayInfo): void {
    const from = recordedDisplayOf(this.display);
    const to = recordedDisplayOf(next);
    if (
      isSameGeometry(from, to) ||
      (this.stateValue !== 'recording' && this.stateValue !== 'paused')
    ) {
      return;
    }
    const seenMs = monotonicNowMs();
    this.emitLiveWarning(displayChangedWarning(from, to, seenMs, this.startedAt));
    const work = async (): Promise<void> => {
      this.display = next;
      this.space = coordinateSpace(next, this.options.inputUnit);
      if (this.stateValue !== 'recording') {
        this.options.sink.mark({ tMs: seenMs, kind: 'display-change', data: { from, to } });
        return;
      }
      try {
        await this.video.endSegment();
      } catch (e) {
        // the old geometry's ffmpeg failed to end cleanly (its file is remuxed when saved)
        this.options.onWarning?.(
          `video segment before the display change: ${(e as Error).message}`,
        );
      }
      if (this.stateValue !== 'recording') {
        return; // stopped or paused meanwhile: no segment to start here
      }
      const videoStart = await this.video.startSegment(this.display);
      this.options.sink.mark({
        tMs: seenMs,
        endMs: videoStart.monotonicMs,
        kind: 'display-change',
        data: { from, to },
      });
    };
    void this.runTransition('display', work).catch((e: unknown) => {
      this.stopWithFault(
        new AppError(
          'FFMPEG_FAILED',
          `Screen capture could not start again after the display changed from ${from.width}x${from.height} to ${to.width}x${to.height} (${(e as Error).message}); the recording stopped there and keeps everything captured before.`,
          e instanceof AppError ? e.details : undefined,
          'Check that the display is still running (cua-annotator doctor), then record the rest of the task again.',
        ),
      );
    });
  }

  // Polls the idle and long-recording warnings while recording (off without a listener).
  private watchLiveWarnings(): void {
    if (!this.options.onLiveWarning) {
      return;
    }
    const monitor = new LiveWarningMonitor({
      ...this.options.liveWarnings,
      originMs: this.startedAt,
    });
    this.liveWarnings = monitor;
    // on the process's shared tick (src/infra/shared-tick.ts), with the input watchdog
    this.stopLiveWarnings = everyPeriod(monitor.checkIntervalMs, () => {
      if (this.stateValue === 'recording') {
        monitor.check(monotonicNowMs()).forEach((w) => this.emitLiveWarning(w));
      }
    });
  }

  // Input lost before it could be stored (the X server dropped it, or lines from the hook child
  // went missing): a warning stored with the recording at once, so it never looks complete.
  private noteInputLost(d: InputHookDiagnostic): void {
    const tMs = monotonicNowMs();
    const at = formatRecordingClock(tMs - (this.startedAt || tMs));
    const what =
      d.code === 'INPUT_LOST'
        ? `${typeof d.details?.keyPresses === 'number' ? d.details.keyPresses : 'some'} key press(es) (and the input around them) never reached the recorder: the X server dropped them while the machine was too busy for the input hook to keep up`
        : `input events were lost between the input hook and the recorder (${d.message})`;
    this.emitLiveWarning({
      code: 'INPUT_LOST',
      tMs,
      message: `INPUT_LOST: near ${at}, ${what}. Text typed around then may be incomplete: check those steps against the video, or record that part again on a less busy machine.`,
    });
  }

  private emitLiveWarning(warning: LiveWarning): void {
    try {
      this.options.onLiveWarning?.(warning);
    } catch (e) {
      this.options.onWarning?.(`live warning not delivered: ${(e as Error).message}`);
    }
  }

  /** Stops the session because something outside it failed for good (e.g. the disk is nearly
   * full); everything captured so far is kept. No-op unless recording or paused. */
  stopWithFault(error: AppError): void {
    if (this.fault || (this.stateValue !== 'recording' && this.stateValue !== 'paused')) {
      return;
    }
    this.fault = error;
    this.faultAtMs = monotonicNowMs();
    this.options.sink.mark({
      tMs: this.faultAtMs,
      kind: 'capture-fault',
      data: { code: error.code, message: error.message },
    });
    try {
      this.options.onFault?.(error);
    } catch {
      // a throwing listener must not keep the session from stopping
    }
    this.stopSoon();
  }

  // Starts stop() without waiting (its result arrives through `done`).
  private stopSoon(): void {
    if (this.stateValue !== 'recording' && this.stateValue !== 'paused') {
      return;
    }
    void (async () => {
      try {
        await this.stop();
      } catch (e) {
        this.options.onWarning?.(`stopping failed: ${(e as Error).message}`);
      }
    })();
  }

  private async teardown(): Promise<void> {
    const stopMs = this.faultAtMs ?? monotonicNowMs();
    // no segment starts for a display change from here on
    const displaysStopped = Promise.resolve(this.options.displayWatcher?.stop());
    this.accessibility.stopTimers();
    this.stopLiveWarnings?.();
    this.stopLiveWarnings = null;
    const hook = this.input.detachHook();
    // every part stops together and every outcome is awaited: a failing video end must neither
    // go unobserved (an unhandled rejection) nor keep the hook and the trackers running
    const [video] = await Promise.allSettled([
      this.video.endSegment(),
      hook?.stop(),
      this.windows.stop(),
      displaysStopped,
    ]);
    this.input.closeOpenGap(this.faultAtMs ?? monotonicNowMs());
    await Promise.allSettled([...this.pending]);
    // an excluded window still in front: its interval ends with the recording
    this.exclusion?.close(stopMs);
    await this.accessibility.stop();
    // an ffmpeg that a group-wide SIGTERM ended while we stopped it finished its file
    if (
      video.status === 'rejected' &&
      !this.fault &&
      !(video.reason instanceof AppError && isOutsideTermination(video.reason))
    ) {
      throw video.reason;
    }
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }
}
