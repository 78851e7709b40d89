// Replays started from the review UI (docs/replay.md §6): one run at a time per library, in the
// background, on the display the settings name (`replayDisplay`; empty turns replay off), never
// on the display the services run on (no `live`: replayRecording refuses it with
// REPLAY_LIVE_DISPLAY). `replay:status` answers the run's results so far and the last finished
// report (the one stored with the recording); `replay:cancel` stops the run. The composition
// root owns one instance per library and cancels the run when the services close.
import type { ChildLauncher } from '../../infra/child-launcher';
import type { ReplayReportDto, ReplayResultDto, ReplayStatusDto } from '../../shared/contract';
import type { ReplayReport, ReplayStepResult } from '../../shared/domain';
import { AppError, isAppError } from '../../shared/errors';
import { findRecordingBasics } from '../../store';
import { assertDisplayFree } from '../../replay/display-lock';
import type { RunnerTiming } from '../../replay/runner';
import type { ServiceContext } from '../context';
import type { Library } from '../library/library';
import { readReplayDisplay } from '../settings/settings-service';
import type { ReplayOptions } from './replay-service';

/** What runs a replay: replayRecording, or a fake in tests. */
export type ReplayFunction = (
  lib: Library,
  id: string,
  options: ReplayOptions,
) => Promise<ReplayReport>;

/** Options of {@link ReplayJobs}. */
export type ReplayJobsOptions = {
  /** Runs one replay; default replayRecording (loaded on first use: it starts the driver). */
  replay?: ReplayFunction;
  /** The last stored report of a recording; default lastReplayReport. */
  lastReport?: (lib: Library, id: string) => Promise<ReplayReport | null>;
  /** Pacing overrides passed to every run (tests, a faster pace). */
  timing?: Partial<RunnerTiming>;
  /** How the replay's children (the driver, the stop-hotkey hook) start: the host's launcher
   * (the desktop app: utility processes from its bundled entries); default child processes. */
  launcher?: ChildLauncher;
};

/** Options of {@link ReplayJobs.start}. */
export type StartReplayOptions = {
  /** Divides the recorded pauses between steps (0 < speed ≤ 100); default 1. */
  speed?: number;
};

type ShownError = { code: string; message: string; fix: string | null };

type Job = {
  id: string;
  abort: AbortController;
  results: ReplayStepResult[];
  total: number;
  done: Promise<void>;
};

/** What a job left for its recording once it ended. */
type Ended = { report: ReplayReport | null; error: ShownError | null };

function shown(e: unknown): ShownError {
  return isAppError(e)
    ? { code: e.code, message: e.message, fix: e.fix ?? null }
    : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), fix: null };
}

/** The background replays of one library (at most one at a time). */
export class ReplayJobs {
  private job: Job | null = null;
  private readonly ended = new Map<string, Ended>();
  private isClosed = false;

  constructor(
    private readonly ctx: Pick<ServiceContext, 'lib' | 'env' | 'log' | 'mediaUrl'>,
    private readonly options: ReplayJobsOptions = {},
  ) {}

  /**
   * Starts replaying recording `id` on the settings' display and answers its status; throws
   * REPLAY_NO_DISPLAY when the setting is empty, INVALID_STATE while a replay runs, and the
   * replay's own refusals (REPLAY_LIVE_DISPLAY) before anything starts.
   */
  async start(id: string, options: StartReplayOptions = {}): Promise<ReplayStatusDto> {
    // loaded first: everything below runs without a pause, so two starts cannot both pass
    const service = await import('./replay-service');
    const replay = this.options.replay ?? service.replayRecording;
    if (this.isClosed) {
      throw new AppError('INVALID_STATE', 'The services are closing: no replay starts now.');
    }
    if (!findRecordingBasics(this.ctx.lib.db, id)) {
      throw new AppError('NOT_FOUND', `No recording with id "${id}".`, { id });
    }
    const display = readReplayDisplay(this.ctx.lib);
    if (display === '') {
      throw new AppError(
        'REPLAY_NO_DISPLAY',
        'Replay is off: no replay display is set in the settings.',
        { field: 'replayDisplay' },
        'Name the X display of a virtual desktop showing the start state (e.g. :99) under ' +
          'Settings → Replay display.',
      );
    }
    if (this.job) {
      const other = this.job.id === id ? 'this recording' : `recording ${this.job.id}`;
      throw new AppError(
        'INVALID_STATE',
        `A replay of ${other} is under way: one replay runs at a time.`,
        { running: this.job.id },
        'Wait for it to end or cancel it, then start this one.',
      );
    }
    const abort = new AbortController();
    const job: Job = { id, abort, results: [], total: 0, done: Promise.resolve() };
    // taken before the pause below, so two starts cannot both pass
    this.job = job;
    try {
      // the replay's own refusals of the services' display (by name, then by the X server it
      // reaches), before the job starts: shown at once, with a fix that fits the UI
      service.chooseReplayDisplay({ display, live: false, surface: 'ui' }, this.ctx.env);
      const verdict = await service.assertReplayDisplay(display, {
        env: this.ctx.env,
        surface: 'ui',
      });
      // another replay (a CLI one too) driving that display: refused now, not in the background
      await assertDisplayFree(verdict.key ?? display, display);
    } catch (e) {
      this.job = null;
      throw e;
    }
    this.ended.delete(id);
    job.done = (async () => {
      let ended: Ended;
      try {
        const report = await replay(this.ctx.lib, id, {
          display,
          live: false,
          surface: 'ui',
          env: this.ctx.env,
          signal: abort.signal,
          ...(options.speed === undefined ? {} : { speed: options.speed }),
          ...(this.options.timing ? { timing: this.options.timing } : {}),
          ...(this.options.launcher ? { launcher: this.options.launcher } : {}),
          onResult: (result, total) => {
            job.results.push(result);
            job.total = total;
          },
        });
        ended = { report, error: null };
      } catch (e) {
        const error = shown(e);
        this.log(`replay of ${id}: ${error.code}: ${error.message}`);
        ended = { report: null, error };
      }
      this.ended.set(id, ended);
      this.job = null;
    })();
    return this.status(id);
  }

