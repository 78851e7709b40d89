// Keyframe extraction for one episode: plan (pure), pass 1 = reference frames (gray only),
// pass 2 = probe and candidate frames in index order (gray compared on the fly, RGB kept only
// for frames that can still be chosen), then resolve (spec: keyframes.md §6). Two sequential
// ffmpeg decodes instead of one seek per probe; memory stays O(steps) frames.
import { isAppError } from '../../shared/errors';
import { grayFramesDiffer, rgbToGray } from '../keyframes/gray';
import { planKeyframes } from '../keyframes/plan';
import type { KeyframePlan, KeyframeSearchPlan, KeyframeStepInput } from '../keyframes/plan';
import { resolveKeyframes, resolveUnreadableVideo } from '../keyframes/resolve';
import type {
  KeyframeOutcomes,
  KeyframeSearchOutcome,
  ResolvedKeyframe,
  ResolvedKeyframes,
} from '../keyframes/resolve';
import { decodeFrames } from './frame-decoder';
import type { DecodedFrame, FrameCallbackResult } from './frame-decoder';

/** Options of {@link extractKeyframes}. */
export type ExtractKeyframesOptions = {
  /** The episode's video file. */
  videoPath: string;
  /** ffmpeg executable (resolved by the caller, e.g. with the recorder's resolveFfmpeg). */
  ffmpegPath: string;
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
  /** Aborts both decodes (rejects with ABORTED). */
  signal?: AbortSignal;
};

/** One chosen keyframe with its pixels. */
export type ExtractedKeyframe = ResolvedKeyframe & {
  /** RGB24 pixels of `frame` (width · height · 3 bytes; steps choosing the same frame share the
   * buffer); null when the frame could not be read (see diagnostics). */
  rgb: Buffer | null;
};

/** Counters of one extraction. */
export type KeyframeExtractionStats = {
  /** Frames requested in pass 1 (reference frames). */
  passOneFrames: number;
  /** Frames requested in pass 2 (probes and candidates). */
  passTwoFrames: number;
  /** Frames pass 2 actually delivered before it could stop. */
  passTwoDecoded: number;
  /** Probe comparisons made (gray similarity tests). */
  comparisons: number;
  /** Wall-clock ms of pass 1. */
  passOneMs: number;
  /** Wall-clock ms of pass 2. */
  passTwoMs: number;
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

// Picks and decodes the keyframe of every step and of terminate (two ffmpeg passes).
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
    passOneFrames: plan.referenceFrames.length,
    passTwoFrames: 0,
    passTwoDecoded: 0,
    comparisons: 0,
    passOneMs: 0,
    passTwoMs: 0,
  };
  const decode = async (
    frames: readonly number[],
    onFrame: (frame: DecodedFrame) => FrameCallbackResult,
  ): Promise<void> => {
    await decodeFrames({
      ffmpeg: { path: options.ffmpegPath },
      videoPath: options.videoPath,
      frames,
      width: options.width,
      height: options.height,
      onFrame,
      signal: options.signal,
    });
  };

  try {
    // pass 1: reference frames, gray only (spec §6 step 2)
    const passOneStart = performance.now();
    const refGray = new Map<number, Uint8Array>();
    await decode(plan.referenceFrames, (frame) => {
      refGray.set(frame.index, rgbToGray(frame.rgb));
    });
    stats.passOneMs = performance.now() - passOneStart;

    // pass 2: probes and candidates in index order (spec §6 step 3)
    const passTwoStart = performance.now();
    const tracker = new PassTwoTracker(plan, refGray, options.width * options.height);
    stats.passTwoFrames = tracker.frames.length;
    await decode(tracker.frames, (frame) => tracker.onFrame(frame));
    stats.passTwoMs = performance.now() - passTwoStart;
    stats.passTwoDecoded = tracker.delivered.size;
    stats.comparisons = tracker.comparisons;

    const resolved = resolveKeyframes(plan, tracker.outcomes(), {
      isFrameReadable: (frame) => tracker.delivered.has(frame),
    });
    return { ...attachPixels(resolved, tracker), plan, stats };
  } catch (error) {
    // native mode: a video ffmpeg cannot open becomes per-step diagnostics (spec §1.6)
    if (isAppError(error, 'VIDEO_UNREADABLE')) {
      const resolved = resolveUnreadableVideo(plan, error.message);
      return {
        steps: resolved.steps.map((step) => ({ ...step, rgb: null })),
        terminate: resolved.terminate && { ...resolved.terminate, rgb: null },
        plan,
        stats,
      };
    }
    throw error;
  }
}

