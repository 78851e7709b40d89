// The recorder a host drives (`recorder:*` methods, the desktop app's tray and HUD, the Record
// page of `serve`): one recording at a time per library, started, paused, resumed, stopped or
// discarded by method calls, its state pushed as `recorder:status-changed` (on every change and
// once a second while it records). The composition root owns one instance; the recording itself
// runs in record-service.ts. A click or key on the app's own window that stops or pauses is
// never a step (RecordControl.excludeAppGesture).
import type { RecorderStatusDto } from '../../shared/contract';
import { monotonicNowMs } from '../../recorder/clock';
import { AppError, isAppError } from '../../shared/errors';
import type { ServiceContext } from '../context';
import type { RecordControl, RecordOptions, RecordResult } from './record-service';

/** What the recorder takes from its host: how to record, the defaults, and deletion. */
export type RecorderServiceOptions = {
  emit: ServiceContext['emit'];
  /** Records one session (the composition root's record()). */
  record: (
    options: Omit<RecordOptions, 'platform' | 'appVersion'> & { keepKeyframes?: () => boolean },
  ) => Promise<RecordResult>;
  /** Recording defaults when the request leaves them out (the settings). */
  defaults: () => {
    fps: number;
    display: string | null;
    accessibility: boolean;
    hotkeys: { startStop: string; pause: string };
  };
  /** Deletes a discarded recording. */
  deleteRecording: (id: string) => Promise<unknown>;
  /** Diagnostic log. */
  log?: (line: string) => void;
  /** Interval of status pushes while recording, ms; default 1000. */
  tickMs?: number;
};

/** Input of {@link RecorderService.start}. */
export type RecorderStartInput = {
  task: string;
  fps?: number;
  display?: string;
  a11y?: boolean;
  /** The team hub task recorded (docs/team-mode.md §16). */
  teamTaskId?: number;
};

type Current = {
  task: string;
  recordingId: string | null;
  control: RecordControl | null;
  run: Promise<RecordResult> | null;
  /** Settles once the end was handled (saved or deleted, state back to idle). */
  done: Promise<void> | null;
  warnings: string[];
  isDiscarded: boolean;
  /** Accessibility was asked for (it may still turn out unavailable). */
  isA11yRequested: boolean;
};

const errorDto = (e: unknown): NonNullable<RecorderStatusDto['error']> => {
  const error = isAppError(e) ? e : new AppError('INTERNAL', (e as Error).message);
  return {
    code: error.code,
    message: error.message,
    ...(error.fix ? { fix: error.fix } : {}),
  };
};

/** The recorder of one library. */
export class RecorderService {
  private state: RecorderStatusDto['state'] = 'idle';
  private current: Current | null = null;
  private lastRecordingId: string | null = null;
  private lastError: RecorderStatusDto['error'] = null;
  private ticker: NodeJS.Timeout | null = null;

  constructor(private readonly options: RecorderServiceOptions) {}

  /** The recorder's state now. */
  status(): RecorderStatusDto {
    const c = this.current;
    const stats = c?.control?.stats() ?? {
      elapsedMs: 0,
      frames: 0,
      droppedFrames: 0,
      events: 0,
      isAccessibilityOn: c?.isA11yRequested ?? false,
    };
    return {
      state: this.state,
      recordingId: c?.recordingId ?? null,
      task: c?.task ?? null,
      elapsedMs: stats.elapsedMs,
      frames: stats.frames,
      droppedFrames: stats.droppedFrames,
      events: stats.events,
      accessibility: !c?.isA11yRequested ? 'off' : stats.isAccessibilityOn ? 'ok' : 'unavailable',
      warnings: c ? [...c.warnings] : [],
      lastRecordingId: this.lastRecordingId,
      error: this.lastError,
    };
  }

