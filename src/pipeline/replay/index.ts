// Public API of the replay core (docs/replay.md): screen difference, scaling, plan, score.
export {
  BLOCK_SIZE,
  BLOCK_THRESHOLD,
  CURSOR_MASK,
  grayThumbnail,
  isScreenMatch,
  SCREEN_MATCH_MAX_CHANGED,
  screenDiff,
  THUMBNAIL_WIDTH,
} from './screen-diff';
export type { MaskRect, ScreenDiff, ScreenDiffOptions, Thumbnail } from './screen-diff';
export { scalePoint } from './scale';
export type { Point, ScreenFrame } from './scale';
export { planReplay, WAIT_DEFAULT_MS } from './plan';
export type { PlanStep, ReplayPrimitive, StepPlan } from './plan';
export { scoreOf, stepResult } from './score';
export type { ReplayScore, StepResult } from './score';