function attachPixels(
  resolved: ResolvedKeyframes,
  tracker: PassTwoTracker,
): Pick<KeyframeExtraction, 'steps' | 'terminate'> {
  return {
    steps: resolved.steps.map((step, index) => ({
      ...step,
      rgb: tracker.pixelsFor({ kind: 'step', index }, step.frame),
    })),
    terminate: resolved.terminate && {
      ...resolved.terminate,
      rgb: tracker.pixelsFor({ kind: 'terminate' }, resolved.terminate.frame),
    },
  };
}

type Target = { kind: 'step'; index: number } | { kind: 'terminate' };

/** Live state of one search during pass 2. */
type SearchState = {
  target: Target;
  plan: KeyframeSearchPlan;
  refGray: Uint8Array | null;
  /** Per probe: decoded verdict; undefined until decoded (or when irrelevant). */
  differs: (boolean | undefined)[];
  /** Lowest loop index of a differing probe so far: the walk returns it unless an earlier probe
   * is missing (backward: latest differing probe in frame order; forward: the first). */
  best: number | null;
  /** candidate frame → loop indices of the probes that would choose it. */
  probesByCandidate: Map<number, number[]>;
  /** RGB of frames this search may still choose. */
  held: Map<number, Buffer>;
  /** Highest frame this search still needs (recomputed when `best` changes). */
  lastNeededFrame: number;
};

/** Pass 2 bookkeeping: verdicts per probe, RGB of candidate frames, early stop. */
class PassTwoTracker {
  /** Frames pass 2 decodes, ascending. */
  readonly frames: number[];
  /** Frames pass 2 delivered. */
  readonly delivered = new Set<number>();
  comparisons = 0;
  private readonly searches: SearchState[] = [];
  private readonly stepSearch = new Map<number, SearchState>();
  private terminateSearch: SearchState | null = null;
  /** frame → probes (search, loop index) to compare on that frame. */
  private readonly probesAt = new Map<number, { search: SearchState; probe: number }[]>();
  /** RGB of fixed (case B / terminate without search) frames. */
  private readonly fixedFrames = new Set<number>();
  private readonly fixedHeld = new Map<number, Buffer>();
  private readonly fixedLastFrame: number;
  private readonly gray: Uint8Array;

  constructor(
    private readonly plan: KeyframePlan,
    refGray: ReadonlyMap<number, Uint8Array>,
    pixelCount: number,
  ) {
    this.gray = new Uint8Array(pixelCount);
    const frames = new Set<number>();
    const addFrame = (frame: number): void => {
      if (frame >= 0 && frame < plan.frameCount) {
        frames.add(frame);
      }
    };
    for (const [index, step] of plan.steps.entries()) {
      if (step.rule === 'A') {
        const state = this.addSearch({ kind: 'step', index }, step.search, refGray, addFrame);
        this.stepSearch.set(index, state);
      } else {
        this.fixedFrames.add(step.frame);
        addFrame(step.frame);
      }
    }
    if (plan.terminate?.rule === 'forward') {
      this.terminateSearch = this.addSearch(
        { kind: 'terminate' },
        plan.terminate.search,
        refGray,
        addFrame,
      );
    } else if (plan.terminate?.rule === 'fixed') {
      this.fixedFrames.add(plan.terminate.frame);
      addFrame(plan.terminate.frame);
    }
    this.frames = [...frames].sort((a, b) => a - b);
    this.fixedLastFrame = Math.max(
      -1,
      ...[...this.fixedFrames].filter((frame) => frames.has(frame)),
    );
    for (const search of this.searches) {
      search.lastNeededFrame = this.searchLastNeededFrame(search);
    }
  }

  /** Handles one decoded pass-2 frame; 'stop' once no later frame can matter. */
  onFrame(frame: DecodedFrame): FrameCallbackResult {
    const { index, rgb } = frame;
    this.delivered.add(index);
    let isGrayReady = false;
    for (const { search, probe } of this.probesAt.get(index) ?? []) {
      if (search.best !== null && probe > search.best) {
        continue; // the walk stops at `best` before reaching this probe
      }
      if (!isGrayReady) {
        rgbToGray(rgb, this.gray);
        isGrayReady = true;
      }
      const differs = grayFramesDiffer(this.gray, search.refGray as Uint8Array);
      this.comparisons += 1;
      search.differs[probe] = differs;
      if (differs && (search.best === null || probe < search.best)) {
        search.best = probe;
        search.lastNeededFrame = this.searchLastNeededFrame(search);
      }
    }
    if (this.fixedFrames.has(index)) {
      this.fixedHeld.set(index, rgb);
    }
    for (const search of this.searches) {
      this.updateHeld(search, index, rgb);
    }
    return index >= this.lastNeededFrame() ? 'stop' : undefined;
  }