  /** Starts a recording; resolves once capture runs (or rejects with why it could not start). */
  async start(input: RecorderStartInput): Promise<RecorderStatusDto> {
    if (this.state !== 'idle') {
      throw new AppError(
        'INVALID_STATE',
        `A recording is already ${this.state === 'paused' ? 'paused' : 'under way'}; stop or discard it before starting another.`,
        { state: this.state },
      );
    }
    const defaults = this.options.defaults();
    const a11y = input.a11y ?? defaults.accessibility;
    const current: Current = {
      task: input.task,
      recordingId: null,
      control: null,
      run: null,
      done: null,
      warnings: [],
      isA11yRequested: a11y,
      isDiscarded: false,
    };
    this.current = current;
    this.lastError = null;
    this.setState('starting');
    let started: () => void = () => undefined;
    const isStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const display = input.display ?? defaults.display ?? undefined;
    const run = this.options.record({
      task: input.task,
      ...(input.teamTaskId !== undefined ? { teamTaskId: input.teamTaskId } : {}),
      fps: input.fps ?? defaults.fps,
      ...(display ? { display } : {}),
      noA11y: !a11y,
      hotkeys: { stop: defaults.hotkeys.startStop, pause: defaults.hotkeys.pause },
      keepKeyframes: () => !current.isDiscarded,
      onStarted: ({ id }) => {
        current.recordingId = id;
      },
      onControl: (control) => {
        current.control = control;
        this.setState('recording');
        started();
      },
      onStateChange: (s) => {
        // the recorder's own hotkeys pause, resume and stop too
        if (this.current !== current) {
          return;
        }
        if (s === 'paused' || s === 'recording') {
          this.setState(s);
        } else if (s === 'stopping') {
          this.setState('stopping');
        }
      },
      onWarning: (message) => {
        current.warnings.push(message);
        this.push();
      },
    });
    current.run = run;
    current.done = (async () => {
      try {
        await this.finished(current, await run, null);
      } catch (error) {
        await this.finished(current, null, error);
      }
    })();
    await Promise.race([isStarted, current.done]);
    if (current.control === null) {
      // it ended before capture ran: the error says why
      await current.done;
      // set by finished() meanwhile (TypeScript still sees the null assigned above)
      const e = this.lastError as RecorderStatusDto['error'];
      if (e) {
        throw new AppError(e.code as AppError['code'], e.message, undefined, e.fix);
      }
    }
    this.ticker ??= setInterval(() => this.push(), this.options.tickMs ?? 1000);
    this.ticker.unref?.();
    return this.status();
  }

  /** Pauses the recording (its video ends; no input is kept until resume). */
  async pause(): Promise<RecorderStatusDto> {
    const requestMs = monotonicNowMs();
    const control = this.running('recording', 'pause');
    // while still recording, so the click on "Pause" that arrives after this request is kept
    // (then marked as the app's)
    await control.excludeAppGesture(requestMs);
    await control.pause();
    this.setState('paused');
    return this.status();
  }

  /** Resumes a paused recording. */
  async resume(): Promise<RecorderStatusDto> {
    const control = this.running('paused', 'resume');
    await control.resume();
    this.setState('recording');
    return this.status();
  }

  /** Stops and saves the recording; resolves when it is saved (lastRecordingId names it). */
  async stop(): Promise<RecorderStatusDto> {
    return await this.end(false);
  }

  /** Stops the recording and deletes it: nothing of it is left. */
  async discard(): Promise<RecorderStatusDto> {
    return await this.end(true);
  }

  /** Stops a recording under way (saving it) when the services close. */
  async close(): Promise<void> {
    if (this.current?.control && (this.state === 'recording' || this.state === 'paused')) {
      await this.end(false).catch(() => undefined);
    }
    await this.current?.done;
    this.stopTicker();
  }

  private async end(discard: boolean): Promise<RecorderStatusDto> {
    const current = this.current;
    const what = discard ? 'discard' : 'stop';
    if (!current || !current.control || (this.state !== 'recording' && this.state !== 'paused')) {
      throw new AppError(
        'INVALID_STATE',
        `There is no recording to ${what} (the recorder is ${this.state}).`,
        { state: this.state },
      );
    }
    const requestMs = monotonicNowMs();
    current.isDiscarded = discard;
    this.setState('stopping');
    await current.control.excludeAppGesture(requestMs);
    current.control.stop();
    await current.done;
    return this.status();
  }

  private running(needed: 'recording' | 'paused', what: string): RecordControl {
    const control = this.current?.control;
    if (!control || this.state !== needed) {
      throw new AppError(
        'INVALID_STATE',
        `Cannot ${what}: the recorder is ${this.state}${needed === 'paused' ? ', not paused' : ''}.`,
        { state: this.state },
      );
    }
    return control;
  }

  // The recording ended: by stop or discard, by itself (fault, hotkey), or before it started.
  private async finished(
    current: Current,
    result: RecordResult | null,
    error: unknown,
  ): Promise<void> {
    if (result && current.isDiscarded) {
      try {
        await this.options.deleteRecording(result.id);
      } catch (e) {
        this.options.log?.(`could not delete the discarded recording ${result.id}: ${String(e)}`);
        this.lastError = errorDto(e);
      }
      this.lastRecordingId = null;
    } else if (result) {
      this.lastRecordingId = result.id;
      this.lastError = result.error ? errorDto(result.error) : null;
      this.options.emit('recordings:changed', { id: result.id });
    } else {
      this.lastError = errorDto(error);
    }
    if (this.current === current) {
      this.current = null;
    }
    this.stopTicker();
    this.setState('idle');
  }

  private stopTicker(): void {
    if (this.ticker) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private setState(state: RecorderStatusDto['state']): void {
    this.state = state;
    this.push();
  }

  private push(): void {
    this.options.emit('recorder:status-changed', this.status());
  }
}
