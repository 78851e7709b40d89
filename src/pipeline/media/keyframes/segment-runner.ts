// The segment runner (docs/keyframes.md §6 step 3): runs the planned decodes, longest first and
// several at once, feeds every decoded frame to the units of its decode, recycles the frame
// buffers no unit holds any more, stops each decode once all its units are done, and counts the
// work. The first real failure stops the other decodes.
import { isAppError } from '../../../shared/errors';
import { FrameBufferPool, decodeFrames } from '../frame-decoder';
import type { FrameSeek } from '../frame-decoder';
import { keyframeAtOrBefore, seekSecondsOf, stopSecondsAfter } from '../frame-timeline';
import type { FrameTimeline } from '../frame-timeline';
import { runsStartWithIdr, streamOfRuns } from '../mp4-feed';
import type { RunStream } from '../mp4-feed';
import type { Mp4VideoIndex } from '../mp4-index';
import type { DecodeUnit } from './decode-unit';
import { planDecodeSegments, planPipedSegments } from './segment-plans';
import type { RunnerSegment } from './segment-plans';
import type { ExtractKeyframesOptions } from './types';

/** A piped part would not start with an IDR picture (see runsStartWithIdr). */
export class NotPipeable extends Error {}

/** Counters of one {@link SegmentRunner.run}. */
export type RunStats = {
  segments: number;
  requestedFrames: number;
  spannedFrames: number;
  skippedFrames: number;
};

/** Decodes the frames of units in segments, several at once. */
export class SegmentRunner {
  private readonly pool: FrameBufferPool;

  constructor(
    private readonly options: ExtractKeyframesOptions,
    private readonly index: Mp4VideoIndex | null,
    private readonly timeline: FrameTimeline | null,
    private readonly concurrency: number,
    /** Bytes of frames the searches of one decode slot may buffer (the pool keeps no more). */
    searchBudget: number,
  ) {
    const frameBytes = options.width * options.height * 3;
    // free buffers are kept for reuse up to what the budget lets the searches hold, no more
    const maxFree = Math.min(128, Math.max(8, Math.floor(searchBudget / frameBytes)));
    this.pool = new FrameBufferPool(frameBytes, maxFree);
  }

  /** Ascending segments for `units`, merged by {@link planDecodeSegments}. */
  forwardSegments(units: readonly DecodeUnit[]): RunnerSegment[] {
    if (this.index !== null) {
      return planPipedSegments(units, this.index, this.concurrency);
    }
    const active = units.filter((unit) => unit.frames.length > 0);
    const { timeline } = this;
    return planDecodeSegments(
      active.map((unit) => ({
        first: unit.frames[0] as number,
        last: unit.frames.at(-1) as number,
      })),
      timeline ? (frame) => keyframeAtOrBefore(timeline, frame) : () => 0,
    ).map((segment) => ({
      startFrame: segment.startFrame,
      lastFrame: segment.lastFrame,
      units: segment.members.map((index) => active[index] as DecodeUnit),
      isReversed: false,
    }));
  }

