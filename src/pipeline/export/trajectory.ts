// The exported trajectory: steps after OpenCUA's reduce_content, plus terminate, each with the
// index of the keyframe it shows (docs/pyautogui-code.md §2, §3.5, §5).
import type { ActionCall, Step } from '../../shared/domain';
import { callsToCode, reduceContent, type ContentStep } from '../code';

/** One exported step: instruction, calls, and which keyframe (original step index) it shows. */
export type TrajectoryStep = ContentStep & { code: string };

/** Key of `Step.extra` set (true) on the second half of a reviewer's split
 * (services/edits/apply-edits.ts): the exports keep it apart from the step before it. */
export const SPLIT_BOUNDARY_KEY = 'splitBoundary';

/** True when a reviewer split `step` off the step before it. */
export function startsAtSplit(step: { extra?: Record<string, unknown> }): boolean {
  return step.extra?.[SPLIT_BOUNDARY_KEY] === true;
}

/** The terminate call appended to every trajectory. */
export function terminateCall(status: 'success' | 'failure' = 'success'): ActionCall {
  return { name: 'terminate', args: { status } };
}

/**
 * Steps (with calls) → the exported trajectory: OpenCUA's content reduction (typing continuation,
 * synthetic double click, dropped empty/modifier-only steps), then the terminate step whose
 * image index is `steps.length`. A reviewer's split is kept: the reduction never joins the
 * second half of a split to the step before it ({@link startsAtSplit}).
 */
export function buildTrajectory(
  steps: readonly (Pick<Step, 'label' | 'calls'> & Partial<Pick<Step, 'extra'>>)[],
  status: 'success' | 'failure' = 'success',
): TrajectoryStep[] {
  const content: ContentStep[] = steps.map((s, i) => ({
    instruction: s.label,
    calls: [...s.calls],
    imageIndex: i,
    ...(startsAtSplit(s) ? { keepApart: true } : {}),
  }));
  const reduced = reduceContent(content);
  reduced.push({
    instruction: 'terminate',
    calls: [terminateCall(status)],
    imageIndex: steps.length,
  });
  return reduced.map(({ keepApart: _keepApart, ...s }) => ({ ...s, code: callsToCode(s.calls) }));
}
