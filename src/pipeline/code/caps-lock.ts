// caps_lock processing of typed text (docs/pyautogui-code.md §3.3, write and shift rules).

const CAPS_LOCK = 'caps_lock';

// Removes every literal `caps_lock` and upper-cases the text after the 1st, 3rd, 5th… marker.
export function applyCapsLock(text: string): string {
  const parts = text.split(CAPS_LOCK);
  return parts.map((part, index) => (index % 2 === 1 ? part.toUpperCase() : part)).join('');
}
