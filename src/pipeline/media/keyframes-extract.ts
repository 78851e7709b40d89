// Keyframe extraction for one episode (docs/keyframes.md §6), decoding only what the searches
// need.
//
// 1. Plan (pure): every search's probes, candidates and reference frame.
// 2. Frame source. Best: the MP4's own sample index (mp4-index.ts; progressive or fragmented,
//    read in milliseconds): each decode slot gets one ffmpeg, and we pipe it just the samples of
//    the parts it must decode (from the IDR keyframe before a unit's frames to its last frame,
//    minus the non-reference pictures nobody wants; mp4-feed.ts), stamped with their frame index,
//    so one process decodes many parts without seeking or restarting. Otherwise (another codec or
//    container, an open GOP, a truncated fragment): one ffprobe packet listing gives every
//    frame's pts and the keyframes, so a decode can seek to the keyframe before a step's frames
//    and skip the rest of the video; frames are still picked by their index n (selected by exact
//    pts). Without ffprobe, or when the listing cannot be trusted, everything is one decode from
//    frame 0.
// 3. Units and decodes: each search (or fixed frame) is a unit. With the piped index, every unit
//    is fed in ascending order; units whose parts overlap share one part, and the parts are
//    spread over the slots (longest first); a backward search keeps its probes' RGB until its
//    reference (its last frame) arrives. With a ffprobe timeline, a backward search gets a
//    reversed decode: ffmpeg reads up to its reference (hi) and emits the reference first, then
//    the probes in walk order, so the decode stops as soon as the walk is decided and the probes
//    it never reaches are never converted to RGB. Neighbouring reversed units share a decode when
//    that saves more than it wastes. Everything else (terminate, fixed frames, and every search
//    without a timeline) goes into merged forward decodes. Wherever a backward search would hold
//    more probes than the memory budget allows, its reference is decoded beforehand and it
//    compares on the fly. Decodes run in parallel, longest first, and each stops once none of its
//    units needs another frame.
// 4. Resolve (pure) with the recorded verdicts.
import os from 'node:os';
import { isAppError } from '../../shared/errors';
import { rgbFramesDiffer } from '../keyframes/gray';
import { planKeyframes } from '../keyframes/plan';
import type { KeyframePlan, KeyframeSearchPlan, KeyframeStepInput } from '../keyframes/plan';
import { resolveKeyframes, resolveUnreadableVideo } from '../keyframes/resolve';
import type {
  KeyframeOutcomes,
  KeyframeSearchOutcome,
  ResolvedKeyframe,
  ResolvedKeyframes,
} from '../keyframes/resolve';
import { FrameBufferPool, decodeFrames } from './frame-decoder';
import type { FrameSeek } from './frame-decoder';
import {
  keyframeAtOrBefore,
  readFrameTimeline,
  seekSecondsOf,
  stopSecondsAfter,
} from './frame-timeline';
import type { FrameTimeline } from './frame-timeline';
import { runsStartWithIdr, sampleRunFor, streamOfRuns } from './mp4-feed';
import type { RunStream, SampleRun } from './mp4-feed';
import { readMp4VideoIndex } from './mp4-index';
import type { Mp4VideoIndex } from './mp4-index';

/** Default memory the buffering searches may hold at once, in bytes (a piped backward search
 * over the fixture's longest range holds ~190 MB of 720p RGB; the budget is split per slot). */
export const DEFAULT_KEYFRAME_BUFFER_BYTES = 512 * 1024 * 1024;
/** Seeking decodes: a new segment starts only when the next keyframe lies this many frames
 * past the end of the current one: decoding a short gap is cheaper than starting another ffmpeg.
 * (Piped parts never merge across a gap: skipping samples costs nothing.) */
export const SEGMENT_MERGE_GAP_FRAMES = 60;

