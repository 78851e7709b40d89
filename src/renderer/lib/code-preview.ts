// A preview of the PyAutoGUI code of calls while they are being edited: the same formatter the
// pipeline uses (shared/python), so the preview is the code the step will be saved with. A call
// the formatter refuses (a value Python could not print) shows as a comment with the reason.
import type { ActionCall } from '../../shared/domain';
import { toCommand } from '../../shared/python/to-command';

// One call as code, e.g. `pyautogui.click(x=0.5, y=0.5)`.
export function callPreview(call: ActionCall): string {
  try {
    return toCommand(call);
  } catch (error) {
    return `# ${call.name}: ${(error as Error).message}`;
  }
}

// The calls as code lines joined with "\n".
export function callsPreview(calls: readonly ActionCall[]): string {
  return calls.map(callPreview).join('\n');
}
