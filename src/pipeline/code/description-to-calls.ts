// AgentNet description → calls: port of `build_actions` + `reduce_actions` (docs/pyautogui-code.md §3).
import type { ActionCall } from '../../shared/domain/action';
import { assertNever } from '../../shared/assert';
import { invalidCode } from '../../shared/python/code-error';
import { descriptionType } from './description-type';
import { clickCalls, dragCalls } from './pointer-calls';
import { pressCalls } from './press-calls';
import { reduceActions } from './reduce-actions';
import type { ScreenSize } from './screen-size';
import { assertScreenSize } from './screen-size';
import type { ScrollTick } from './scroll-calls';
import { scrollCalls } from './scroll-calls';
import { typeTextCalls } from './type-text-calls';

export { stage1Description } from './stage1-description';
export type { Stage1Row } from './stage1-description';

function buildCalls(
  description: string,
  screen: ScreenSize,
  trace: readonly ScrollTick[] | null | undefined,
): ActionCall[] {
  const type = descriptionType(description);
  if (type === null) {
    throw invalidCode(
      `Cannot convert description ${JSON.stringify(description)}: no action type matches ` +
        '(the OpenCUA converter aborts the whole episode)',
      { description },
    );
  }
  switch (type) {
    case 'click':
    case 'doubleClick':
    case 'tripleClick':
    case 'rightClick':
    case 'middleClick':
      return clickCalls(type, description, screen);
    case 'write':
      return typeTextCalls(description);
    case 'press':
      return pressCalls(description);
    case 'dragTo':
      return dragCalls(description, screen);
    case 'scroll':
      return scrollCalls(description, screen, trace);
    case 'terminate':
      return [{ name: 'terminate', args: { status: 'success' } }];
    default:
      return assertNever(type, 'description type');
  }
}

// Converts one stage-1 description (coordinates in screen pixels) into the step's calls; an empty
// list means the step disappears in `reduceContent`. Throws INVALID_PAYLOAD where the reference
// aborts the conversion.
export function descriptionToCalls(
  description: string,
  screen: ScreenSize,
  trace?: readonly ScrollTick[] | null,
): ActionCall[] {
  assertScreenSize(screen);
  return reduceActions(buildCalls(description, screen, trace));
}
