// `Type: …` descriptions → write/press calls (docs/pyautogui-code.md §3.3 "write").
import type { ActionCall } from '../../shared/domain/action';
import { applyCapsLock } from './caps-lock';
import { pressCall, writeCall } from './call-args';

const TYPE_MARKER = 'Type: ';

// Splits the text after the last `Type: ` into text segments (write) and `$key$` segments (press).
export function typeTextCalls(description: string): ActionCall[] {
  // Python `description.split('Type: ')[-1]`: the whole text when the marker is absent.
  const at = description.lastIndexOf(TYPE_MARKER);
  const text = at === -1 ? description : description.slice(at + TYPE_MARKER.length);
  const calls: ActionCall[] = [];
  let current = '';
  let isKeyOpen = false;
  for (const char of text) {
    if (char !== '$') {
      current += char;
      continue;
    }
    if (isKeyOpen) {
      if (current !== '') {
        calls.push(pressCall([current]));
      }
    } else if (current !== '') {
      calls.push(writeCall(applyCapsLock(current)));
    }
    current = '';
    isKeyOpen = !isKeyOpen;
  }
  // Remaining text is typed text, even inside an unclosed `$` (`100$ off` → `100 off`).
  if (current !== '') {
    calls.push(writeCall(applyCapsLock(current)));
  }
  return calls;
}
