// ActionCall → one line of Python code, byte for byte like the reference `to_command` (§4).
import type { ActionCall, ActionName, PyValue } from '../domain/action';
import { pyRepr, pyRound4 } from './py-format';
import { isPyFloat, pyFloat } from './py-value';

/** Calls of the ComputerAction class (printed with the `computer.` prefix). */
const COMPUTER_CALLS: ReadonlySet<ActionName> = new Set<ActionName>([
  'tripleClick',
  'wait',
  'terminate',
]);
/** A single keyword argument with one of these names prints as its bare value (`scroll(-3)`). */
const BARE_KEYS_PYAUTOGUI: ReadonlySet<string> = new Set(['clicks', 'amount', 'page']);
const BARE_KEYS_COMPUTER: ReadonlySet<string> = new Set(['clicks', 'amount']);

// True when the call belongs to the `computer.` namespace (tripleClick, wait, terminate).
export function isComputerCall(name: ActionName): boolean {
  return COMPUTER_CALLS.has(name);
}

function roundValue(value: PyValue, intoLists: boolean): PyValue {
  if (isPyFloat(value)) {
    return pyFloat(pyRound4(value.float));
  }
  if (intoLists && Array.isArray(value)) {
    return value.map((item) => roundValue(item, intoLists));
  }
  return value;
}

// Formats one call: `pyautogui.click(x=0.5, y=0.5)`, `pyautogui.scroll(-3)`, `computer.wait()`.
export function toCommand(call: ActionCall): string {
  const isComputer = isComputerCall(call.name);
  const prefix = isComputer ? 'computer' : 'pyautogui';
  // Floats are rounded to 4 decimals: top-level values only for pyautogui, recursively for
  // computer. Positional arguments are rounded like top-level keyword values (assumption).
  const format = (value: PyValue): string => pyRepr(roundValue(value, isComputer));
  if (Array.isArray(call.args)) {
    return `${prefix}.${call.name}(${call.args.map(format).join(', ')})`;
  }
  const entries = Object.entries(call.args);
  const bareKeys = isComputer ? BARE_KEYS_COMPUTER : BARE_KEYS_PYAUTOGUI;
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only !== undefined && bareKeys.has(only[0])) {
    return `${prefix}.${call.name}(${format(only[1])})`;
  }
  const text = entries.map(([key, value]) => `${key}=${format(value)}`).join(', ');
  return `${prefix}.${call.name}(${text})`;
}

// A step's code: its calls formatted and joined with "\n".
export function callsToCode(calls: readonly ActionCall[]): string {
  return calls.map(toCommand).join('\n');
}