/** Options of {@link extractKeyframes}. */
export type ExtractKeyframesOptions = {
  /** The episode's video file. */
  videoPath: string;
  /** ffmpeg executable (resolved by the caller, e.g. with the recorder's resolveFfmpeg). */
  ffmpegPath: string;
  /** ffprobe executable for the frame timeline (seeking) when the MP4 index cannot be used;
   * null or absent: decode from frame 0 then. */
  ffprobePath?: string | null;
  /** Read the MP4's sample index and pipe the needed packets to ffmpeg (default true); false:
   * use the ffprobe timeline (or frame 0) even for a plain H.264 MP4. */
  directRead?: boolean;
  /** `video_start_timestamp`: absolute clock s of frame 0. */
  videoStartS: number;
  /** Frame rate of the video (constant), e.g. 30. */
  fps: number;
  /** Exact frame count of the video (e.g. probeVideo().frameCount). */
  frameCount: number;
  /** Video width in px. */
  width: number;
  /** Video height in px. */
  height: number;
  /** The steps in output order. */
  steps: readonly KeyframeStepInput[];
  /** Aborts every decode (rejects with ABORTED). */
  signal?: AbortSignal;
  /** Decodes running at once; default min(2, available CPUs). */
  concurrency?: number;
  /** Memory budget of buffered frames, bytes; default {@link DEFAULT_KEYFRAME_BUFFER_BYTES}. */
  bufferBytes?: number;
};

/** One chosen keyframe with its pixels. */
export type ExtractedKeyframe = ResolvedKeyframe & {
  /** RGB24 pixels of `frame` (width · height · 3 bytes; steps choosing the same frame may share
   * the buffer); null when the frame could not be read (see diagnostics). */
  rgb: Buffer | null;
};

/** Counters of one extraction. */
export type KeyframeExtractionStats = {
  /** True when decodes skipped to the needed parts; false: one decode from frame 0. */
  isSeeking: boolean;
  /** How parts were found: the MP4's index (piped), the ffprobe timeline (seeks), or none. */
  frameSource: 'mp4-index' | 'ffprobe-timeline' | 'sequential';
  /** Decode segments (ffmpeg processes) of the main pass. */
  segments: number;
  /** Reference frames decoded beforehand for searches too large to buffer. */
  referenceFrames: number;
  /** Frames requested from the main pass (probes, candidates, references, fixed frames). */
  requestedFrames: number;
  /** Frames the main pass delivered before its segments could stop. */
  decodedFrames: number;
  /** Frames of the video the decoders had to go through (from each segment's keyframe to its
   * last delivered frame): the decoding work. */
  spannedFrames: number;
  /** Frames of the piped parts never sent to ffmpeg: not wanted, and no other frame refers to
   * them (non-reference pictures), so decoding them would be wasted. */
  skippedFrames: number;
  /** Probe comparisons made (gray similarity tests). */
  comparisons: number;
  /** Wall-clock ms of reading the MP4 index or the frame timeline listing. */
  timelineMs: number;
  /** Wall-clock ms of all decoding. */
  decodeMs: number;
};

/** Result of {@link extractKeyframes}. */
export type KeyframeExtraction = {
  /** One keyframe per input step, same order. */
  steps: ExtractedKeyframe[];
  /** The terminate keyframe (video-relative time); null when there are no steps. */
  terminate: ExtractedKeyframe | null;
  /** The plan the decodes followed. */
  plan: KeyframePlan;
  /** Counters and timings. */
  stats: KeyframeExtractionStats;
};

/** A contiguous frame range wanted by one unit. */
export type FrameRange = { first: number; last: number };

/** One decode: from `startFrame` (a keyframe) through `lastFrame`, for the units `members`. */
export type DecodeSegment = {
  /** Frame the decode starts at (a keyframe; 0 without a timeline). */
  startFrame: number;
  /** Last frame any member wants. */
  lastFrame: number;
  /** Indices into the ranges given to {@link planDecodeSegments}. */
  members: number[];
};

