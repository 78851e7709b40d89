// The keyframe job runner (docs/keyframes.md §8): computes stored keyframes in the background
// after an import, after a recording is finalised, after an edit of the steps, when a reviewer
// opens a recording whose keyframes are missing, and on request ("Recompute"). One job runs at a
// time (a computation already keeps two decodes busy), a recording has at most one job queued or
// running, progress and failures go out as `keyframes:progress` events, and the last failure of
// each recording is kept for the page. The composition root owns one instance per library and
// closes it (cancelling what runs) when the services close.
import type { KeyframesProgressDto } from '../../shared/contract';
import { AppError } from '../../shared/errors';
import { classifySystemError } from '../../shared/system-error';
import { findRecordingBasics } from '../../store';
import type { ServiceContext } from '../context';
import {
  keyframeStaleness,
  refreshStaleKeyframes,
  computeKeyframes,
  type ComputedKeyframes,
  type ComputeKeyframesOptions,
} from './keyframes';

/** How a job ended. */
export type KeyframeJobOutcome =
  | { recordingId: string; state: 'done'; result: ComputedKeyframes }
  | { recordingId: string; state: 'failed'; error: AppError }
  | { recordingId: string; state: 'cancelled' };

/** Options of a {@link KeyframeJobs} runner. */
export type KeyframeJobsOptions = Pick<
  ComputeKeyframesOptions,
  'ffmpegPath' | 'ffprobePath' | 'now'
>;

/** Options of {@link KeyframeJobs.enqueue}. */
export type EnqueueKeyframesOptions = {
  /** Compute every keyframe again (all or nothing), not only the missing and stale ones. */
  recompute?: boolean;
};

type Job = {
  recordingId: string;
  recompute: boolean;
  /** A request came while it ran: run once more afterwards. */
  again: boolean;
  abort: AbortController;
  /** Resolves when the job (including its reruns) ends. */
  done: Promise<KeyframeJobOutcome>;
  settle: (outcome: KeyframeJobOutcome) => void;
};

/** Background computation of stored keyframes for one library. */
export class KeyframeJobs {
  private readonly queue: Job[] = [];
  private readonly jobs = new Map<string, Job>();
  private readonly failures = new Map<string, AppError>();
  private running: Job | null = null;
  private pump: Promise<void> = Promise.resolve();
  private isClosed = false;

  constructor(
    private readonly ctx: Pick<ServiceContext, 'lib' | 'emit' | 'log'>,
    private readonly options: KeyframeJobsOptions = {},
  ) {}

  /**
   * Queues the keyframes of a recording: the missing and stale ones, or all with `recompute`. A
   * recording already queued keeps its place; one being computed runs once more afterwards (an
   * edit came meanwhile). Resolves with the outcome of the run that covers this request.
   */
  enqueue(recordingId: string, options: EnqueueKeyframesOptions = {}): Promise<KeyframeJobOutcome> {
    if (this.isClosed) {
      return Promise.resolve({ recordingId, state: 'cancelled' });
    }
    this.failures.delete(recordingId);
    // a job being cancelled no longer covers a new request: that gets a job of its own
    const existing = this.jobs.get(recordingId);
    if (existing && !existing.abort.signal.aborted) {
      existing.recompute ||= options.recompute === true;
      if (existing === this.running) {
        existing.again = true;
      }
      return existing.done;
    }
    let settle!: (outcome: KeyframeJobOutcome) => void;
    const done = new Promise<KeyframeJobOutcome>((resolve) => (settle = resolve));
    const job: Job = {
      recordingId,
      recompute: options.recompute === true,
      again: false,
      abort: new AbortController(),
      done,
      settle,
    };
    this.jobs.set(recordingId, job);
    this.queue.push(job);
    this.progress(job, 'queued', 0, null);
    this.pump = this.nextAfter(this.pump);
    return done;
  }

  /**
   * Queues a recording whose keyframes are missing or stale (a reviewer opened it), unless it is
   * queued already or its last job failed (the page shows that error and offers "Recompute").
   * True when a job is queued or running for it afterwards.
   */
  ensure(recordingId: string): boolean {
    if (this.isPending(recordingId)) {
      return true;
    }
    if (this.isClosed || this.failures.has(recordingId)) {
      return false;
    }
    const basics = findRecordingBasics(this.ctx.lib.db, recordingId);
    if (!basics) {
      return false;
    }
    const s = keyframeStaleness(this.ctx.lib, basics.seq);
    if (s.stale.length === 0 && !s.isTerminateStale) {
      return false;
    }
    void this.enqueue(recordingId);
    return true;
  }

