// Keyframe plan (pure): which video frames the OpenCUA state–action matching will look at, for
// every step and the synthetic terminate step, computed with the reference's exact float64
// arithmetic (docs/keyframes.md §1, §2, §6 step 1). No video is touched here.

/** Probe spacing of both searches, in s (docs/keyframes.md §1.1 `STEP`). */
export const PROBE_STEP_S = 0.1;
/** Case A looks no later than this many s before the press (docs/keyframes.md §1.1 `PRE_PRESS_MARGIN`). */
export const PRE_PRESS_MARGIN_S = 0.5;
/** Smallest case B time, in s (docs/keyframes.md §1.1 `MIN_T`). */
export const MIN_KEYFRAME_TIME_S = 0.01;
/** Distance from the video end used by the clamp, in s (docs/keyframes.md §1.1 `END_MARGIN`). */
export const END_MARGIN_S = 0.01;
/** Complete-row actions (lower-cased) that use the backward search when a pre-move exists. */
export const BACKWARD_SEARCH_ACTIONS: readonly string[] = ['click', 'mouse_press', 'drag'];

/** One step as the planner needs it (AgentNet complete row + line-aligned vis row). */
export type KeyframeStepInput = {
  /** Complete-row `action` word: click | drag | mouse_press | scroll | type | press | … */
  action: string;
  /** `pre_move.start_time`, absolute clock s; null when the row has no `pre_move`. */
  preMoveStartS: number | null;
  /** Vis row `start_time` (the press), absolute clock s. */
  pressStartS: number;
  /** Vis row `end_time`, absolute clock s (the last step's feeds the terminate search). */
  endS: number;
};

/** Input of {@link planKeyframes}. */
export type KeyframePlanInput = {
  /** `video_start_timestamp`: absolute clock s of video frame 0. */
  videoStartS: number;
  /** Container frame rate as a float, e.g. 30. */
  fps: number;
  /** Exact number of frames in the video. */
  frameCount: number;
  /** The steps in output order. */
  steps: readonly KeyframeStepInput[];
};

/** One probe of a search loop. */
export type KeyframeProbe = {
  /** Probe time, video-relative s (repeated float64 stepping by 0.1 s). */
  timeS: number;
  /** Frame index of `timeS`: floor(timeS · fps + 0.5). */
  frame: number;
  /** Time the search returns when this probe is the first that differs: timeS + 0.1 (steps:
   * clamped to the video end, §1.4; terminate: moved onto the last frame when its frame lies
   * past it, §1.6), video-relative s. */
  resultTimeS: number;
  /** Frame index of `resultTimeS` (may be ≥ frameCount for a step, never for terminate). */
  resultFrame: number;
};

/** A similarity search: case A (backward from hi) or terminate (forward from lo). */
export type KeyframeSearchPlan = {
  /** Backward: probes from hi down to lo (case A); forward: from lo up to hi (terminate). */
  direction: 'backward' | 'forward';
  /** Lower bound, video-relative s. */
  loS: number;
  /** Upper bound, video-relative s. */
  hiS: number;
  /** Time of the reference frame (backward: hi, forward: lo), video-relative s. */
  refTimeS: number;
  /** Frame index of the reference frame. */
  refFrame: number;
  /** False when the reference frame lies outside the video (the reference implementation then
   * skips the episode, or for terminate omits the terminate event). */
  isRefInRange: boolean;
  /** The loop's probes in loop order (probe 0 is the reference itself), up to but excluding the
   * first probe outside the video; empty when the reference is outside the video. */
  probes: KeyframeProbe[];
  /** The first probe outside the video, where the loop would stop; null when the loop ends by
   * its bound. */
  stopProbe: { timeS: number; frame: number } | null;
  /** Time returned when no probe differs: lo (steps: clamped), video-relative s. */
  fallbackTimeS: number;
  /** Frame index of `fallbackTimeS`. */
  fallbackFrame: number;
};

/** The plan of one step. */
export type KeyframeStepPlan =
  | {
      /** Case A: backward search (click-family action with a pre-move, docs/keyframes.md §1.2). */
      rule: 'A';
      /** The backward search from hi down to lo. */
      search: KeyframeSearchPlan;
    }
  | {
      /** Case B: fixed time max(0.01, press − 0.5), clamped (docs/keyframes.md §1.3). */
      rule: 'B';
      /** Chosen time, video-relative s. */
      timeS: number;
      /** Its frame index. */
      frame: number;
    };

/** The plan of the synthetic terminate step (docs/keyframes.md §1.5). */
export type KeyframeTerminatePlan =
  | {
      /** Forward search from the last step's end to the video end. */
      rule: 'forward';
      /** The forward search from lo up to hi. */
      search: KeyframeSearchPlan;
    }
  | {
      /** No search: lo == hi (returns lo) or the video ends before the last step (L − 0.01). */
      rule: 'fixed';
      /** Why no search runs. */
      reason: 'empty-range' | 'video-ends-first';
      /** Chosen time, video-relative s (on the last frame when it would lie past it, §1.6). */
      timeS: number;
      /** Its frame index. */
      frame: number;
    };

