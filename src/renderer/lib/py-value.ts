// Reading and building the typed Python values of ActionCall arguments (browser-side copy of the
// few guards the renderer needs; the pipeline's own helpers are not importable here).
import type { ActionCall, PyValue } from '../../shared/domain';

// Numeric value of a Python int/float argument, else null.
export function pyNumberOf(value: PyValue | undefined): number | null {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    if ('int' in value) {
      return value.int;
    }
    if ('float' in value) {
      return value.float;
    }
  }
  return null;
}

// String value of an argument, else null.
export function pyStringOf(value: PyValue | undefined): string | null {
  return typeof value === 'string' ? value : null;
}

// List of strings (e.g. `keys=['ctrl', 'c']`), else null.
export function pyStringListOf(value: PyValue | undefined): string[] | null {
  if (!Array.isArray(value)) {
    return null;
  }
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string') {
      return null;
    }
    out.push(item);
  }
  return out;
}

// Argument `name` of a call (keyword form), or positional `index` when the args are a list.
export function callArg(call: ActionCall, name: string, index: number): PyValue | undefined {
  if (Array.isArray(call.args)) {
    return call.args[index];
  }
  return call.args[name];
}

// Keys of a press/hotkey call in either form (`keys=[…]`, `press('enter')`, `hotkey('a', 'b')`).
export function callKeys(call: ActionCall): string[] | null {
  if (Array.isArray(call.args)) {
    const first = call.args[0];
    if (Array.isArray(first)) {
      return pyStringListOf(first);
    }
    return pyStringListOf(call.args);
  }
  const keys = call.args.keys;
  if (typeof keys === 'string') {
    return [keys];
  }
  return pyStringListOf(keys);
}

// Normalised x/y of a pointer call, else null.
export function callPoint(call: ActionCall): { x: number; y: number } | null {
  const x = pyNumberOf(callArg(call, 'x', 0));
  const y = pyNumberOf(callArg(call, 'y', 1));
  return x === null || y === null ? null : { x, y };
}
