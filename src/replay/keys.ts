// pyautogui key names (the vocabulary of the reduction, docs/action-reduction.md §C.6) → the
// key names of the replay driver (nut-js `Key` members, docs/replay.md §4). Pure.

/** What one pyautogui key becomes: a driver key, or a character typed as text. */
export type DriverKey = { key: string } | { text: string };

const NAMED: ReadonlyMap<string, string> = new Map([
  ['ctrl', 'LeftControl'],
  ['ctrlleft', 'LeftControl'],
  ['ctrlright', 'RightControl'],
  ['control', 'LeftControl'],
  ['alt', 'LeftAlt'],
  ['altleft', 'LeftAlt'],
  ['altright', 'RightAlt'],
  ['option', 'LeftAlt'],
  ['shift', 'LeftShift'],
  ['shiftleft', 'LeftShift'],
  ['shiftright', 'RightShift'],
  ['win', 'LeftSuper'],
  ['winleft', 'LeftSuper'],
  ['winright', 'RightSuper'],
  ['super', 'LeftSuper'],
  ['cmd', 'LeftCmd'],
  ['command', 'LeftCmd'],
  // Return, the main Enter key: nut-js's Enter is the keypad's (KP_Enter on X11)
  ['enter', 'Return'],
  ['return', 'Return'],
  ['\n', 'Return'],
  ['\r', 'Return'],
  ['esc', 'Escape'],
  ['escape', 'Escape'],
  ['tab', 'Tab'],
  ['\t', 'Tab'],
  ['backspace', 'Backspace'],
  ['\b', 'Backspace'],
  ['delete', 'Delete'],
  ['del', 'Delete'],
  ['insert', 'Insert'],
  ['home', 'Home'],
  ['end', 'End'],
  ['pageup', 'PageUp'],
  ['pgup', 'PageUp'],
  ['pagedown', 'PageDown'],
  ['pgdn', 'PageDown'],
  ['up', 'Up'],
  ['down', 'Down'],
  ['left', 'Left'],
  ['right', 'Right'],
  ['space', 'Space'],
  [' ', 'Space'],
  ['capslock', 'CapsLock'],
  ['numlock', 'NumLock'],
  ['scrolllock', 'ScrollLock'],
  ['pause', 'Pause'],
  ['printscreen', 'Print'],
  ['prtsc', 'Print'],
  ['prtscr', 'Print'],
  ['apps', 'Menu'],
  ['menu', 'Menu'],
  ['volumemute', 'AudioMute'],
  ['volumedown', 'AudioVolDown'],
  ['volumeup', 'AudioVolUp'],
  ['playpause', 'AudioPlay'],
  ['nexttrack', 'AudioNext'],
  ['prevtrack', 'AudioPrev'],
  ['add', 'Add'],
  ['subtract', 'Subtract'],
  ['multiply', 'Multiply'],
  ['divide', 'Divide'],
  ['decimal', 'Decimal'],
  ...Array.from({ length: 24 }, (_, i) => [`f${i + 1}`, `F${i + 1}`] as const),
  ...Array.from({ length: 10 }, (_, i) => [`num${i}`, `NumPad${i}`] as const),
]);

// Unshifted printable characters that are keys of their own on a US keyboard.
const PUNCTUATION: ReadonlyMap<string, string> = new Map([
  ['-', 'Minus'],
  ['=', 'Equal'],
  ['[', 'LeftBracket'],
  [']', 'RightBracket'],
  ['\\', 'Backslash'],
  [';', 'Semicolon'],
  ["'", 'Quote'],
  [',', 'Comma'],
  ['.', 'Period'],
  ['/', 'Slash'],
  ['`', 'Grave'],
]);

/**
 * The driver key of one pyautogui key name (`ctrl`, `enter`, `f5`, `a`, `7`, `-`), a character
 * to type for any other single printable character (`A`, `!`, `é`: typed as text, so the layout
 * decides the shift), or null for a name the driver cannot press.
 */
export function driverKey(name: string): DriverKey | null {
  const lower = name.length === 1 ? name : name.toLowerCase();
  const named = NAMED.get(lower);
  if (named !== undefined) {
    return { key: named };
  }
  if (/^[a-z]$/.test(lower)) {
    return { key: lower.toUpperCase() };
  }
  if (/^[0-9]$/.test(lower)) {
    return { key: `Num${lower}` };
  }
  const punctuation = PUNCTUATION.get(lower);
  if (punctuation !== undefined) {
    return { key: punctuation };
  }
  if ([...name].length === 1 && /^\P{C}$/u.test(name)) {
    return { text: name };
  }
  return null;
}

/**
 * The driver keys of a chord (`hotkey('ctrl', 'C')`): every member must be a key of its own
 * (a character is its lower-case key: a chord names keys, not text); null when one is not.
 */
export function chordKeys(names: readonly string[]): string[] | null {
  const keys: string[] = [];
  for (const name of names) {
    const k = driverKey(name.length === 1 ? name.toLowerCase() : name);
    if (k === null || !('key' in k)) {
      return null;
    }
    keys.push(k.key);
  }
  return keys;
}