/** Everything the decoder passes need, plus the per-step searches. */
export type KeyframePlan = {
  /** `video_start_timestamp`, absolute clock s. */
  videoStartS: number;
  /** Frame rate. */
  fps: number;
  /** Number of frames; indices outside [0, frameCount) are failed reads. */
  frameCount: number;
  /** Video length L = frameCount / fps, s. */
  durationS: number;
  /** One plan per input step, same order. */
  steps: KeyframeStepPlan[];
  /** The terminate plan; null when there are no steps (no terminate event is appended). */
  terminate: KeyframeTerminatePlan | null;
  /** Reference frames of every search (in range), ascending, unique. */
  referenceFrames: number[];
  /** Probe frames that must be decoded (in range, not the search's own reference frame). */
  probeFrames: number[];
  /** Frames that may be chosen (fallbacks, probe results, case B and fixed frames), in range. */
  candidateFrames: number[];
  /** probeFrames ∪ candidateFrames, ascending, unique. */
  decodeFrames: number[];
};

// Frame index OpenCV lands on when seeking to `timeS` (docs/keyframes.md §2: round half up, float64).
export function frameIndexAt(timeS: number, fps: number): number {
  return Math.floor(timeS * fps + 0.5);
}

// Plans the keyframe searches of an episode (docs/keyframes.md §1 and §6 step 1); throws RangeError on bad input.
export function planKeyframes(input: KeyframePlanInput): KeyframePlan {
  const { videoStartS: vst, fps, frameCount } = input;
  assertFinite('videoStartS', vst);
  if (!(Number.isFinite(fps) && fps > 0)) {
    throw new RangeError(`planKeyframes: fps must be a positive number, got ${fps}`);
  }
  if (!(Number.isSafeInteger(frameCount) && frameCount >= 0)) {
    throw new RangeError(
      `planKeyframes: frameCount must be a non-negative integer, got ${frameCount}`,
    );
  }
  const durationS = frameCount / fps;
  const video: VideoFacts = { vst, fps, frameCount, durationS };

  const steps = input.steps.map((step, index) => planStep(step, index, video));
  const lastStep = input.steps.at(-1);
  const terminate = lastStep === undefined ? null : planTerminate(lastStep.endS, video);

  const references = new Set<number>();
  const probes = new Set<number>();
  const candidates = new Set<number>();
  const addCandidate = (frame: number): void => {
    if (isInRange(frame, frameCount)) {
      candidates.add(frame);
    }
  };
  const addSearch = (search: KeyframeSearchPlan): void => {
    addCandidate(search.fallbackFrame);
    if (!search.isRefInRange) {
      return;
    }
    references.add(search.refFrame);
    for (const probe of search.probes) {
      if (probe.frame !== search.refFrame) {
        probes.add(probe.frame);
      }
      addCandidate(probe.resultFrame);
    }
  };
  for (const step of steps) {
    if (step.rule === 'A') {
      addSearch(step.search);
    } else {
      addCandidate(step.frame);
    }
  }
  if (terminate?.rule === 'forward') {
    addSearch(terminate.search);
  } else if (terminate?.rule === 'fixed') {
    addCandidate(terminate.frame);
  }

  const probeFrames = sortedNumbers(probes);
  const candidateFrames = sortedNumbers(candidates);
  return {
    videoStartS: vst,
    fps,
    frameCount,
    durationS,
    steps,
    terminate,
    referenceFrames: sortedNumbers(references),
    probeFrames,
    candidateFrames,
    decodeFrames: sortedNumbers(new Set([...probeFrames, ...candidateFrames])),
  };
}

// True when the complete-row action uses the backward search given a pre-move (docs/keyframes.md §1.2).
export function usesBackwardSearch(action: string): boolean {
  return BACKWARD_SEARCH_ACTIONS.includes(action.toLowerCase());
}

// True when `frame` can be read from a video of `frameCount` frames (docs/keyframes.md §2).
export function isInRange(frame: number, frameCount: number): boolean {
  return frame >= 0 && frame < frameCount;
}

type VideoFacts = { vst: number; fps: number; frameCount: number; durationS: number };

function planStep(step: KeyframeStepInput, index: number, video: VideoFacts): KeyframeStepPlan {
  assertFinite(`steps[${index}].pressStartS`, step.pressStartS);
  assertFinite(`steps[${index}].endS`, step.endS);
  // docs/keyframes.md §1.1: rel(t) = t − vst, float64, in this order
  const pressRelS = step.pressStartS - video.vst;

  if (step.preMoveStartS !== null && usesBackwardSearch(step.action)) {
    assertFinite(`steps[${index}].preMoveStartS`, step.preMoveStartS);
    const loS = step.preMoveStartS - video.vst;
    const hiS = Math.max(loS, pressRelS - PRE_PRESS_MARGIN_S);
    return { rule: 'A', search: planBackwardSearch(loS, hiS, video) };
  }

  const timeS = clampToVideo(Math.max(MIN_KEYFRAME_TIME_S, pressRelS - PRE_PRESS_MARGIN_S), video);
  return { rule: 'B', timeS, frame: frameIndexAt(timeS, video.fps) };
}

