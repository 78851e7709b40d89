// Keyframe resolution (pure): turns a plan plus the per-probe "differs" outcomes into the chosen
// time and frame of every step, walking each loop exactly as the reference does
// (docs/keyframes.md §1.2, §1.5, §6 step 4). Failures become diagnostics instead of dropped
// episodes (docs/keyframes.md §1.6, native mode).
import { frameIndexAt, isInRange } from './plan';
import type { KeyframePlan, KeyframeSearchPlan } from './plan';

/** Diagnostic codes of keyframe selection (docs/keyframes.md §1.6). */
export const KEYFRAME_DIAGNOSTIC_CODES = [
  /** The video could not be opened or decoded at all (reference: episode skipped). */
  'KEYFRAME_VIDEO_UNREADABLE',
  /** A search's reference frame could not be read (reference: episode skipped, or for the
   * terminate search: no terminate event). */
  'KEYFRAME_REF_OUT_OF_RANGE',
  /** A probe could not be read; the loop ended there and lo was returned (as the reference). */
  'KEYFRAME_PROBE_FAILED',
  /** The chosen frame could not be read (reference: event kept with `frame: null`). */
  'KEYFRAME_FRAME_MISSING',
] as const;

/** One of {@link KEYFRAME_DIAGNOSTIC_CODES}. */
export type KeyframeDiagnosticCode = (typeof KEYFRAME_DIAGNOSTIC_CODES)[number];

/** A problem met while choosing one step's keyframe. */
export type KeyframeDiagnostic = {
  /** Stable code. */
  code: KeyframeDiagnosticCode;
  /** Human-readable detail naming times and frame indices. */
  message: string;
};

/** What decoding found out about one search. */
export type KeyframeSearchOutcome = {
  /** False when the reference frame was not decoded. */
  isRefRead: boolean;
  /** Per probe of the plan, in plan (loop) order: true = differs from the reference, false =
   * similar, null or missing = the probe frame was not decoded. Entries after the first differing
   * probe are never looked at. */
  differs: readonly (boolean | null | undefined)[];
};

/** Decoding outcomes of every search of a plan. */
export type KeyframeOutcomes = {
  /** Per plan step, same order; case B steps are ignored (use null). */
  steps: readonly (KeyframeSearchOutcome | null | undefined)[];
  /** Outcome of the terminate search; ignored unless the terminate plan is a search. */
  terminate: KeyframeSearchOutcome | null;
};

/** Options of {@link resolveKeyframes}. */
export type ResolveKeyframesOptions = {
  /** Whether a chosen frame was (or can be) decoded; default: the index is inside the video. */
  isFrameReadable?: (frame: number) => boolean;
};

/** How the chosen time came about. */
export type KeyframeSource =
  /** A probe differed: its time + 0.1 s. */
  | 'differing-probe'
  /** Search without a differing probe (or stopped early): lo. */
  | 'lo'
  /** Case B: max(0.01, press − 0.5) clamped. */
  | 'pre-press'
  /** Terminate without search (empty range or the video ends before the last step). */
  | 'fixed'
  /** Nothing could be chosen (the video is unreadable). */
  | 'none';

/** The keyframe chosen for one step (or terminate). */
export type ResolvedKeyframe = {
  /** Chosen time, video-relative s (terminate too); null only when the video is unreadable. */
  timeS: number | null;
  /** Frame index of `timeS` (floor(t·fps + 0.5)); null only when the video is unreadable. */
  frame: number | null;
  /** How the time was chosen. */
  source: KeyframeSource;
  /** Loop index of the probe that differed, else null. */
  differingProbe: number | null;
  /** Problems met; empty when the reference implementation would behave normally. */
  diagnostics: KeyframeDiagnostic[];
};

/** Keyframes of all steps plus terminate. */
export type ResolvedKeyframes = {
  /** One per plan step, same order. */
  steps: ResolvedKeyframe[];
  /** The terminate keyframe; null when the plan has no steps. */
  terminate: ResolvedKeyframe | null;
};

