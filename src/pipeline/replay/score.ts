// Per-step replay results and the trajectory's score (docs/replay.md §2).
import { isScreenMatch, SCREEN_MATCH_MAX_CHANGED, type ScreenDiff } from './screen-diff';

/** One step's comparison before it is driven (or the end state, after the last step). */
export type StepResult = {
  index: number;
  /** changedFraction of the live screen against the step's keyframe; null when not compared. */
  screenDiff: number | null;
  /** Element under the action point matches the recorded one (role and name); null when the
   * recording has no element for the step. */
  elementMatch: boolean | null;
  ok: boolean;
};

/** The score of a replay. */
export type ReplayScore = {
  /** Share of steps whose screen and element both match (0–1; 0 without steps). */
  score: number;
  /** Index of the first step that is not ok, null when all are. */
  firstDivergent: number | null;
};

/**
 * A step's result: `ok` when its screen matches (changedFraction ≤ `maxChanged`) and its element
 * does not mismatch (null = not recorded counts as matching). A screen not compared (null diff)
 * is not a match.
 */
export function stepResult(
  index: number,
  diff: ScreenDiff | null,
  elementMatch: boolean | null,
  maxChanged = SCREEN_MATCH_MAX_CHANGED,
): StepResult {
  const screenOk = diff !== null && isScreenMatch(diff, maxChanged);
  return {
    index,
    screenDiff: diff === null ? null : diff.changedFraction,
    elementMatch,
    ok: screenOk && elementMatch !== false,
  };
}

/** score = the share of steps whose screen and element both match; the first one that does not. */
export function scoreOf(steps: readonly StepResult[]): ReplayScore {
  const matching = steps.filter((s) => s.ok).length;
  const first = steps.find((s) => !s.ok);
  return {
    score: steps.length === 0 ? 0 : matching / steps.length,
    firstDivergent: first === undefined ? null : first.index,
  };
}