  /** Runs the segments, longest first, at most `concurrency` at a time. */
  async run(
    segments: readonly RunnerSegment[],
    onDelivered: (frame: number) => void,
  ): Promise<RunStats> {
    const queue = [...segments].sort(
      (a, b) => b.lastFrame - b.startFrame - (a.lastFrame - a.startFrame),
    );
    const stats: RunStats = {
      segments: queue.length,
      requestedFrames: 0,
      spannedFrames: 0,
      skippedFrames: 0,
    };
    const { index } = this;
    const pipedStarts = queue.flatMap((segment) => segment.runs ?? []).map((run) => run.firstFrame);
    if (index !== null && !(await runsStartWithIdr(this.options.videoPath, index, pipedStarts))) {
      throw new NotPipeable();
    }
    const abort = new AbortController();
    const onOuterAbort = (): void => abort.abort();
    this.options.signal?.addEventListener('abort', onOuterAbort, { once: true });
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < queue.length && !abort.signal.aborted) {
        const segment = queue[next] as RunnerSegment;
        next += 1;
        await this.decodeSegment(segment, onDelivered, stats, abort.signal);
      }
    };
    try {
      const workers = Array.from({ length: Math.min(this.concurrency, queue.length) }, () =>
        worker().catch((error: unknown) => {
          abort.abort();
          throw error;
        }),
      );
      const results = await Promise.allSettled(workers);
      // the first real failure wins over the ABORTED errors it caused in the other workers
      const failures = results.flatMap((result) =>
        result.status === 'rejected' ? [result.reason as unknown] : [],
      );
      const failure = failures.find((error) => !isAppError(error, 'ABORTED')) ?? failures[0];
      if (failure !== undefined) {
        throw failure instanceof Error
          ? failure
          : new Error(`decode failed: ${JSON.stringify(failure)}`);
      }
    } finally {
      this.options.signal?.removeEventListener('abort', onOuterAbort);
    }
    return stats;
  }

  private async decodeSegment(
    segment: RunnerSegment,
    onDelivered: (frame: number) => void,
    stats: RunStats,
    signal: AbortSignal,
  ): Promise<void> {
    const members = segment.units;
    const frames = [...new Set(members.flatMap((unit) => unit.frames))].sort((a, b) => a - b);
    stats.requestedFrames += frames.length;
    const { timeline } = this;
    let seek: FrameSeek | undefined;
    let stream: RunStream | undefined;
    if (this.index !== null && segment.runs !== undefined) {
      const wanted = new Set(frames);
      stream = streamOfRuns(this.options.videoPath, this.index, segment.runs, (frame) =>
        wanted.has(frame),
      );
    } else if (timeline && (segment.startFrame > 0 || segment.isReversed)) {
      seek = {
        seconds: seekSecondsOf(timeline, segment.startFrame),
        ptsOf: (frame) => timeline.pts[frame] as number,
        ...(segment.isReversed
          ? { reverse: { stopSeconds: stopSecondsAfter(timeline, segment.lastFrame) } }
          : {}),
      };
    }
    let lastFrame = segment.startFrame - 1;
    // buffers of this segment's frames that some unit may still hold
    const live = new Map<number, Buffer>();
    const recycle = (): void => {
      for (const [frame, buffer] of live) {
        if (!members.some((unit) => unit.holds(frame))) {
          live.delete(frame);
          this.pool.release(buffer);
        }
      }
    };
    await decodeFrames({
      ffmpeg: { path: this.options.ffmpegPath },
      videoPath: this.options.videoPath,
      frames,
      width: this.options.width,
      height: this.options.height,
      seek,
      stream,
      signal,
      pool: this.pool,
      // parallel decodes fill the cores themselves; frame threading would only add overhead
      ...(this.options.decoderThreads !== undefined
        ? { decoderThreads: this.options.decoderThreads }
        : this.concurrency > 1
          ? { decoderThreads: 1 }
          : {}),
      onFrame: ({ index, rgb }) => {
        lastFrame = Math.max(lastFrame, index);
        onDelivered(index);
        live.set(index, rgb);
        for (const unit of members) {
          unit.onFrame(index, rgb);
        }
        recycle();
        return members.every((unit) => unit.isDone()) ? 'stop' : undefined;
      },
    });
    stats.skippedFrames += stream?.skippedSamples ?? 0;
    if (segment.runs !== undefined) {
      // piped parts: the samples sent up to the last frame delivered
      for (const run of segment.runs) {
        const upTo = Math.min(run.lastFrame, lastFrame);
        stats.spannedFrames += Math.max(0, upTo - run.firstFrame + 1);
      }
      return;
    }
    // a reversed decode reads its whole range before emitting anything
    const decodedUpTo = segment.isReversed ? segment.lastFrame : lastFrame;
    stats.spannedFrames += Math.max(0, decodedUpTo - segment.startFrame + 1);
  }
}