// Chooses every step's keyframe from the plan and the decoded probe outcomes.
export function resolveKeyframes(
  plan: KeyframePlan,
  outcomes: KeyframeOutcomes,
  options: ResolveKeyframesOptions = {},
): ResolvedKeyframes {
  const isFrameReadable =
    options.isFrameReadable ?? ((frame: number) => isInRange(frame, plan.frameCount));
  const finish = (
    partial: Omit<ResolvedKeyframe, 'frame'> & { timeS: number },
  ): ResolvedKeyframe => {
    const frame = frameIndexAt(partial.timeS, plan.fps);
    const diagnostics = [...partial.diagnostics];
    if (!isFrameReadable(frame)) {
      diagnostics.push({
        code: 'KEYFRAME_FRAME_MISSING',
        message: `chosen frame ${frame} (t ${partial.timeS} s) could not be read`,
      });
    }
    return { ...partial, frame, diagnostics };
  };

  const steps = plan.steps.map((step, index) => {
    if (step.rule === 'B') {
      return finish({
        timeS: step.timeS,
        source: 'pre-press',
        differingProbe: null,
        diagnostics: [],
      });
    }
    return finish(walkSearch(step.search, outcomes.steps[index] ?? null, `step ${index}`));
  });

  let terminate: ResolvedKeyframe | null = null;
  if (plan.terminate?.rule === 'forward') {
    terminate = finish(walkSearch(plan.terminate.search, outcomes.terminate, 'terminate'));
  } else if (plan.terminate?.rule === 'fixed') {
    terminate = finish({
      timeS: plan.terminate.timeS,
      source: 'fixed',
      differingProbe: null,
      diagnostics: [],
    });
  }
  return { steps, terminate };
}

// The result when the video cannot be decoded at all: every step gets no time and a diagnostic.
export function resolveUnreadableVideo(plan: KeyframePlan, reason: string): ResolvedKeyframes {
  const unreadable = (): ResolvedKeyframe => ({
    timeS: null,
    frame: null,
    source: 'none',
    differingProbe: null,
    diagnostics: [{ code: 'KEYFRAME_VIDEO_UNREADABLE', message: reason }],
  });
  return {
    steps: plan.steps.map(unreadable),
    terminate: plan.terminate === null ? null : unreadable(),
  };
}

type WalkResult = Omit<ResolvedKeyframe, 'frame'> & { timeS: number };

// docs/keyframes.md §1.2 step 4 / §1.5 step 4: walk the probes in loop order; the first differing probe wins,
// an unreadable probe ends the loop with lo.
function walkSearch(
  search: KeyframeSearchPlan,
  outcome: KeyframeSearchOutcome | null,
  label: string,
): WalkResult {
  const fallback = (diagnostics: KeyframeDiagnostic[]): WalkResult => ({
    timeS: search.fallbackTimeS,
    source: 'lo',
    differingProbe: null,
    diagnostics,
  });
  const refName = search.direction === 'backward' ? 'Ref' : 'S';

  if (!search.isRefInRange) {
    return fallback([
      {
        code: 'KEYFRAME_REF_OUT_OF_RANGE',
        message:
          `${label}: reference frame ${search.refFrame} (${refName} at t ${search.refTimeS} s) ` +
          'lies outside the video; using lo',
      },
    ]);
  }
  if (outcome === null || !outcome.isRefRead) {
    return fallback([
      {
        code: 'KEYFRAME_REF_OUT_OF_RANGE',
        message:
          `${label}: reference frame ${search.refFrame} (${refName} at t ${search.refTimeS} s) ` +
          'was not decoded; using lo',
      },
    ]);
  }

  for (const [index, probe] of search.probes.entries()) {
    const differs = outcome.differs[index];
    if (differs === null || differs === undefined) {
      return fallback([
        {
          code: 'KEYFRAME_PROBE_FAILED',
          message:
            `${label}: probe ${index} (t ${probe.timeS} s, frame ${probe.frame}) was not ` +
            'decoded; the search stopped there and returned lo',
        },
      ]);
    }
    if (differs) {
      return {
        timeS: probe.resultTimeS,
        source: 'differing-probe',
        differingProbe: index,
        diagnostics: [],
      };
    }
  }

  // the forward search runs up to the video end, whose last probe is always past the last frame:
  // that ends the loop exactly like the bound does, so it is not worth a diagnostic
  if (search.stopProbe !== null && search.direction === 'backward') {
    return fallback([
      {
        code: 'KEYFRAME_PROBE_FAILED',
        message:
          `${label}: probe ${search.probes.length} (t ${search.stopProbe.timeS} s, frame ` +
          `${search.stopProbe.frame}) lies outside the video; the search stopped there and ` +
          'returned lo',
      },
    ]);
  }
  return fallback([]);
}
