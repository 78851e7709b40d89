// `reduce_actions` (docs/pyautogui-code.md §3.4): folds spaces, backspaces and adjacent writes in a step.
import type { ActionCall } from '../../shared/domain/action';
import { callKeys, dropLastChar, withMessage, writeMessage } from './call-args';

function isSingleKeyPress(call: ActionCall, key: string): boolean {
  if (call.name !== 'press') {
    return false;
  }
  const keys = callKeys(call);
  return keys !== null && keys.length === 1 && keys[0] === key;
}

// Reduces one step's calls like the reference (never mutates the input calls).
export function reduceActions(calls: readonly ActionCall[]): ActionCall[] {
  const out: ActionCall[] = [];
  for (const call of calls) {
    // 1. presses of unknown keys vanish (hotkeys with `Unknown` are kept)
    if (call.name === 'press' && (callKeys(call) ?? []).some((key) => key.includes('Unknown'))) {
      continue;
    }
    const lastIndex = out.length - 1;
    const last = out[lastIndex];
    const lastMessage = last === undefined ? null : writeMessage(last);
    if (last !== undefined && lastMessage !== null) {
      const message = writeMessage(call);
      if (isSingleKeyPress(call, 'space')) {
        // 2. a space press extends the previous write
        out[lastIndex] = withMessage(last, `${lastMessage} `);
        continue;
      }
      if (message !== null) {
        // 3. consecutive writes are concatenated
        out[lastIndex] = withMessage(last, lastMessage + message);
        continue;
      }
      if (isSingleKeyPress(call, 'backspace')) {
        // 4. a backspace eats the previous write's last character (and disappears)
        out[lastIndex] = withMessage(last, dropLastChar(lastMessage));
        continue;
      }
    }
    out.push(call);
  }
  return out;
}