// Groups unit ranges into decode segments: a range joins the current segment when its keyframe
// lies at most `mergeGapFrames` after the segment's last frame (continuing costs at most that
// many extra frames), else it starts a new segment at its keyframe.
export function planDecodeSegments(
  ranges: readonly FrameRange[],
  keyframeOf: (frame: number) => number,
  mergeGapFrames: number = SEGMENT_MERGE_GAP_FRAMES,
): DecodeSegment[] {
  const order = ranges
    .map((range, index) => ({ range, index }))
    .sort((a, b) => a.range.first - b.range.first || a.index - b.index);
  const segments: DecodeSegment[] = [];
  for (const { range, index } of order) {
    const current = segments.at(-1);
    const keyframe = keyframeOf(range.first);
    if (current !== undefined && keyframe <= current.lastFrame + mergeGapFrames) {
      current.lastFrame = Math.max(current.lastFrame, range.last);
      current.members.push(index);
    } else {
      segments.push({ startFrame: keyframe, lastFrame: range.last, members: [index] });
    }
  }
  return segments;
}

// Picks and decodes the keyframe of every step and of terminate.
export async function extractKeyframes(
  options: ExtractKeyframesOptions,
): Promise<KeyframeExtraction> {
  const plan = planKeyframes({
    videoStartS: options.videoStartS,
    fps: options.fps,
    frameCount: options.frameCount,
    steps: options.steps,
  });
  const stats: KeyframeExtractionStats = {
    isSeeking: false,
    frameSource: 'sequential',
    segments: 0,
    referenceFrames: 0,
    requestedFrames: 0,
    decodedFrames: 0,
    spannedFrames: 0,
    skippedFrames: 0,
    comparisons: 0,
    timelineMs: 0,
    decodeMs: 0,
  };
  const pixelCount = options.width * options.height;

  const timelineStart = performance.now();
  const index =
    options.directRead !== false && plan.decodeFrames.length > 0
      ? await usableIndex(options)
      : null;
  const timeline =
    index === null && options.ffprobePath && plan.decodeFrames.length > 0
      ? await readFrameTimeline(options.videoPath, options.ffprobePath)
      : null;
  stats.timelineMs = performance.now() - timelineStart;
  stats.isSeeking = index !== null || timeline !== null;
  stats.frameSource = index ? 'mp4-index' : timeline ? 'ffprobe-timeline' : 'sequential';
  // with an index or a timeline, frames past its end do not exist: never ask for them
  const frameLimit = Math.min(
    plan.frameCount,
    index?.sampleOfFrame.length ?? timeline?.pts.length ?? plan.frameCount,
  );

  const concurrency = Math.max(
    1,
    Math.floor(options.concurrency ?? Math.min(2, os.availableParallelism())),
  );
  const searchBudget = (options.bufferBytes ?? DEFAULT_KEYFRAME_BUFFER_BYTES) / concurrency;
  const runner = new SegmentRunner(options, index, timeline, concurrency);

  try {
    const decodeStart = performance.now();
    // the searches, and which of them need their reference decoded beforehand
    const searches: { target: Target; plan: KeyframeSearchPlan }[] = plan.steps.flatMap(
      (step, index) => (step.rule === 'A' ? [{ target: index, plan: step.search }] : []),
    );
    if (plan.terminate?.rule === 'forward') {
      searches.push({ target: 'terminate', plan: plan.terminate.search });
    }
    // pixels a backward search must hold until its reference arrives; null for searches that
    // never buffer (forward, or a reference outside the video)
    const bufferedPixels = new Map(
      searches.map((search) => {
        const { plan: p } = search;
        const isBuffering = p.direction === 'backward' && p.isRefInRange && p.refFrame < frameLimit;
        return [search, isBuffering ? bufferedFrameCount(p, frameLimit) * pixelCount : null];
      }),
    );
    // with a timeline, a backward search gets a reversed decode (reference first) when ffmpeg
    // may hold its selected frames (YUV 4:2:0, 1.5 bytes per pixel) within the budget
    const reversed = new Set(
      timeline === null
        ? []
        : searches.filter((search) => {
            const pixels = bufferedPixels.get(search) ?? null;
            return pixels !== null && pixels * 1.5 <= searchBudget;
          }),
    );
    // a forward-decoded backward search buffers its probes' RGB until its reference arrives,
    // unless that exceeds the budget: then the reference is decoded beforehand
    const prefetched = searches.filter(
      (search) => !reversed.has(search) && (bufferedPixels.get(search) ?? 0) * 3 > searchBudget,
    );
    const refRgb = new Map<number, Buffer>();
    if (prefetched.length > 0) {
      const refUnits = [...new Set(prefetched.map((search) => search.plan.refFrame))].map(
        (frame) =>
          new FixedUnit(frame, frameLimit, (rgb) => {
            refRgb.set(frame, Buffer.from(rgb));
            return false;
          }),
      );
      stats.referenceFrames = refUnits.length;
      await runner.run(runner.forwardSegments(refUnits), () => undefined);
    }

    // the main pass
    const delivered = new Set<number>();
    // the unit of each step (by index) and of terminate
    const stepUnits: (SearchUnit | FixedUnit | undefined)[] = [];
    let terminateUnit: SearchUnit | FixedUnit | undefined;
    const place = (target: Target, unit: SearchUnit | FixedUnit): void => {
      if (target === 'terminate') {
        terminateUnit = unit;
      } else {
        stepUnits[target] = unit;
      }
    };
    const searchUnits: SearchUnit[] = [];
    const units: DecodeUnit[] = [];
    const reversedUnits: SearchUnit[] = [];
    for (const search of searches) {
      const preset = prefetched.includes(search)
        ? (refRgb.get(search.plan.refFrame) ?? 'missing')
        : null;
      const isReversed = reversed.has(search);
      const unit = new SearchUnit(
        search.plan,
        frameLimit,
        preset,
        isReversed ? 'descending' : 'ascending',
      );
      place(search.target, unit);
      searchUnits.push(unit);
      (isReversed && unit.frames.length > 0 ? reversedUnits : units).push(unit);
    }
    const reversedSegments = timeline ? planReversedSegments(reversedUnits, timeline) : [];
    const addFixed = (target: Target, frame: number): void => {
      const unit = new FixedUnit(frame, frameLimit, () => true);
      place(target, unit);
      // a frame inside a reversed decode's range comes with it (in any order)
      const host = reversedSegments.find(
        (segment) => segment.startFrame <= frame && frame <= segment.lastFrame,
      );
      if (host) {
        host.units.push(unit);
      } else {
        units.push(unit);
      }
    };
    for (const [index, step] of plan.steps.entries()) {
      if (step.rule === 'B') {
        addFixed(index, step.frame);
      }
    }
    if (plan.terminate?.rule === 'fixed') {
      addFixed('terminate', plan.terminate.frame);
    }
    const mainStats = await runner.run(
      [...reversedSegments, ...runner.forwardSegments(units)],
      (frame) => delivered.add(frame),
    );
    stats.decodeMs = performance.now() - decodeStart;
    stats.segments = mainStats.segments;
    stats.requestedFrames = mainStats.requestedFrames;
    stats.decodedFrames = delivered.size;
    stats.spannedFrames = mainStats.spannedFrames;
    stats.skippedFrames = mainStats.skippedFrames;
    stats.comparisons = searchUnits.reduce((sum, unit) => sum + unit.comparisons, 0);

    const outcome = (unit: SearchUnit | FixedUnit | undefined): KeyframeSearchOutcome | null =>
      unit instanceof SearchUnit ? unit.outcome() : null;
    const outcomes: KeyframeOutcomes = {
      steps: plan.steps.map((_, index) => outcome(stepUnits[index])),
      terminate: outcome(terminateUnit),
    };
    const resolved = resolveKeyframes(plan, outcomes, {
      isFrameReadable: (frame) => delivered.has(frame),
    });
    const pixelsFor = (target: Target, frame: number | null): Buffer | null => {
      if (frame === null || !delivered.has(frame)) {
        return null;
      }
      const rgb = (target === 'terminate' ? terminateUnit : stepUnits[target])?.pixels(frame);
      if (rgb === undefined) {
        const name = target === 'terminate' ? 'terminate' : `step ${target}`;
        throw new Error(
          `extractKeyframes: internal error: frame ${frame} chosen for ${name} was decoded but ` +
            'not kept',
        );
      }
      return rgb;
    };
    return { ...attachPixels(resolved, pixelsFor), plan, stats };
  } catch (error) {
    // native mode: a video ffmpeg cannot open becomes per-step diagnostics (docs/keyframes.md §1.6)
    if (isAppError(error, 'VIDEO_UNREADABLE')) {
      const resolved = resolveUnreadableVideo(plan, error.message);
      return {
        steps: resolved.steps.map((step) => ({ ...step, rgb: null })),
        terminate: resolved.terminate && { ...resolved.terminate, rgb: null },
        plan,
        stats,
      };
    }
    if (error instanceof NotPipeable) {
      // a part would start at a keyframe that is not an IDR picture: seek instead
      return await extractKeyframes({ ...options, directRead: false });
    }
    throw error;
  }
}

