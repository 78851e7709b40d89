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
//
// The parts live in keyframes/: the frame source (frame-source.ts), the decode units
// (decode-unit.ts, search-unit.ts), how searches fit the memory budget (search-buffering.ts), the
// decode plans (segment-plans.ts) and the segment runner that runs them (segment-runner.ts).
import os from 'node:os';
import { isAppError } from '../../shared/errors';
import { rgbToGray } from '../keyframes/gray';
import { planKeyframes } from '../keyframes/plan';
import { resolveKeyframes, resolveUnreadableVideo } from '../keyframes/resolve';
import type {
  KeyframeOutcomes,
  KeyframeSearchOutcome,
  ResolvedKeyframes,
} from '../keyframes/resolve';
import { FixedUnit } from './keyframes/decode-unit';
import type { DecodeUnit } from './keyframes/decode-unit';
import { readFrameSource } from './keyframes/frame-source';
import { planSearchDecodes } from './keyframes/search-buffering';
import type { Target } from './keyframes/search-buffering';
import { SearchUnit } from './keyframes/search-unit';
import { planReversedSegments } from './keyframes/segment-plans';
import { NotPipeable, SegmentRunner } from './keyframes/segment-runner';
import { DEFAULT_KEYFRAME_BUFFER_BYTES } from './keyframes/types';
import type {
  ExtractKeyframesOptions,
  KeyframeExtraction,
  KeyframeExtractionStats,
} from './keyframes/types';

export {
  SEGMENT_MERGE_GAP_FRAMES,
  planDecodeSegments,
  planPipedSegments,
} from './keyframes/segment-plans';
export type { DecodeSegment, FrameRange } from './keyframes/segment-plans';
export { DEFAULT_KEYFRAME_BUFFER_BYTES } from './keyframes/types';
export type {
  ExtractKeyframesOptions,
  ExtractedKeyframe,
  KeyframeExtraction,
  KeyframeExtractionStats,
} from './keyframes/types';

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
  const { index, timeline } = await readFrameSource(options, plan.decodeFrames.length > 0);
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
  const runner = new SegmentRunner(options, index, timeline, concurrency, searchBudget);
  // chosen frames encoded as soon as they are known (options.encodeFrame), by frame
  const encoded = new Map<number, Buffer>();
  const { encodeFrame } = options;
  const keepEncoded = encodeFrame
    ? (frame: number, rgb: Buffer): boolean => {
        if (!encoded.has(frame)) {
          encoded.set(frame, encodeFrame(frame, rgb));
        }
        return true;
      }
    : undefined;

  try {
    const decodeStart = performance.now();
    // the searches, and which of them need their reference decoded beforehand
    const { searches, reversed, prefetched } = planSearchDecodes(plan, {
      frameLimit,
      pixelCount,
      searchBudget,
      hasTimeline: timeline !== null,
    });
    // prefetched references are kept as gray: the comparison needs no more (§4)
    const refGray = new Map<number, Uint8Array>();
    if (prefetched.length > 0) {
      const refUnits = [...new Set(prefetched.map((search) => search.plan.refFrame))].map(
        (frame) =>
          new FixedUnit(frame, frameLimit, (rgb) => {
            refGray.set(frame, rgbToGray(rgb));
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
        ? (refGray.get(search.plan.refFrame) ?? 'missing')
        : null;
      const isReversed = reversed.has(search);
      const unit = new SearchUnit(
        search.plan,
        frameLimit,
        preset,
        isReversed ? 'descending' : 'ascending',
        keepEncoded,
      );
      place(search.target, unit);
      searchUnits.push(unit);
      (isReversed && unit.frames.length > 0 ? reversedUnits : units).push(unit);
    }
    // each search now holds its prefetched reference, and lets it go once decided
    refGray.clear();
    const reversedSegments = timeline ? planReversedSegments(reversedUnits, timeline) : [];
    const addFixed = (target: Target, frame: number): void => {
      const unit = new FixedUnit(frame, frameLimit, (rgb) => !keepEncoded?.(frame, rgb));
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
    const pixelsFor = (target: Target, frame: number | null): Pixels => {
      if (frame === null || !delivered.has(frame)) {
        return { rgb: null, encoded: null };
      }
      const rgb = (target === 'terminate' ? terminateUnit : stepUnits[target])?.pixels(frame);
      const kept = encoded.get(frame);
      if (kept !== undefined) {
        return { rgb: null, encoded: kept };
      }
      if (rgb !== undefined && encodeFrame) {
        // a search whose walk ended with its decode (not decided on the way)
        const late = encodeFrame(frame, rgb);
        encoded.set(frame, late);
        return { rgb: null, encoded: late };
      }
      if (rgb === undefined) {
        const name = target === 'terminate' ? 'terminate' : `step ${target}`;
        throw new Error(
          `extractKeyframes: internal error: frame ${frame} chosen for ${name} was decoded but ` +
            'not kept',
        );
      }
      return { rgb, encoded: null };
    };
    return { ...attachPixels(resolved, pixelsFor), plan, stats };
  } catch (error) {
    // native mode: a video ffmpeg cannot open becomes per-step diagnostics (docs/keyframes.md §1.6)
    if (isAppError(error, 'VIDEO_UNREADABLE')) {
      const resolved = resolveUnreadableVideo(plan, error.message);
      return {
        steps: resolved.steps.map((step) => ({ ...step, rgb: null, encoded: null })),
        terminate: resolved.terminate && { ...resolved.terminate, rgb: null, encoded: null },
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

/** A chosen frame's pixels: RGB, or what options.encodeFrame made of them. */
type Pixels = { rgb: Buffer | null; encoded: Buffer | null };

/** The resolved keyframes with the pixels of their chosen frames. */
function attachPixels(
  resolved: ResolvedKeyframes,
  pixelsFor: (target: Target, frame: number | null) => Pixels,
): Pick<KeyframeExtraction, 'steps' | 'terminate'> {
  return {
    steps: resolved.steps.map((step, index) => ({
      ...step,
      ...pixelsFor(index, step.frame),
    })),
    terminate: resolved.terminate && {
      ...resolved.terminate,
      ...pixelsFor('terminate', resolved.terminate.frame),
    },
  };
}
