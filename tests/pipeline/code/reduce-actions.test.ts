import { describe, expect, it } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain/action';
import { reduceActions } from '../../../src/pipeline/code/reduce-actions';

const write = (message: string): ActionCall => ({ name: 'write', args: { message } });
const press = (...keys: string[]): ActionCall => ({ name: 'press', args: { keys } });
const hotkey = (...keys: string[]): ActionCall => ({ name: 'hotkey', args: { keys } });

// docs/pyautogui-code.md §3.4.
const CASES: readonly [label: string, input: ActionCall[], expected: ActionCall[]][] = [
  ['1: press with an Unknown key is dropped', [press('Unknown (255)')], []],
  ['1: any key with Unknown drops the press', [press('a', 'xUnknownx')], []],
  ['1: a hotkey with Unknown is kept', [hotkey('Unknown')], [hotkey('Unknown')]],
  ['2: space after a write extends it', [write('a'), press('space')], [write('a ')]],
  ['2: space without a write stays', [press('space'), write('a')], [press('space'), write('a')]],
  [
    '2: a two-key press is not a space',
    [write('a'), press('space', 'space')],
    [write('a'), press('space', 'space')],
  ],
  ['3: writes concatenate', [write('a'), write('b'), write('c')], [write('abc')]],
  ['4: backspace eats a character', [write('ab'), press('backspace')], [write('a')]],
  ['4: backspace on an empty write vanishes', [write(''), press('backspace')], [write('')]],
  ['4: backspace removes a whole code point', [write('a😀'), press('backspace')], [write('a')]],
  [
    '4: backspace without a write stays',
    [press('backspace'), write('a')],
    [press('backspace'), write('a')],
  ],
  [
    '5: other calls are appended',
    [write('a'), press('enter'), write('b')],
    [write('a'), press('enter'), write('b')],
  ],
  [
    'write keeps its other keyword arguments',
    [{ name: 'write', args: { message: 'a', interval: { float: 0.1 } } }, write('b')],
    [{ name: 'write', args: { message: 'ab', interval: { float: 0.1 } } }],
  ],
];

describe('reduceActions (docs/pyautogui-code.md §3.4)', () => {
  it.each(CASES)('%s', (_label, input, expected) => {
    const before = structuredClone(input);
    expect(reduceActions(input)).toEqual(expected);
    expect(input).toEqual(before);
  });
});
