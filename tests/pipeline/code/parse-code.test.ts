import { describe, expect, it } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain/action';
import { isAppError } from '../../../src/shared/errors';
import { parseCode } from '../../../src/pipeline/code/parse-code';
import { callsToCode } from '../../../src/shared/python/to-command';
import { descriptionToCalls } from '../../../src/pipeline/code/description-to-calls';

const f = (value: number) => ({ float: value });
const i = (value: number) => ({ int: value });

// Tolerant forms of docs/pyautogui-code.md §1 (plus Python literal syntax) → canonical calls.
const TOLERANT: readonly [code: string, expected: ActionCall[]][] = [
  ['pyautogui.click(x=0.5, y=0.5)', [{ name: 'click', args: { x: f(0.5), y: f(0.5) } }]],
  ['pyautogui.click(0.5, 0.5)', [{ name: 'click', args: { x: f(0.5), y: f(0.5) } }]],
  ['pyautogui.click((0.5, 0.25))', [{ name: 'click', args: { x: f(0.5), y: f(0.25) } }]],
  ['pyautogui.click(x=1, y=1.0)', [{ name: 'click', args: { x: i(1), y: f(1) } }]],
  [
    'pyautogui.click(x=0.5, y=0.5, button="right")',
    [{ name: 'click', args: { x: f(0.5), y: f(0.5), button: 'right' } }],
  ],
  ['computer.triple_click(0.1, 0.2)', [{ name: 'tripleClick', args: { x: f(0.1), y: f(0.2) } }]],
  [
    'pyautogui.tripleClick(x=0.1, y=0.2)',
    [{ name: 'tripleClick', args: { x: f(0.1), y: f(0.2) } }],
  ],
  ['computer.tripleClick(x=0.1, y=0.2)', [{ name: 'tripleClick', args: { x: f(0.1), y: f(0.2) } }]],
  [
    "pyautogui.dragTo(button='left', y=0.2, x=0.1)",
    [{ name: 'dragTo', args: { x: f(0.1), y: f(0.2), button: 'left' } }],
  ],
  ["pyautogui.typewrite('x')", [{ name: 'write', args: { message: 'x' } }]],
  ["pyautogui.write('x')", [{ name: 'write', args: { message: 'x' } }]],
  [
    "pyautogui.write(message='x', interval=0.1)",
    [{ name: 'write', args: { message: 'x', interval: f(0.1) } }],
  ],
  ["pyautogui.typewrite(['a', 'enter'])", [{ name: 'press', args: { keys: ['a', 'enter'] } }]],
  ["pyautogui.press('enter')", [{ name: 'press', args: { keys: ['enter'] } }]],
  ["pyautogui.press(keys='tab')", [{ name: 'press', args: { keys: ['tab'] } }]],
  ["pyautogui.press(keys=['enter'])", [{ name: 'press', args: { keys: ['enter'] } }]],
  [
    "pyautogui.press('enter', presses=3)",
    [{ name: 'press', args: { keys: ['enter', 'enter', 'enter'] } }],
  ],
  [
    "pyautogui.press(['a', 'b'], presses=2, interval=0.5)",
    [{ name: 'press', args: { keys: ['a', 'b', 'a', 'b'], interval: f(0.5) } }],
  ],
  ["pyautogui.press('a', presses=1)", [{ name: 'press', args: { keys: ['a'] } }]],
  ["pyautogui.hotkey('ctrl', 'c')", [{ name: 'hotkey', args: { keys: ['ctrl', 'c'] } }]],
  ["pyautogui.hotkey(['ctrl', 'c'])", [{ name: 'hotkey', args: { keys: ['ctrl', 'c'] } }]],
  ["pyautogui.hotkey(keys=['ctrl', 'c'])", [{ name: 'hotkey', args: { keys: ['ctrl', 'c'] } }]],
  ["pyautogui.hotkey('enter')", [{ name: 'hotkey', args: { keys: ['enter'] } }]],
  ['computer.wait()', [{ name: 'wait', args: {} }]],
  ['computer.wait(2)', [{ name: 'wait', args: { seconds: i(2) } }]],
  ['computer.wait(seconds=0.5)', [{ name: 'wait', args: { seconds: f(0.5) } }]],
  ["computer.terminate(status='success')", [{ name: 'terminate', args: { status: 'success' } }]],
  ["computer.terminate('failure')", [{ name: 'terminate', args: { status: 'failure' } }]],
  ['pyautogui.scroll(-3)', [{ name: 'scroll', args: { clicks: i(-3) } }]],
  ['pyautogui.scroll(clicks=-3.0)', [{ name: 'scroll', args: { clicks: f(-3) } }]],
  ['pyautogui.scroll(- 3)', [{ name: 'scroll', args: { clicks: i(-3) } }]],
  ['pyautogui.scroll(+3)', [{ name: 'scroll', args: { clicks: i(3) } }]],
  ['pyautogui.scroll(-0)', [{ name: 'scroll', args: { clicks: i(0) } }]],
  ['pyautogui.hscroll(1_000)', [{ name: 'hscroll', args: { clicks: i(1000) } }]],
  ['pyautogui.hscroll(0x10)', [{ name: 'hscroll', args: { clicks: i(16) } }]],
  [
    'pyautogui.scroll(5, 0.5, 0.25)',
    [{ name: 'scroll', args: { clicks: i(5), x: f(0.5), y: f(0.25) } }],
  ],
  ['pyautogui.moveTo(x=.5, y=5e-1)', [{ name: 'moveTo', args: { x: f(0.5), y: f(0.5) } }]],
  ['pyautogui.moveTo(x=-0.0, y=1.)', [{ name: 'moveTo', args: { x: f(-0), y: f(1) } }]],
  ['pyautogui.moveTo(x=0, y=0)', [{ name: 'moveTo', args: { x: i(0), y: i(0) } }]],
  ['pyautogui.click(x=None, y=True)', [{ name: 'click', args: { x: null, y: true } }]],
  [`pyautogui.write("it's")`, [{ name: 'write', args: { message: "it's" } }]],
  [`pyautogui.write('say "hi" it\\'s')`, [{ name: 'write', args: { message: `say "hi" it's` } }]],
  [
    String.raw`pyautogui.write('a\nb\tc\r\x07\u200b\U0001F600\101\0\q\\\a\b\f\v\"\'')`,
    [{ name: 'write', args: { message: 'a\nb\tc\r\x07\u200b😀A\0\\q\\\x07\b\f\v"\'' } }],
  ],
  [
    String.raw`pyautogui.write(r'C:\new\'x')`,
    [{ name: 'write', args: { message: "C:\\new\\'x" } }],
  ],
  [`pyautogui.write('a' "b" u'c')`, [{ name: 'write', args: { message: 'abc' } }]],
  ["pyautogui.write('''two\nlines''')", [{ name: 'write', args: { message: 'two\nlines' } }]],
  ["pyautogui.write('joined \\\nline')", [{ name: 'write', args: { message: 'joined line' } }]],
  ["pyautogui.write('中文 😀')", [{ name: 'write', args: { message: '中文 😀' } }]],
  ['pyautogui.write(message="")', [{ name: 'write', args: { message: '' } }]],
  [
    "pyautogui.click(0.1, 0.2); pyautogui.press('enter');",
    [
      { name: 'click', args: { x: f(0.1), y: f(0.2) } },
      { name: 'press', args: { keys: ['enter'] } },
    ],
  ],
  [
    "# a comment\n\n  pyautogui.hotkey(\n    'ctrl',\n    'c',  # copy\n  )\r\ncomputer.wait()\n",
    [
      { name: 'hotkey', args: { keys: ['ctrl', 'c'] } },
      { name: 'wait', args: {} },
    ],
  ],
  ['pyautogui.click(x=0.5, \\\n y=0.5)', [{ name: 'click', args: { x: f(0.5), y: f(0.5) } }]],
  ['\uFEFFpyautogui.scroll(1)', [{ name: 'scroll', args: { clicks: i(1) } }]],
  ['', []],
  ['  \n\n', []],
];