  /** The replay of recording `id`: the run under way, its results so far, the last report. */
  async status(id: string): Promise<ReplayStatusDto> {
    if (!findRecordingBasics(this.ctx.lib.db, id)) {
      throw new AppError('NOT_FOUND', `No recording with id "${id}".`, { id });
    }
    const job = this.job;
    const running = job !== null && job.id === id;
    const ended = this.ended.get(id);
    let report = ended?.report ?? null;
    if (report === null) {
      const last = this.options.lastReport ?? (await import('./replay-service')).lastReplayReport;
      report = await last(this.ctx.lib, id).catch(() => null);
    }
    const results = running ? job.results : (ended?.report?.steps ?? []);
    return {
      display: readReplayDisplay(this.ctx.lib),
      running,
      busyWith: job !== null && !running ? job.id : null,
      // a run under way writes in a hidden work folder, renamed to `replay/<run id>/` with its
      // report (replay-service.ts): its screenshots are served once it has ended
      results: results.map((r) => this.resultDto(id, r, running)),
      total: running ? job.total : 0,
      report: report === null ? null : this.reportDto(id, report),
      error: running ? null : (ended?.error ?? null),
    };
  }

  /** Stops recording `id`'s replay under way (nothing when none runs) and answers its status. */
  async cancel(id: string): Promise<ReplayStatusDto> {
    const job = this.job;
    if (job !== null && job.id === id) {
      job.abort.abort('cancelled');
      await job.done;
    }
    return this.status(id);
  }

  /** True while a replay runs. */
  get isRunning(): boolean {
    return this.job !== null;
  }

  /** Cancels the run under way and resolves when it has ended; later starts are refused. */
  async close(): Promise<void> {
    this.isClosed = true;
    const job = this.job;
    if (job) {
      job.abort.abort('cancelled');
      await job.done;
    }
  }

  // A result with its images as media URLs (screenshot `replay/<run>/<file>`, keyframe
  // `keyframes/<file>`, both relative to the recording's folder); no screenshot while running.
  private resultDto(id: string, r: ReplayStepResult, isRunning = false): ReplayResultDto {
    const screenshot = /^replay\/([^/]+)\/([^/]+\.png)$/.exec(r.screenshot ?? '');
    const keyframe = /^keyframes\/([^/]+\.png)$/.exec(r.keyframe ?? '');
    return {
      index: r.index,
      kind: r.kind,
      stepId: r.stepId,
      screenDiff: r.screenDiff,
      elementMatch: r.elementMatch,
      ok: r.ok,
      masked: r.masked === true,
      recordedElement: r.recordedElement,
      liveElement: r.liveElement,
      note: r.note,
      screenshotUrl:
        screenshot && !isRunning
          ? this.ctx.mediaUrl(id, 'replay', `${screenshot[1]}/${screenshot[2]}`)
          : null,
      keyframeUrl: keyframe ? this.ctx.mediaUrl(id, 'keyframe', keyframe[1]) : null,
    };
  }

  private reportDto(id: string, r: ReplayReport): ReplayReportDto {
    return {
      runId: r.runId,
      startedAt: r.startedAt,
      display: r.display,
      speed: r.speed,
      score: r.score,
      firstDivergent: r.firstDivergent,
      stepCount: r.stepCount,
      stopped: r.stopped
        ? { reason: r.stopped.reason, stepIndex: r.stopped.stepIndex, message: r.stopped.message }
        : null,
      durationMs: r.durationMs,
      warnings: Array.isArray(r.warnings) ? r.warnings : [],
      steps: r.steps.map((s) => this.resultDto(id, s)),
    };
  }

  private log(line: string): void {
    (this.ctx.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }
}