/** A piped part would not start with an IDR picture (see runsStartWithIdr). */
class NotPipeable extends Error {}

/** The MP4 index when it describes the video the caller probed; null otherwise. */
async function usableIndex(options: ExtractKeyframesOptions): Promise<Mp4VideoIndex | null> {
  const { index } = await readMp4VideoIndex(options.videoPath);
  if (index === null || index.width !== options.width || index.height !== options.height) {
    return null;
  }
  return index;
}

/** A step (its index) or the terminate step. */
type Target = number | 'terminate';

function attachPixels(
  resolved: ResolvedKeyframes,
  pixelsFor: (target: Target, frame: number | null) => Buffer | null,
): Pick<KeyframeExtraction, 'steps' | 'terminate'> {
  return {
    steps: resolved.steps.map((step, index) => ({
      ...step,
      rgb: pixelsFor(index, step.frame),
    })),
    terminate: resolved.terminate && {
      ...resolved.terminate,
      rgb: pixelsFor('terminate', resolved.terminate.frame),
    },
  };
}

/** Cost of starting one more ffmpeg, in decoded frames (Debian's ffmpeg needs ~0.1 s of CPU
 * to start; a 720p frame decodes in ~1.3 ms). */
const SPAWN_COST_FRAMES = 70;
/** Cost of one frame converted to RGB and piped to us, in decoded frames. */
const DELIVERY_COST_FRAMES = 6;

