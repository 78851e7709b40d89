// The PyAutoGUI-style action space (docs/pyautogui-code.md §1).

/** Every call name of the action space. */
export const ACTION_NAMES = [
  'click',
  'doubleClick',
  'tripleClick',
  'rightClick',
  'middleClick',
  'moveTo',
  'dragTo',
  'scroll',
  'hscroll',
  'write',
  'press',
  'hotkey',
  'wait',
  'terminate',
] as const;
/** One of {@link ACTION_NAMES}. */
export type ActionName = (typeof ACTION_NAMES)[number];

/** A Python-typed argument value: ints and floats differ when printed (`-3` vs `-3.0`). */
export type PyValue = { int: number } | { float: number } | string | boolean | null | PyValue[];

/** One call, e.g. `pyautogui.click(x=0.5, y=0.5)`. Args keep insertion order. */
export type ActionCall = {
  name: ActionName;
  /** Keyword arguments in insertion order, or positional arguments when an array. */
  args: Record<string, PyValue> | PyValue[];
};
