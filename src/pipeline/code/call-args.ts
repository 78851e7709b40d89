// Builders and readers for the keyword arguments of write/press/hotkey calls.
import type { ActionCall } from '../../shared/domain/action';

// `write(message=…)`.
export function writeCall(message: string): ActionCall {
  return { name: 'write', args: { message } };
}

// `press(keys=[…])`.
export function pressCall(keys: readonly string[]): ActionCall {
  return { name: 'press', args: { keys: [...keys] } };
}

// `hotkey(keys=[…])`.
export function hotkeyCall(keys: readonly string[]): ActionCall {
  return { name: 'hotkey', args: { keys: [...keys] } };
}

// The `message` of a keyword-form write call, else null.
export function writeMessage(call: ActionCall): string | null {
  if (call.name !== 'write' || Array.isArray(call.args)) {
    return null;
  }
  const message = call.args.message;
  return typeof message === 'string' ? message : null;
}

// The string `keys` of a keyword-form call (press, hotkey), else null.
export function callKeys(call: ActionCall): string[] | null {
  if (Array.isArray(call.args)) {
    return null;
  }
  const keys = call.args.keys;
  if (!Array.isArray(keys)) {
    return null;
  }
  const strings: string[] = [];
  for (const key of keys) {
    if (typeof key !== 'string') {
      return null;
    }
    strings.push(key);
  }
  return strings;
}

// A copy of a write call with another message (other keyword arguments kept in place).
export function withMessage(call: ActionCall, message: string): ActionCall {
  return Array.isArray(call.args) ? call : { ...call, args: { ...call.args, message } };
}

// Python `text[:-1]`: drops the last code point.
export function dropLastChar(text: string): string {
  // O(1): only a surrogate pair at the end counts as two code units
  const last = text.codePointAt(text.length - 2);
  const isPair = text.length >= 2 && last !== undefined && last > 0xffff;
  return text.slice(0, isPair ? -2 : -1);
}