// docs/keyframes.md §1.4: a time at or past the video end becomes max(0, L − 0.01).
function clampToVideo(timeS: number, video: VideoFacts): number {
  return timeS >= video.durationS ? Math.max(0, video.durationS - END_MARGIN_S) : timeS;
}

// docs/keyframes.md §1.6 (native, terminate only): a terminate time whose frame lies past the
// last frame (a result t + 0.1 in the video's last 0.1 s, or L − 0.01 below 50 fps; the reference
// reads nothing there and keeps a null image) becomes the last frame's time, so the final
// keyframe is an image of the video. Times whose frame is in the video are unchanged. (A step's
// time lies past the end only when the step itself lies outside the video: STEP_OUTSIDE_VIDEO.)
function toLastFrame(timeS: number, video: VideoFacts): number {
  if (video.frameCount > 0 && frameIndexAt(timeS, video.fps) >= video.frameCount) {
    return (video.frameCount - 1) / video.fps;
  }
  return timeS;
}

function planBackwardSearch(loS: number, hiS: number, video: VideoFacts): KeyframeSearchPlan {
  const refFrame = frameIndexAt(hiS, video.fps);
  const isRefInRange = isInRange(refFrame, video.frameCount);
  const fallbackTimeS = clampToVideo(loS, video);
  const probes: KeyframeProbe[] = [];
  let stopProbe: KeyframeSearchPlan['stopProbe'] = null;
  if (isRefInRange) {
    // docs/keyframes.md §1.2 step 4: repeated float64 subtraction, never hi − k·0.1
    for (let t = hiS; t >= loS; t -= PROBE_STEP_S) {
      const frame = frameIndexAt(t, video.fps);
      if (!isInRange(frame, video.frameCount)) {
        stopProbe = { timeS: t, frame };
        break;
      }
      const resultTimeS = clampToVideo(t + PROBE_STEP_S, video);
      probes.push({
        timeS: t,
        frame,
        resultTimeS,
        resultFrame: frameIndexAt(resultTimeS, video.fps),
      });
    }
  }
  return {
    direction: 'backward',
    loS,
    hiS,
    refTimeS: hiS,
    refFrame,
    isRefInRange,
    probes,
    stopProbe,
    fallbackTimeS,
    fallbackFrame: frameIndexAt(fallbackTimeS, video.fps),
  };
}

function planTerminate(lastEndS: number, video: VideoFacts): KeyframeTerminatePlan {
  const { vst, durationS } = video;
  // docs/keyframes.md §1.5: compare on the absolute clock, then go back to video time exactly as written
  if (durationS + vst > lastEndS) {
    const loS = lastEndS - vst;
    const hiS = Math.max(loS, durationS + vst - vst);
    if (loS === hiS) {
      const timeS = toLastFrame(loS, video);
      return {
        rule: 'fixed',
        reason: 'empty-range',
        timeS,
        frame: frameIndexAt(timeS, video.fps),
      };
    }
    return { rule: 'forward', search: planForwardSearch(loS, hiS, video) };
  }
  const timeS = toLastFrame(Math.max(0, durationS - END_MARGIN_S), video);
  return {
    rule: 'fixed',
    reason: 'video-ends-first',
    timeS,
    frame: frameIndexAt(timeS, video.fps),
  };
}

function planForwardSearch(loS: number, hiS: number, video: VideoFacts): KeyframeSearchPlan {
  const refFrame = frameIndexAt(loS, video.fps);
  const isRefInRange = isInRange(refFrame, video.frameCount);
  const probes: KeyframeProbe[] = [];
  let stopProbe: KeyframeSearchPlan['stopProbe'] = null;
  if (isRefInRange) {
    // docs/keyframes.md §1.5 step 4: repeated float64 addition; the result t + 0.1 is not
    // clamped to L − 0.01, but a result past the last frame is that frame (§1.6, native)
    for (let t = loS; t <= hiS; t += PROBE_STEP_S) {
      const frame = frameIndexAt(t, video.fps);
      if (!isInRange(frame, video.frameCount)) {
        stopProbe = { timeS: t, frame };
        break;
      }
      const resultTimeS = toLastFrame(t + PROBE_STEP_S, video);
      probes.push({
        timeS: t,
        frame,
        resultTimeS,
        resultFrame: frameIndexAt(resultTimeS, video.fps),
      });
    }
  }
  return {
    direction: 'forward',
    loS,
    hiS,
    refTimeS: loS,
    refFrame,
    isRefInRange,
    probes,
    stopProbe,
    fallbackTimeS: loS,
    fallbackFrame: refFrame,
  };
}

function assertFinite(name: string, value: number): void {
  if (!Number.isFinite(value)) {
    throw new RangeError(`planKeyframes: ${name} must be a finite number, got ${value}`);
  }
}

function sortedNumbers(values: Set<number>): number[] {
  return [...values].sort((a, b) => a - b);
}
