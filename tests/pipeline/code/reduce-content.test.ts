import { describe, expect, it } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain/action';
import type { ContentStep } from '../../../src/pipeline/code/reduce-content';
import { reduceContent } from '../../../src/pipeline/code/reduce-content';
import { descriptionToCalls } from '../../../src/pipeline/code/description-to-calls';
import { callsToCode } from '../../../src/shared/python/to-command';

const SCREEN = { width: 1366, height: 768 };
const click = (x: number, y: number): ActionCall => ({
  name: 'click',
  args: { x: { float: x }, y: { float: y } },
});
const write = (message: string): ActionCall => ({ name: 'write', args: { message } });
const press = (...keys: string[]): ActionCall => ({ name: 'press', args: { keys } });
const hotkey = (...keys: string[]): ActionCall => ({ name: 'hotkey', args: { keys } });
const step = (instruction: string, calls: ActionCall[], imageIndex: number): ContentStep => ({
  instruction,
  calls,
  imageIndex,
});

type Case = [label: string, input: ContentStep[], expected: ContentStep[]];

// docs/pyautogui-code.md §3.5, one case per rule (and the rule order).
const CASES: readonly Case[] = [
  [
    'rule 1: steps with calls are copied through',
    [step('a', [click(0.1, 0.2)], 0), step('b', [write('x')], 1)],
    [step('a', [click(0.1, 0.2)], 0), step('b', [write('x')], 1)],
  ],
  [
    'rule 2: a step without calls disappears with its screenshot',
    [step('a', [click(0.1, 0.2)], 0), step('empty', [], 1), step('c', [click(0.3, 0.4)], 2)],
    [step('a', [click(0.1, 0.2)], 0), step('c', [click(0.3, 0.4)], 2)],
  ],
  [
    'rule 2 at step 0: the next screenshot becomes the first',
    [step('empty', [], 0), step('empty too', [], 1), step('c', [click(0.3, 0.4)], 2)],
    [step('c', [click(0.3, 0.4)], 2)],
  ],
  [
    'rule 3: a write after a write is folded into the earlier step',
    [step('type', [write('ab')], 0), step('more', [write('c')], 1)],
    [step('type more', [write('abc')], 0)],
  ],
  [
    'rule 3 runs reduce_actions again over the joined calls',
    [
      step('type', [press('enter'), write('ab')], 0),
      step('fix', [write('x'), press('backspace')], 3),
    ],
    [step('type fix', [press('enter'), write('ab')], 0)],
  ],
  [
    'rule 3 needs the previous step to end with a write',
    [step('a', [write('a'), press('enter')], 0), step('b', [write('b')], 1)],
    [step('a', [write('a'), press('enter')], 0), step('b', [write('b')], 1)],
  ],
  [
    'rule 3 looks past dropped steps',
    [step('a', [write('a')], 0), step('shift', [hotkey('shift')], 1), step('b', [write('b')], 2)],
    [step('a b', [write('ab')], 0)],
  ],
  [
    'rule 4: a click at exactly the same point makes a double click',
    [step('first', [click(0.5, 0.25)], 0), step('second', [click(0.5, 0.25)], 1)],
    [
      step(
        'first second',
        [{ name: 'doubleClick', args: { x: { float: 0.5 }, y: { float: 0.25 } } }],
        0,
      ),
    ],
  ],
  [
    'rule 4: a third click stays a click',
    [
      step('1', [click(0.5, 0.5)], 0),
      step('2', [click(0.5, 0.5)], 1),
      step('3', [click(0.5, 0.5)], 2),
    ],
    [
      step('1 2', [{ name: 'doubleClick', args: { x: { float: 0.5 }, y: { float: 0.5 } } }], 0),
      step('3', [click(0.5, 0.5)], 2),
    ],
  ],
  [
    'rule 4: a different point is a separate click',
    [step('a', [click(0.5, 0.5)], 0), step('b', [click(0.5, 0.5001)], 1)],
    [step('a', [click(0.5, 0.5)], 0), step('b', [click(0.5, 0.5001)], 1)],
  ],
  [
    'rule 5: lone shift, ctrl and cmd hotkeys disappear',
    [
      step('s', [hotkey('shift')], 0),
      step('c', [hotkey('ctrl')], 1),
      step('m', [hotkey('cmd')], 2),
      step('keep', [hotkey('ctrl', 'c')], 3),
    ],
    [step('keep', [hotkey('ctrl', 'c')], 3)],
  ],
  [
    'rule 5: alt and win survive',
    [step('alt', [hotkey('alt')], 0), step('win', [hotkey('win')], 1)],
    [step('alt', [hotkey('alt')], 0), step('win', [hotkey('win')], 1)],
  ],
  [
    'rule 6: literal \\uXXXX sequences are removed from kept instructions',
    [step('Click \\u00e9t\\u00E9 \\u12', [click(0.1, 0.1)], 0)],
    [step('Click t \\u12', [click(0.1, 0.1)], 0)],
  ],
  [
    'rule 6 does not apply to an instruction joined by rule 3',
    [step('a', [write('a')], 0), step('b \\u0041', [write('b')], 1)],
    [step('a b \\u0041', [write('ab')], 0)],
  ],
];

describe('reduceContent (docs/pyautogui-code.md §3.5)', () => {
  it.each(CASES)('%s', (_label, input, expected) => {
    const before = structuredClone(input);
    expect(reduceContent(input)).toEqual(expected);
    expect(input).toEqual(before);
  });

  it('drops the steps the §4.2 table marks as dropped, from descriptions', () => {
    const descriptions = [
      'Type: ',
      'Press: shift',
      'Type: hello$space$',
      'Type: world',
      'Scroll ➡️×1',
      'Press: shift + ⬆',
      '⌨️ Press: $ctrl$',
      '⌨️ Press: $cmd$',
      'Press: $alt$',
      'Single left Click (683, 384)',
      'Single left Click (683, 384)',
      'Press: win',
    ];
    const steps = descriptions.map((description, index) =>
      step(description, descriptionToCalls(description, SCREEN), index),
    );
    const reduced = reduceContent(steps);
    expect(reduced.map((s) => [s.imageIndex, s.instruction, callsToCode(s.calls)])).toEqual([
      [2, 'Type: hello$space$ Type: world', "pyautogui.write(message='hello world')"],
      [8, 'Press: $alt$', "pyautogui.hotkey(keys=['alt'])"],
      [
        9,
        'Single left Click (683, 384) Single left Click (683, 384)',
        'pyautogui.doubleClick(x=0.5, y=0.5)',
      ],
      [11, 'Press: win', "pyautogui.hotkey(keys=['win'])"],
    ]);
  });
});
