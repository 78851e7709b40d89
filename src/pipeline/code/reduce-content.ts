// `reduce_content` across steps (docs/pyautogui-code.md §3.5): drops empty and modifier-only steps,
// merges typing continuations and synthesises double clicks.
import type { ActionCall } from '../../shared/domain/action';
import { callKeys } from './call-args';
import { pyNumber } from '../../shared/python/py-value';
import { reduceActions } from './reduce-actions';

/**
 * One step of a trajectory: its GUIAction plus the screenshot shown before it.
 *
 * The reference works on `[system, image_0, task, action_0, image_1, action_1, …]`; here each step
 * carries its screenshot as `imageIndex` (the original event index). A dropped step loses its
 * screenshot; a merged step keeps the earlier step's screenshot. The task text always sits right
 * after the first surviving step's screenshot, so the reference's re-anchoring of the task text
 * (when step 0 is dropped) needs no representation here.
 */
export type ContentStep = {
  /** The GUIAction `instruction` (the vis label). */
  instruction: string;
  /** The GUIAction's calls (already reduced by `reduceActions`). */
  calls: ActionCall[];
  /** Index of the screenshot shown before the action (`<episode_id>_<imageIndex>.png`). */
  imageIndex: number;
  /**
   * True when a reviewer split this step off the one before it (issue 26 item 15): the boundary
   * is theirs, so no typing continuation or double click joins the two again. Absent on every
   * step of an unedited recording, whose reduction stays the reference's.
   */
  keepApart?: boolean;
};

const MODIFIER_ONLY_KEYS: ReadonlySet<string> = new Set(['shift', 'ctrl', 'cmd']);
const LITERAL_UNICODE_ESCAPE = /\\u[0-9a-fA-F]{4}/g;

function isModifierOnlyHotkey(call: ActionCall): boolean {
  const keys = call.name === 'hotkey' ? callKeys(call) : null;
  return keys !== null && keys.length === 1 && MODIFIER_ONLY_KEYS.has(keys[0] ?? '');
}

function coordinate(call: ActionCall, axis: 'x' | 'y'): number | null {
  return Array.isArray(call.args) ? null : pyNumber(call.args[axis]);
}

function isSameClickPoint(a: ActionCall, b: ActionCall): boolean {
  const ax = coordinate(a, 'x');
  const ay = coordinate(a, 'y');
  return ax !== null && ay !== null && ax === coordinate(b, 'x') && ay === coordinate(b, 'y');
}

// Applies the §3.5 rules in order and returns the surviving steps (inputs are not mutated).
export function reduceContent(steps: readonly ContentStep[]): ContentStep[] {
  const out: ContentStep[] = [];
  for (const step of steps) {
    const [first, ...rest] = step.calls;
    // 2. a step without calls disappears with its screenshot
    if (first === undefined) {
      continue;
    }
    const previousIndex = out.length - 1;
    const previous = out[previousIndex];
    const previousLast = previous?.calls[previous.calls.length - 1];
    if (previous !== undefined && previousLast !== undefined && step.keepApart !== true) {
      const instruction = `${previous.instruction} ${step.instruction}`;
      // 3. typing continuation: fold into the previous step and reduce again
      if (first.name === 'write' && previousLast.name === 'write') {
        const calls = reduceActions([...previous.calls, ...step.calls]);
        out[previousIndex] = { ...previous, instruction, calls };
        continue;
      }
      // 4. a click at exactly the previous click's point turns that click into a double click
      // (extra calls of this step, which description-built steps never have, are appended)
      if (
        first.name === 'click' &&
        previousLast.name === 'click' &&
        isSameClickPoint(first, previousLast)
      ) {
        const doubled: ActionCall = { ...previousLast, name: 'doubleClick' };
        const calls = [...previous.calls.slice(0, -1), doubled, ...rest];
        out[previousIndex] = { ...previous, instruction, calls };
        continue;
      }
    }
    // 5. a lone shift/ctrl/cmd hotkey disappears (alt and win survive)
    if (isModifierOnlyHotkey(first)) {
      continue;
    }
    // 6. keep, without literal `\uXXXX` sequences in the instruction
    out.push({ ...step, instruction: step.instruction.replace(LITERAL_UNICODE_ESCAPE, '') });
  }
  return out;
}
