// `Press: …` descriptions → hotkey, or typed text under the shift rule (docs/pyautogui-code.md §3.3).
import type { ActionCall } from '../../shared/domain/action';
import { applyCapsLock } from './caps-lock';
import { dropLastChar, hotkeyCall, pressCall, writeCall } from './call-args';
import { invalidCode } from '../../shared/python/code-error';
import { pyIsAlpha, pyIsDigit } from '../../shared/python/py-unicode';

const PRESS_MARKER = 'Press: ';
const NON_ASCII_EXTRAS = '）（！，、。โต；§';
/** S1: characters that, as the first character after `shift`, start text extraction. */
const SHIFT_TEXT_START: ReadonlySet<string> = new Set(
  Array.from(`_=+~!@#$%^&*()[]{}|:-"'<>?/.\\${NON_ASCII_EXTRAS}`),
);
/** S2: non-alphanumeric characters accepted inside shift text. */
const SHIFT_TEXT_CHARS: ReadonlySet<string> = new Set(
  Array.from(`-_+~!@#$%^&*()[]{}|:"'<>?/=.,;\`\\ –${NON_ASCII_EXTRAS}`),
);
const ASCII_LETTER = /^[A-Za-z]$/;

function countChar(text: string, char: string): number {
  return text.split(char).length - 1;
}

function splitKeys(description: string): string[] {
  const text = description.replaceAll('\n', '');
  const at = text.indexOf(PRESS_MARKER);
  if (at === -1) {
    throw invalidCode(
      `Cannot convert press description ${JSON.stringify(description)}: no "${PRESS_MARKER}"`,
      { description },
    );
  }
  const rest = text.slice(at + PRESS_MARKER.length);
  const rawKeys = text.includes('+') ? rest.split(' + ') : [rest];
  const keys: string[] = [];
  for (const rawKey of rawKeys) {
    let key = rawKey;
    if (key.startsWith('$') && key.endsWith('$') && countChar(key, '$') === 2) {
      key = key.slice(1, -1);
    }
    if (key.includes('$')) {
      const [first = '', ...others] = key.split('$');
      keys.push(first, ...others.filter((part) => part !== ''));
    } else {
      keys.push(key);
    }
  }
  return keys.filter((key) => key !== '');
}

function shiftTextCalls(keys: readonly string[], description: string): ActionCall[] {
  const calls: ActionCall[] = [];
  let text = '';
  keys.forEach((rawKey, index) => {
    const key = applyCapsLock(rawKey);
    if (key === 'backspace') {
      if (text === '') {
        calls.push(pressCall(['backspace']));
      } else {
        text = dropLastChar(text);
      }
    } else if (key === 'space') {
      text += ' ';
    } else if (key === 'enter' || key === 'tab') {
      if (text !== '') {
        calls.push(writeCall(text));
        text = '';
      }
      calls.push(pressCall([key]));
    } else {
      for (const char of key) {
        if (ASCII_LETTER.test(char)) {
          text += index === 0 && text === '' ? char.toUpperCase() : char;
        } else if (pyIsDigit(char) || SHIFT_TEXT_CHARS.has(char)) {
          text += char;
        } else {
          throw invalidCode(
            `Cannot convert press description ${JSON.stringify(description)}: character ` +
              `${JSON.stringify(char)} cannot be typed with shift (the OpenCUA converter aborts)`,
            { description, char },
          );
        }
      }
    }
  });
  if (text !== '') {
    calls.push(writeCall(text));
  }
  return calls.length === 0 ? [hotkeyCall(['shift'])] : calls;
}

// Converts a `Press: …` description: a hotkey, or (shift without ctrl/cmd) typed text.
export function pressCalls(description: string): ActionCall[] {
  const keys = splitKeys(description);
  const [first, second] = keys;
  if (first === undefined) {
    // The reference indexes keys[0] here and fails (assumption: it raises).
    throw invalidCode(`Cannot convert press description ${JSON.stringify(description)}: no keys`, {
      description,
    });
  }
  if (first !== 'shift' || keys.includes('cmd') || keys.includes('ctrl')) {
    return [hotkeyCall(keys)];
  }
  if (second === undefined) {
    return [hotkeyCall(['shift'])];
  }
  if (keys.length === 2 && second === 'enter') {
    return [hotkeyCall(['shift', 'enter'])];
  }
  const startChar = Array.from(second)[0] ?? '';
  if (pyIsAlpha(startChar) || pyIsDigit(startChar) || SHIFT_TEXT_START.has(startChar)) {
    return shiftTextCalls(keys.slice(1), description);
  }
  // e.g. `shift + ⬆`: the step disappears later (docs/pyautogui-code.md §3.5).
  return [];
}
