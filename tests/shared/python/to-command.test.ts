import { describe, expect, it } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain/action';
import { callsToCode, toCommand } from '../../../src/shared/python/to-command';

const f = (value: number) => ({ float: value });
const i = (value: number) => ({ int: value });

// docs/pyautogui-code.md §1 (code shapes) and §4 (formatting rules).
const COMMAND_VECTORS: readonly [label: string, call: ActionCall, expected: string][] = [
  [
    'click',
    { name: 'click', args: { x: f(0.1632), y: f(0.2711) } },
    'pyautogui.click(x=0.1632, y=0.2711)',
  ],
  [
    'click rounds top-level floats',
    { name: 'click', args: { x: f(1328 / 1366), y: f(745 / 768) } },
    'pyautogui.click(x=0.9722, y=0.9701)',
  ],
  [
    'tripleClick is a computer call',
    { name: 'tripleClick', args: { x: f(10 / 1366), y: f(20 / 768) } },
    'computer.tripleClick(x=0.0073, y=0.026)',
  ],
  [
    'dragTo keeps insertion order',
    { name: 'dragTo', args: { x: f(561 / 1366), y: f(213 / 768), button: 'left' } },
    "pyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
  ],
  [
    'moveTo with the int quirk',
    { name: 'moveTo', args: { x: i(0), y: i(0) } },
    'pyautogui.moveTo(x=0, y=0)',
  ],
  [
    'scroll prints the bare int',
    { name: 'scroll', args: { clicks: i(-3) } },
    'pyautogui.scroll(-3)',
  ],
  ['hscroll', { name: 'hscroll', args: { clicks: i(4) } }, 'pyautogui.hscroll(4)'],
  ['float clicks keep .0', { name: 'scroll', args: { clicks: f(-3) } }, 'pyautogui.scroll(-3.0)'],
  ['amount is bare', { name: 'scroll', args: { amount: i(2) } }, 'pyautogui.scroll(2)'],
  ['page is bare for pyautogui', { name: 'press', args: { page: 'x' } }, "pyautogui.press('x')"],
  [
    'page is not bare for computer',
    { name: 'wait', args: { page: i(1) } },
    'computer.wait(page=1)',
  ],
  ['clicks is bare for computer', { name: 'wait', args: { clicks: i(1) } }, 'computer.wait(1)'],
  [
    'two keys are never bare',
    { name: 'scroll', args: { clicks: i(-3), x: f(0.5) } },
    'pyautogui.scroll(clicks=-3, x=0.5)',
  ],
  ['write', { name: 'write', args: { message: 'SPOTIFY' } }, "pyautogui.write(message='SPOTIFY')"],
  [
    'write quote choice',
    { name: 'write', args: { message: "it's" } },
    `pyautogui.write(message="it's")`,
  ],
  ['press', { name: 'press', args: { keys: ['enter'] } }, "pyautogui.press(keys=['enter'])"],
  [
    'hotkey',
    { name: 'hotkey', args: { keys: ['ctrl', 'c'] } },
    "pyautogui.hotkey(keys=['ctrl', 'c'])",
  ],
  ['wait without args', { name: 'wait', args: {} }, 'computer.wait()'],
  [
    'terminate',
    { name: 'terminate', args: { status: 'success' } },
    "computer.terminate(status='success')",
  ],
  [
    'terminate failure',
    { name: 'terminate', args: { status: 'failure' } },
    "computer.terminate(status='failure')",
  ],
  [
    'pyautogui does not round inside lists',
    { name: 'moveTo', args: { x: [f(1 / 3)] } },
    'pyautogui.moveTo(x=[0.3333333333333333])',
  ],
  [
    'computer rounds inside lists',
    { name: 'wait', args: { a: [f(1 / 3), [f(2 / 3)]] } },
    'computer.wait(a=[0.3333, [0.6667]])',
  ],
  ['positional args', { name: 'click', args: [f(0.5), f(1 / 3)] }, 'pyautogui.click(0.5, 0.3333)'],
  ['positional strings', { name: 'hotkey', args: ['ctrl', 'c'] }, "pyautogui.hotkey('ctrl', 'c')"],
  [
    'None and bools',
    { name: 'click', args: { a: null, b: true } },
    'pyautogui.click(a=None, b=True)',
  ],
  [
    'signed zero survives rounding',
    { name: 'click', args: { x: f(-1e-5), y: f(1e-5) } },
    'pyautogui.click(x=-0.0, y=0.0)',
  ],
];

describe('toCommand', () => {
  it.each(COMMAND_VECTORS)('%s', (_label, call, expected) => {
    expect(toCommand(call)).toBe(expected);
  });
});

describe('callsToCode', () => {
  it('joins calls with a newline', () => {
    const calls: ActionCall[] = [
      { name: 'moveTo', args: { x: f(621 / 1366), y: f(206 / 768) } },
      { name: 'dragTo', args: { x: f(561 / 1366), y: f(213 / 768), button: 'left' } },
    ];
    expect(callsToCode(calls)).toBe(
      "pyautogui.moveTo(x=0.4546, y=0.2682)\npyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
    );
  });

  it('gives an empty string for no calls', () => {
    expect(callsToCode([])).toBe('');
  });
});