// Malformed input: [code, line, column, message].
const ERRORS: readonly [code: string, line: number, column: number, message: RegExp][] = [
  ['pyautogui.click(x=0.5,, y=0.5)', 1, 23, /expected a value but found ","/],
  ['pyautogui.foo()', 1, 11, /unknown call "foo"/],
  ['os.system("ls")', 1, 1, /expected a call starting with "pyautogui\." or "computer\."/],
  ['click(x=0.5)', 1, 1, /expected a call starting/],
  ["pyautogui.click(x=0.5)\npyautogui.write('abc)", 2, 17, /unterminated string literal/],
  ['pyautogui.click(x=0.5, 0.5)', 1, 24, /positional argument follows keyword argument/],
  ['pyautogui.click(x=0.5, x=0.6)', 1, 24, /multiple values for argument x/],
  ["pyautogui.hotkey('ctrl', keys=['c'])", 1, 26, /multiple values for argument keys/],
  ['pyautogui.click(0.1, 0.2, 3, 0.1, "left", 0, None, 1)', 1, 52, /too many positional/],
  ['pyautogui.write(f"x")', 1, 17, /string prefix "f" is not supported/],
  ['pyautogui.scroll(007)', 1, 18, /leading zeros/],
  ['pyautogui.scroll(1j)', 1, 18, /invalid number literal/],
  ["pyautogui.press('a', presses=2.0)", 1, 22, /presses must be an int/],
  ['pyautogui.press(keys=3)', 1, 17, /keys must be a string or a list/],
  [String.raw`pyautogui.write("\N{BULLET}")`, 1, 18, /\\N\{…\} escapes are not supported/],
  [String.raw`pyautogui.write("\x4")`, 1, 18, /truncated \\x escape/],
  [String.raw`pyautogui.write("\U00110000")`, 1, 18, /not a Unicode code point/],
  ['pyautogui.click(x=0.5) pyautogui.click(x=0.5)', 1, 24, /expected end of line/],
  ['pyautogui.click(x=-"a")', 1, 19, /unary - needs a number/],
  ['pyautogui.click(x=foo)', 1, 19, /unsupported name "foo"/],
  ['pyautogui.click(x=0.5))', 1, 23, /unmatched "\)"/],
  ['pyautogui.click(x=0.5', 1, 22, /unclosed bracket/],
  ['pyautogui.click(x={})', 1, 19, /expected a value but found "\{"/],
  ['pyautogui.click(x=$)', 1, 19, /unexpected character "\$"/],
  ['pyautogui.click', 1, 16, /expected "\(" but found end of input/],
  ['pyautogui.\nclick()', 1, 11, /expected a call name but found end of line/],
  ["\n\n   pyautogui.write('a'\n   'b' + 'c')", 4, 8, /expected "," but found "\+"/],
];

