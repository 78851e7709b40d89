// Public API of keyframe selection (docs/keyframes.md): planning, resolution, gray similarity.
export {
  BACKWARD_SEARCH_ACTIONS,
  END_MARGIN_S,
  MIN_KEYFRAME_TIME_S,
  PRE_PRESS_MARGIN_S,
  PROBE_STEP_S,
  frameIndexAt,
  isInRange,
  planKeyframes,
  usesBackwardSearch,
} from './plan';
export type {
  KeyframePlan,
  KeyframePlanInput,
  KeyframeProbe,
  KeyframeSearchPlan,
  KeyframeStepInput,
  KeyframeStepPlan,
  KeyframeTerminatePlan,
} from './plan';
export { KEYFRAME_DIAGNOSTIC_CODES, resolveKeyframes, resolveUnreadableVideo } from './resolve';
export type {
  KeyframeDiagnostic,
  KeyframeDiagnosticCode,
  KeyframeOutcomes,
  KeyframeSearchOutcome,
  KeyframeSource,
  ResolveKeyframesOptions,
  ResolvedKeyframe,
  ResolvedKeyframes,
} from './resolve';
export {
  SIMILARITY_THRESHOLD,
  countDifferentPixels,
  grayFramesDiffer,
  grayValue,
  rgbDiffersFromGray,
  rgbFramesDiffer,
  rgbToGray,
  similarity,
} from './gray';