  /** Outcomes for resolveKeyframes. */
  outcomes(): KeyframeOutcomes {
    const outcome = (search: SearchState | null | undefined): KeyframeSearchOutcome | null =>
      search ? { isRefRead: search.refGray !== null, differs: search.differs } : null;
    return {
      steps: this.plan.steps.map((_, index) => outcome(this.stepSearch.get(index))),
      terminate: outcome(this.terminateSearch),
    };
  }

  /** RGB of the frame a target chose; null when it was not delivered. */
  pixelsFor(target: Target, frame: number | null): Buffer | null {
    if (frame === null || !this.delivered.has(frame)) {
      return null;
    }
    const search =
      target.kind === 'step' ? this.stepSearch.get(target.index) : this.terminateSearch;
    const rgb = search ? search.held.get(frame) : this.fixedHeld.get(frame);
    if (rgb === undefined) {
      throw new Error(
        `extractKeyframes: internal error: frame ${frame} chosen for ${JSON.stringify(target)} ` +
          'was decoded but not kept',
      );
    }
    return rgb;
  }

  private addSearch(
    target: Target,
    plan: KeyframeSearchPlan,
    refGray: ReadonlyMap<number, Uint8Array>,
    addFrame: (frame: number) => void,
  ): SearchState {
    const gray = plan.isRefInRange ? (refGray.get(plan.refFrame) ?? null) : null;
    const state: SearchState = {
      target,
      plan,
      refGray: gray,
      differs: [],
      best: null,
      probesByCandidate: new Map(),
      held: new Map(),
      lastNeededFrame: -1,
    };
    this.searches.push(state);
    addFrame(plan.fallbackFrame);
    if (gray === null) {
      return state; // no reference: only lo can be chosen
    }
    for (const [index, probe] of plan.probes.entries()) {
      if (probe.frame === plan.refFrame) {
        // the reference compared with itself: similarity 1 (the decode is deterministic)
        state.differs[index] = false;
      } else {
        const list = this.probesAt.get(probe.frame) ?? [];
        list.push({ search: state, probe: index });
        this.probesAt.set(probe.frame, list);
        addFrame(probe.frame);
      }
      const candidates = state.probesByCandidate.get(probe.resultFrame) ?? [];
      candidates.push(index);
      state.probesByCandidate.set(probe.resultFrame, candidates);
      addFrame(probe.resultFrame);
    }
    return state;
  }

  /** Keeps `rgb` if the search may still choose `frame`; drops frames it can no longer choose. */
  private updateHeld(search: SearchState, frame: number, rgb: Buffer): void {
    if (this.canStillChoose(search, frame, frame)) {
      search.held.set(frame, rgb);
    }
    for (const heldFrame of search.held.keys()) {
      if (!this.canStillChoose(search, heldFrame, frame)) {
        search.held.delete(heldFrame);
      }
    }
  }

  /** Whether `candidate` can still be the search's result after frames ≤ `decodedUpTo`. */
  private canStillChoose(search: SearchState, candidate: number, decodedUpTo: number): boolean {
    if (candidate === search.plan.fallbackFrame) {
      return true;
    }
    const { best } = search;
    return (search.probesByCandidate.get(candidate) ?? []).some(
      (probe) =>
        probe === best ||
        // a probe not decoded yet (its frame comes later, e.g. the end clamp) may still win
        ((best === null || probe < best) &&
          (search.plan.probes[probe]?.frame ?? -1) > decodedUpTo &&
          search.differs[probe] === undefined),
    );
  }

  /** Highest frame the search can still need: undecided probes below `best` and candidates. */
  private searchLastNeededFrame(search: SearchState): number {
    let last = this.inDecodeRange(search.plan.fallbackFrame);
    if (search.refGray === null) {
      return last;
    }
    for (const [index, probe] of search.plan.probes.entries()) {
      if (search.best !== null && index > search.best) {
        continue;
      }
      if (index !== search.best && probe.frame !== search.plan.refFrame) {
        last = Math.max(last, this.inDecodeRange(probe.frame));
      }
      last = Math.max(last, this.inDecodeRange(probe.resultFrame));
    }
    return last;
  }

  private inDecodeRange(frame: number): number {
    return frame >= 0 && frame < this.plan.frameCount ? frame : -1;
  }

  private lastNeededFrame(): number {
    let last = this.fixedLastFrame;
    for (const search of this.searches) {
      last = Math.max(last, search.lastNeededFrame);
    }
    return last;
  }
}