describe('parseCode: tolerant forms', () => {
  it.each(TOLERANT)('%j', (code, expected) => {
    expect(parseCode(code)).toEqual(expected);
  });
});

describe('parseCode: malformed input names line and column', () => {
  it.each(ERRORS)('%j → line %i, column %i', (code, line, column, message) => {
    let caught: unknown;
    try {
      parseCode(code);
    } catch (error) {
      caught = error;
    }
    expect(isAppError(caught, 'INVALID_PAYLOAD')).toBe(true);
    if (!isAppError(caught)) {
      return;
    }
    expect(caught.message).toMatch(message);
    expect(caught.message).toContain(`line ${line}, column ${column}`);
    expect(caught.details).toEqual({ line, column });
  });
});

// Canonical calls (4-decimal floats, typed ints, canonical keyword names and order).
const CANONICAL: readonly ActionCall[] = [
  { name: 'click', args: { x: f(0.9722), y: f(0.9701) } },
  { name: 'doubleClick', args: { x: f(0.0732), y: f(0.2604) } },
  { name: 'tripleClick', args: { x: f(0.0073), y: f(0.026) } },
  { name: 'rightClick', args: { x: f(1), y: f(1) } },
  { name: 'middleClick', args: { x: f(0), y: f(-0) } },
  { name: 'moveTo', args: { x: i(0), y: i(1) } },
  { name: 'dragTo', args: { x: f(0.4107), y: f(0.2773), button: 'left' } },
  { name: 'scroll', args: { clicks: i(-3) } },
  { name: 'hscroll', args: { clicks: i(4) } },
  { name: 'write', args: { message: `say "hi" it's \\ \n\t\r\x07\x7f\u200b 中文 😀 ünï` } },
  { name: 'write', args: { message: "it's" } },
  { name: 'press', args: { keys: ['enter'] } },
  { name: 'press', args: { keys: [] } },
  { name: 'hotkey', args: { keys: ['ctrl', 'shift', 'T'] } },
  { name: 'wait', args: {} },
  { name: 'terminate', args: { status: 'success' } },
  { name: 'terminate', args: { status: 'failure' } },
];

/** Deterministic pseudo-random generator (LCG) so the fuzz cases are reproducible. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('round trip parseCode(callsToCode(calls))', () => {
  it('gives back equal canonical calls', () => {
    expect(parseCode(callsToCode(CANONICAL))).toEqual(CANONICAL);
  });

  it('keeps every §4.2 code unchanged', () => {
    const descriptions = [
      'Single left Click (683, 384)',
      'Triple left Click (10, 20)',
      'Drag from (1366, 768) to (1400, -3)',
      'Type: abc$enter$def',
      `Type: say "hi" it's`,
      '⌨️ Press: $ctrl$ + $shift$ + T',
      'Scroll ↙×1',
      'terminate the task',
    ];
    for (const description of descriptions) {
      const code = callsToCode(descriptionToCalls(description, { width: 1366, height: 768 }));
      expect(callsToCode(parseCode(code))).toBe(code);
    }
  });

  it('round-trips arbitrary strings through repr and the string literal parser', () => {
    const random = lcg(20241106);
    for (let n = 0; n < 500; n += 1) {
      let message = '';
      const length = Math.floor(random() * 12);
      for (let k = 0; k < length; k += 1) {
        const pick = random();
        const limit = pick < 0.4 ? 0x80 : pick < 0.7 ? 0x800 : pick < 0.9 ? 0x10000 : 0x110000;
        let codePoint = Math.floor(random() * limit);
        if (codePoint >= 0xd800 && codePoint <= 0xdfff) {
          codePoint = 0x27;
        }
        message += String.fromCodePoint(codePoint);
      }
      const call: ActionCall = { name: 'write', args: { message } };
      expect(parseCode(callsToCode([call]))).toEqual([call]);
    }
  });
});
