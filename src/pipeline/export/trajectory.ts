// The exported trajectory: steps after OpenCUA's reduce_content, plus terminate, each with the
// index of the keyframe it shows (docs/pyautogui-code.md §2, §3.5, §5).
import type { ActionCall, Step } from '../../shared/domain';
import { callsToCode, reduceContent, type ContentStep } from '../code';

/** One exported step: instruction, calls, and which keyframe (original step index) it shows. */
export type TrajectoryStep = ContentStep & { code: string };

/** The terminate call appended to every trajectory. */
export function terminateCall(status: 'success' | 'failure' = 'success'): ActionCall {
  return { name: 'terminate', args: { status } };
}

/**
 * Steps (with calls) → the exported trajectory: OpenCUA's content reduction (typing continuation,
 * synthetic double click, dropped empty/modifier-only steps), then the terminate step whose
 * image index is `steps.length`.
 */
export function buildTrajectory(
  steps: readonly Pick<Step, 'label' | 'calls'>[],
  status: 'success' | 'failure' = 'success',
): TrajectoryStep[] {
  const content: ContentStep[] = steps.map((s, i) => ({
    instruction: s.label,
    calls: [...s.calls],
    imageIndex: i,
  }));
  const reduced = reduceContent(content);
  reduced.push({
    instruction: 'terminate',
    calls: [terminateCall(status)],
    imageIndex: steps.length,
  });
  return reduced.map((s) => ({ ...s, code: callsToCode(s.calls) }));
}