// Groups reversed (backward-search) units into decodes. In a shared reversed decode the higher
// unit is served first, and its frames after its own decision are converted for nothing until
// the lower unit is done; so a unit joins the decode below it only when what that saves (the
// frames from its keyframe up to the decode's end, plus one ffmpeg start) outweighs converting
// all its frames.
function planReversedSegments(
  units: readonly SearchUnit[],
  timeline: FrameTimeline,
): RunnerSegment[] {
  const sorted = [...units].sort((a, b) => (a.frames[0] as number) - (b.frames[0] as number));
  const segments: RunnerSegment[] = [];
  for (const unit of sorted) {
    const first = unit.frames[0] as number;
    const last = unit.frames.at(-1) as number;
    const keyframe = keyframeAtOrBefore(timeline, first);
    const current = segments.at(-1);
    if (
      current !== undefined &&
      keyframe <= current.lastFrame &&
      current.lastFrame - keyframe + SPAWN_COST_FRAMES >= unit.frames.length * DELIVERY_COST_FRAMES
    ) {
      current.lastFrame = Math.max(current.lastFrame, last);
      current.units.push(unit);
    } else {
      segments.push({ startFrame: keyframe, lastFrame: last, units: [unit], isReversed: true });
    }
  }
  return segments;
}

/** Frames a backward search holds before its reference arrives (probes and candidates). */
function bufferedFrameCount(search: KeyframeSearchPlan, frameLimit: number): number {
  const frames = new Set<number>();
  for (const probe of search.probes) {
    for (const frame of [probe.frame, probe.resultFrame]) {
      if (frame >= 0 && frame < frameLimit && frame < search.refFrame) {
        frames.add(frame);
      }
    }
  }
  return frames.size;
}

/** Something that wants some frames of the video, in ascending order within one decode. */
interface DecodeUnit {
  /** Wanted frames, ascending, unique, inside the video. */
  readonly frames: readonly number[];
  /** A wanted frame, decoded (frames arrive in ascending order). */
  onFrame(frame: number, rgb: Buffer): void;
  /** True when no further frame can change this unit's result. */
  isDone(): boolean;
  /** True when the unit usually stops well before its last frame (a forward search). */
  readonly isOpenEnded: boolean;
  /** True while the unit keeps the pixels of `frame`. */
  holds(frame: number): boolean;
}