  /** True while a job of the recording is queued or running (and not being cancelled). */
  isPending(recordingId: string): boolean {
    const job = this.jobs.get(recordingId);
    return job !== undefined && !job.abort.signal.aborted;
  }

  /** The error of the recording's last job when it failed (cleared by the next request). */
  lastError(recordingId: string): AppError | null {
    return this.failures.get(recordingId) ?? null;
  }

  /** Cancels the recording's job: a queued one is dropped, a running one aborted. */
  cancel(recordingId: string): void {
    const job = this.jobs.get(recordingId);
    if (!job) {
      return;
    }
    job.again = false;
    job.abort.abort();
    if (job !== this.running) {
      this.queue.splice(this.queue.indexOf(job), 1);
      this.finish(job, { recordingId, state: 'cancelled' });
    }
  }

  /** Resolves once no job is queued or running. */
  async idle(): Promise<void> {
    while (this.jobs.size > 0) {
      await Promise.all([...this.jobs.values()].map((j) => j.done));
    }
  }

  /** Cancels every job and resolves once none runs; later requests are refused (cancelled). */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const id of [...this.jobs.keys()]) {
      this.cancel(id);
    }
    await this.idle();
  }

  // Runs the next queued job once `previous` (the job before it) has ended.
  private async nextAfter(previous: Promise<void>): Promise<void> {
    await previous;
    try {
      await this.next();
    } catch (e) {
      this.log(`keyframe jobs: ${(e as Error).message}`);
    }
  }

  private async next(): Promise<void> {
    const job = this.queue.shift();
    if (!job) {
      return;
    }
    this.running = job;
    let outcome: KeyframeJobOutcome;
    do {
      job.again = false;
      outcome = await this.runOnce(job);
    } while (job.again && outcome.state === 'done' && !job.abort.signal.aborted);
    this.finish(job, outcome);
    this.running = null;
  }

  private async runOnce(job: Job): Promise<KeyframeJobOutcome> {
    const { recordingId } = job;
    const { lib } = this.ctx;
    const compute = job.recompute ? computeKeyframes : refreshStaleKeyframes;
    job.recompute = false;
    try {
      if (!findRecordingBasics(lib.db, recordingId)) {
        throw new AppError('NOT_FOUND', `No recording with id "${recordingId}".`, {
          id: recordingId,
        });
      }
      const result = await compute(lib, recordingId, {
        ...this.options,
        signal: job.abort.signal,
        onPhase: (phase, steps) => this.progress(job, phase, steps, null),
      });
      if (result.steps > 0) {
        this.ctx.emit('recordings:changed', { id: recordingId });
      }
      this.progress(job, 'done', result.steps, null);
      return { recordingId, state: 'done', result };
    } catch (e) {
      if (job.abort.signal.aborted) {
        this.progress(job, 'cancelled', 0, null);
        return { recordingId, state: 'cancelled' };
      }
      const error = keyframeJobError(recordingId, lib.dir, e);
      this.failures.set(recordingId, error);
      this.log(`keyframes of ${recordingId}: ${error.code}: ${error.message}`);
      this.progress(job, 'failed', 0, {
        code: error.code,
        message: error.message,
        fix: error.fix ?? null,
      });
      return { recordingId, state: 'failed', error };
    }
  }

  private log(line: string): void {
    (this.ctx.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(line);
  }

  private finish(job: Job, outcome: KeyframeJobOutcome): void {
    if (this.jobs.get(job.recordingId) === job) {
      this.jobs.delete(job.recordingId);
    }
    if (outcome.state === 'cancelled' && job !== this.running) {
      this.progress(job, 'cancelled', 0, null);
    }
    job.settle(outcome);
  }

  private progress(
    job: Job,
    phase: KeyframesProgressDto['phase'],
    steps: number,
    error: KeyframesProgressDto['error'],
  ): void {
    this.ctx.emit('keyframes:progress', { recordingId: job.recordingId, phase, steps, error });
  }
}

// The coded error of a failed job: an AppError as it is; a full disk, a read-only or missing folder
// as their codes (DISK_FULL with its fix, naming the library), never INTERNAL; anything else
// INTERNAL (a real bug).
function keyframeJobError(recordingId: string, libDir: string, e: unknown): AppError {
  const known = classifySystemError(e);
  if (known && !(e instanceof AppError) && known.code === 'DISK_FULL') {
    return new AppError(
      'DISK_FULL',
      `Keyframes of ${recordingId} could not be stored: the disk holding the library (${libDir}) is full.`,
      { ...known.details, id: recordingId },
      known.fix,
    );
  }
  return (
    known ?? new AppError('INTERNAL', `Keyframes of ${recordingId} failed: ${(e as Error).message}`)
  );
}