/** A single frame (case B, fixed terminate, or a prefetched reference). */
class FixedUnit implements DecodeUnit {
  readonly frames: number[];
  readonly isOpenEnded = false;
  private rgb: Buffer | null = null;
  private isDecoded = false;

  constructor(
    private readonly frame: number,
    frameLimit: number,
    /** Sees the pixels; returns true to keep them (the chosen frame), false to let them go. */
    private readonly onDecoded: (rgb: Buffer) => boolean,
  ) {
    this.frames = frame >= 0 && frame < frameLimit ? [frame] : [];
  }

  onFrame(frame: number, rgb: Buffer): void {
    if (frame === this.frame) {
      this.isDecoded = true;
      this.rgb = this.onDecoded(rgb) ? rgb : null;
    }
  }

  isDone(): boolean {
    return this.isDecoded || this.frames.length === 0;
  }

  holds(frame: number): boolean {
    return frame === this.frame && this.rgb !== null;
  }

  pixels(frame: number): Buffer | undefined {
    return frame === this.frame ? (this.rgb ?? undefined) : undefined;
  }
}

const FALLBACK = -1;

/** One similarity search (backward case A or forward terminate) during the main pass. */
class SearchUnit implements DecodeUnit {
  readonly frames: number[];
  readonly isOpenEnded: boolean;
  comparisons = 0;
  private readonly probesAt = new Map<number, number[]>();
  private readonly probesByCandidate = new Map<number, number[]>();
  private readonly wanted: Set<number>;
  private readonly differs: (boolean | undefined)[] = [];
  private readonly held = new Map<number, Buffer>();
  private refRgb: Buffer | null = null;
  /** The reference was prefetched (or found missing) before this pass. */
  private readonly isRefPreset: boolean;
  /** Lowest loop index known to differ (eager comparisons). */
  private bestDiffering: number | null = null;
  /** Next probe of the walk; the walk is decided when `decided` is set. */
  private walk = 0;
  /** Loop index of the winning probe, FALLBACK (lo), or null while undecided. */
  private decided: number | null = null;
  /** Latest frame decoded so far. */
  private lastArrived: number;

  constructor(
    private readonly plan: KeyframeSearchPlan,
    private readonly frameLimit: number,
    preset: Buffer | 'missing' | null,
    /** Order the frames arrive in (descending: a reversed decode, reference first). */
    private readonly arrival: 'ascending' | 'descending' = 'ascending',
  ) {
    this.lastArrived = arrival === 'ascending' ? -1 : Number.POSITIVE_INFINITY;
    this.isOpenEnded = plan.direction === 'forward';
    this.isRefPreset = preset !== null;
    this.refRgb = preset === 'missing' ? null : preset;
    const wanted = new Set<number>();
    const want = (frame: number): void => {
      if (frame >= 0 && frame < frameLimit) {
        wanted.add(frame);
      }
    };
    want(plan.fallbackFrame);
    if (!plan.isRefInRange || preset === 'missing') {
      this.decided = FALLBACK; // only lo can be chosen (resolve reports the missing reference)
    } else {
      if (!this.isRefPreset) {
        want(plan.refFrame);
      }
      for (const [index, probe] of plan.probes.entries()) {
        if (probe.frame === plan.refFrame) {
          // the reference compared with itself: similarity 1 (the decode is deterministic)
          this.differs[index] = false;
        } else {
          const list = this.probesAt.get(probe.frame) ?? [];
          list.push(index);
          this.probesAt.set(probe.frame, list);
          want(probe.frame);
        }
        const candidates = this.probesByCandidate.get(probe.resultFrame) ?? [];
        candidates.push(index);
        this.probesByCandidate.set(probe.resultFrame, candidates);
        want(probe.resultFrame);
      }
    }
    this.wanted = wanted;
    this.frames = [...wanted].sort((a, b) => a - b);
  }

  onFrame(frame: number, rgb: Buffer): void {
    if (!this.wanted.has(frame)) {
      return;
    }
    this.lastArrived = frame;
    this.held.set(frame, rgb);
    if (this.decided === null) {
      if (frame === this.plan.refFrame && this.refRgb === null && !this.isRefPreset) {
        this.refRgb = Buffer.from(rgb); // the pool may reuse `rgb` once the unit lets it go
      }
      if (this.isRefPreset && this.refRgb !== null) {
        this.compareEagerly(frame, rgb);
      }
      this.advance();
    }
    this.prune();
  }

  isDone(): boolean {
    if (this.decided === null) {
      return false;
    }
    const chosen = this.chosenFrame();
    return !this.wanted.has(chosen) || this.held.has(chosen) || this.isPast(chosen);
  }

  /** Whether `frame` would have arrived by now (a wanted frame that did not is missing). */
  private isPast(frame: number): boolean {
    return this.arrival === 'ascending' ? frame <= this.lastArrived : frame >= this.lastArrived;
  }

  /** Verdicts for resolveKeyframes. */
  outcome(): KeyframeSearchOutcome {
    return { isRefRead: this.refRgb !== null, differs: this.differs };
  }

  holds(frame: number): boolean {
    return this.held.has(frame);
  }

  /** Pixels of `frame` if this search kept them. */
  pixels(frame: number): Buffer | undefined {
    return this.held.get(frame);
  }

  private chosenFrame(): number {
    if (this.decided === null || this.decided === FALLBACK) {
      return this.plan.fallbackFrame;
    }
    return (this.plan.probes[this.decided] as { resultFrame: number }).resultFrame;
  }

  /** Prefetched reference: decide the probes on `frame` now instead of keeping the pixels. */
  private compareEagerly(frame: number, rgb: Buffer): void {
    for (const probe of this.probesAt.get(frame) ?? []) {
      if (this.differs[probe] !== undefined) {
        continue;
      }
      if (this.bestDiffering !== null && probe > this.bestDiffering) {
        continue; // the walk stops at bestDiffering before reaching this probe
      }
      const differs = rgbFramesDiffer(rgb, this.refRgb as Buffer);
      this.comparisons += 1;
      this.differs[probe] = differs;
      if (differs && (this.bestDiffering === null || probe < this.bestDiffering)) {
        this.bestDiffering = probe;
      }
    }
  }

  /** Walks the loop as far as the decoded frames allow (docs/keyframes.md §1.2 step 4, §1.5 step 4). */
  private advance(): void {
    if (this.refRgb === null) {
      return;
    }
    while (this.decided === null) {
      const probe = this.plan.probes[this.walk];
      if (probe === undefined) {
        this.decided = FALLBACK; // the loop ended by its bound or at the video end
        break;
      }
      let differs = this.differs[this.walk];
      if (differs === undefined) {
        const rgb = this.held.get(probe.frame);
        if (rgb !== undefined) {
          differs = rgbFramesDiffer(rgb, this.refRgb);
          this.comparisons += 1;
          this.differs[this.walk] = differs;
        } else if (this.isPast(probe.frame) || probe.frame >= this.frameLimit) {
          this.decided = FALLBACK; // the probe's frame was not decoded: the loop ends with lo
          break;
        } else {
          break; // wait for the probe's frame
        }
      }
      if (differs) {
        this.decided = this.walk;
        break;
      }
      this.walk += 1;
    }
  }

  /** Drops pixels this search can no longer need. */
  private prune(): void {
    for (const frame of this.held.keys()) {
      if (!this.mayNeed(frame)) {
        this.held.delete(frame);
      }
    }
  }

  private mayNeed(frame: number): boolean {
    if (this.decided !== null) {
      return frame === this.chosenFrame();
    }
    if (frame === this.plan.fallbackFrame) {
      return true;
    }
    if (!this.isRefPreset && this.refRgb === null && this.probesAt.has(frame)) {
      return true; // a probe still to be compared once the reference arrives
    }
    if (!this.isRefPreset && this.refRgb !== null && this.probesAt.has(frame)) {
      // the walk waits for a later probe: keep the probes it has not reached
      if ((this.probesAt.get(frame) ?? []).some((probe) => this.differs[probe] === undefined)) {
        return true;
      }
    }
    return (this.probesByCandidate.get(frame) ?? []).some(
      (probe) =>
        this.differs[probe] !== false &&
        (this.bestDiffering === null || probe <= this.bestDiffering),
    );
  }
}

/** Counters of one {@link SegmentRunner.run}. */
type RunStats = {
  segments: number;
  requestedFrames: number;
  spannedFrames: number;
  skippedFrames: number;
};

/** One decode of the runner: its units' frames between two frames, in one direction. */
type RunnerSegment = {
  /** Frame the decode starts at (a keyframe; 0 without a timeline). */
  startFrame: number;
  /** Last frame any unit wants. */
  lastFrame: number;
  /** Units fed by this decode. */
  units: DecodeUnit[];
  /** Descending order (needs the timeline): ffmpeg reads up to lastFrame, then emits backwards. */
  isReversed: boolean;
  /** With the MP4 index: the parts piped to this decode, ascending. */
  runs?: SampleRun[];
};

// Groups units into piped decodes: one part per unit (from the keyframe before its first frame),
// overlapping parts merged (decoded once for all their units), then the parts dealt to at most
// `slots` decodes, longest first to the least loaded, each decode's parts in ascending order. A
// forward search ends at its first differing probe, somewhere in its range: it counts for half.
export function planPipedSegments(
  units: readonly DecodeUnit[],
  index: Mp4VideoIndex,
  slots: number,
): RunnerSegment[] {
  const parts = units
    .filter((unit) => unit.frames.length > 0)
    .map((unit) => {
      const first = unit.frames[0] as number;
      const last = unit.frames.at(-1) as number;
      const run = sampleRunFor(index, first, last);
      const expectedLast = unit.isOpenEnded ? Math.round((first + last) / 2) : last;
      return { run, expectedLast, units: [unit] };
    })
    .sort((a, b) => a.run.firstFrame - b.run.firstFrame);
  const merged: typeof parts = [];
  for (const part of parts) {
    const current = merged.at(-1);
    if (current !== undefined && part.run.firstFrame <= current.run.lastFrame) {
      current.run = {
        ...current.run,
        lastFrame: Math.max(current.run.lastFrame, part.run.lastFrame),
        lastSample: Math.max(current.run.lastSample, part.run.lastSample),
      };
      current.expectedLast = Math.max(current.expectedLast, part.expectedLast);
      current.units.push(...part.units);
    } else {
      merged.push({ ...part, run: { ...part.run }, units: [...part.units] });
    }
  }
  const cost = (part: (typeof merged)[number]): number =>
    part.expectedLast - part.run.firstFrame + 1;
  const bins = Array.from({ length: Math.min(slots, merged.length) }, () => ({
    cost: 0,
    parts: [] as typeof merged,
  }));
  for (const part of [...merged].sort((a, b) => cost(b) - cost(a))) {
    const bin = bins.reduce((least, candidate) =>
      candidate.cost < least.cost ? candidate : least,
    );
    bin.cost += cost(part);
    bin.parts.push(part);
  }
  return bins.map((bin) => {
    const ordered = bin.parts.sort((a, b) => a.run.firstFrame - b.run.firstFrame);
    return {
      startFrame: (ordered[0] as (typeof merged)[number]).run.firstFrame,
      lastFrame: (ordered.at(-1) as (typeof merged)[number]).run.lastFrame,
      units: ordered.flatMap((part) => part.units),
      isReversed: false,
      runs: ordered.map((part) => part.run),
    };
  });
}

/** Decodes the frames of units in segments, several at once. */
class SegmentRunner {
  private readonly pool: FrameBufferPool;

  constructor(
    private readonly options: ExtractKeyframesOptions,
    private readonly index: Mp4VideoIndex | null,
    private readonly timeline: FrameTimeline | null,
    private readonly concurrency: number,
  ) {
    this.pool = new FrameBufferPool(options.width * options.height * 3, 128);
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
      ...(this.concurrency > 1 ? { decoderThreads: 1 } : {}),
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
