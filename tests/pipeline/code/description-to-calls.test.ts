import { describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/shared/errors';
import type { ScrollTick } from '../../../src/pipeline/code/scroll-calls';
import { descriptionToCalls } from '../../../src/pipeline/code/description-to-calls';
import type { DescriptionType } from '../../../src/pipeline/code/description-type';
import { descriptionType } from '../../../src/pipeline/code/description-type';
import { callsToCode } from '../../../src/shared/python/to-command';

const SCREEN = { width: 1366, height: 768 };
const ERROR = Symbol('conversion aborts');
const tick = (x: number, y: number, dx: number, dy: number): ScrollTick => ({ x, y, dx, dy });

type Row = {
  description: string;
  type: DescriptionType | null;
  /** Calls joined by "\n"; '' = no calls (step dropped); ERROR = the conversion aborts. */
  code: string | typeof ERROR;
  trace?: ScrollTick[];
};

const row = (
  description: string,
  type: DescriptionType | null,
  code: string | typeof ERROR,
  trace?: ScrollTick[],
): Row => ({ description, type, code, trace });
const lines = (...calls: string[]): string => calls.join('\n');

// docs/pyautogui-code.md §4.2 (screen 1366×768; verified), one row per description.
const ROWS: readonly Row[] = [
  row('Single left Click (683, 384)', 'click', 'pyautogui.click(x=0.5, y=0.5)'),
  row('Double left Click (100, 200)', 'doubleClick', 'pyautogui.doubleClick(x=0.0732, y=0.2604)'),
  row('Triple left Click (10, 20)', 'tripleClick', 'computer.tripleClick(x=0.0073, y=0.026)'),
  row('Single right Click (1366, 800)', 'rightClick', 'pyautogui.rightClick(x=1.0, y=1.0)'),
  row('Single middle Click (5, 5)', 'middleClick', 'pyautogui.middleClick(x=0.0037, y=0.0065)'),
  row('Mouse long press left button (300, 300)', 'click', 'pyautogui.click(x=0.2196, y=0.3906)'),
  row('Mouse long press left button: (300, 300)', 'click', 'pyautogui.click(x=0.2196, y=0.3906)'),
  row('Double right Click (1, 1)', 'rightClick', 'pyautogui.rightClick(x=0.0007, y=0.0013)'),
  row('Single x1 Click (10, 10)', 'click', 'pyautogui.click(x=0.0073, y=0.013)'),
  row('Single left Click (0, 0)', 'click', 'pyautogui.click(x=0.0, y=0.0)'),
  row('Single left Click (-5, 900)', 'click', 'pyautogui.click(x=0.0, y=1.0)'),
  row('Double middle Click (5, 5)', null, ERROR),
  row('Triple right Click (5,5)', null, ERROR),
  row('Single x2 Click (5,5)', null, ERROR),
  row('Mouse long press x1 button (5, 5)', 'press', ERROR),
  row('Type: hello world', 'write', "pyautogui.write(message='hello world')"),
  row(
    'Type: abc$enter$def',
    'write',
    lines(
      "pyautogui.write(message='abc')",
      "pyautogui.press(keys=['enter'])",
      "pyautogui.write(message='def')",
    ),
  ),
  row('Type: ab$backspace$c', 'write', "pyautogui.write(message='ac')"),
  row('Type: a$backspace$$backspace$b', 'write', "pyautogui.write(message='b')"),
  row(
    'Type: $backspace$a',
    'write',
    lines("pyautogui.press(keys=['backspace'])", "pyautogui.write(message='a')"),
  ),
  row(
    'Type: x$tab$',
    'write',
    lines("pyautogui.write(message='x')", "pyautogui.press(keys=['tab'])"),
  ),
  row('Type: caps_lockabccaps_lockdef', 'write', "pyautogui.write(message='ABCdef')"),
  row('⌨️ Type: page_downcaps_locka', 'write', "pyautogui.write(message='page_downA')"),
  row('Type: a$$b', 'write', "pyautogui.write(message='ab')"),
  row('Type: a$space$b', 'write', "pyautogui.write(message='a b')"),
  row('⌨️ Type: hello$space$world', 'write', "pyautogui.write(message='hello world')"),
  row(
    'Type: $space$a',
    'write',
    lines("pyautogui.press(keys=['space'])", "pyautogui.write(message='a')"),
  ),
  row(
    '⌨️ Type: $space$$space$x',
    'write',
    lines(
      "pyautogui.press(keys=['space'])",
      "pyautogui.press(keys=['space'])",
      "pyautogui.write(message='x')",
    ),
  ),
  row("Type: it's", 'write', `pyautogui.write(message="it's")`),
  row(`Type: say "hi" it's`, 'write', `pyautogui.write(message='say "hi" it\\'s')`),
  row('Type: a$Unknown (255)$b', 'write', "pyautogui.write(message='ab')"),
  row('⌨️ Type: 100$ off', 'write', "pyautogui.write(message='100 off')"),
  row('⌨️ Type: Type: nested', 'write', "pyautogui.write(message='nested')"),
  row('⌨️ Type: 中文输入', 'write', "pyautogui.write(message='中文输入')"),
  row('Type: ', 'write', ''),
  row('⌨️ Type: $enter$', 'write', "pyautogui.press(keys=['enter'])"),
  row(
    '⌨️ Type: $tab$$tab$$tab$',
    'write',
    lines(
      "pyautogui.press(keys=['tab'])",
      "pyautogui.press(keys=['tab'])",
      "pyautogui.press(keys=['tab'])",
    ),
  ),
  row('Press: enter', 'press', "pyautogui.hotkey(keys=['enter'])"),
  row('Press: ctrl + c', 'press', "pyautogui.hotkey(keys=['ctrl', 'c'])"),
  row('Press: $cmd$ + v', 'press', "pyautogui.hotkey(keys=['cmd', 'v'])"),
  row('⌨️ Press: $ctrl$ + $shift$ + T', 'press', "pyautogui.hotkey(keys=['ctrl', 'shift', 'T'])"),
  row('⌨️ Press: $ctrl$ + AC', 'press', "pyautogui.hotkey(keys=['ctrl', 'AC'])"),
  row('⌨️ Press: $ctrl$ + +', 'press', "pyautogui.hotkey(keys=['ctrl', '+'])"),
  row('⌨️ Press: $alt$ + $shift$ + x', 'press', "pyautogui.hotkey(keys=['alt', 'shift', 'x'])"),
  row(
    '⌨️ Press: $ctrl$ + $alt$ + $delete$',
    'press',
    "pyautogui.hotkey(keys=['ctrl', 'alt', 'delete'])",
  ),
  row('⌨️ Press: $ctrl$ + $enter$', 'press', "pyautogui.hotkey(keys=['ctrl', 'enter'])"),
  row('⌨️ Press: $ctrl$ + $space$', 'press', "pyautogui.hotkey(keys=['ctrl', 'space'])"),
  row('Press: shift + a + b', 'press', "pyautogui.write(message='Ab')"),
  row('Press: shift + h + i + space + backspace', 'press', "pyautogui.write(message='Hi')"),
  row('⌨️ Press: $shift$ + Hello', 'press', "pyautogui.write(message='Hello')"),
  row('Press: shift + 1 + a', 'press', "pyautogui.write(message='1a')"),
  row('Press: shift + left', 'press', "pyautogui.write(message='Left')"),
  row('Press: shift + alt + x', 'press', "pyautogui.write(message='Altx')"),
  row('⌨️ Press: $shift$ + $tab$', 'press', "pyautogui.press(keys=['tab'])"),
  row('Press: shift + enter', 'press', "pyautogui.hotkey(keys=['shift', 'enter'])"),
  row('⌨️ Press: $shift$ + $enter$', 'press', "pyautogui.hotkey(keys=['shift', 'enter'])"),
  row('Press: shift', 'press', "pyautogui.hotkey(keys=['shift'])"),
  row('Press: shift + ⬆', 'press', ''),
  row('Press: shift + é', 'press', ERROR),
  row('Press: $alt$', 'press', "pyautogui.hotkey(keys=['alt'])"),
  row('Press: win', 'press', "pyautogui.hotkey(keys=['win'])"),
  row('⌨️ Press: $ctrl$', 'press', "pyautogui.hotkey(keys=['ctrl'])"),
  row('⌨️ Press: $cmd$', 'press', "pyautogui.hotkey(keys=['cmd'])"),
  row('Press: Unknown', 'press', "pyautogui.hotkey(keys=['Unknown'])"),
  row('⌨️ Long Press: $ctrl$ + 2 Clicks', 'press', "pyautogui.hotkey(keys=['ctrl', '2 Clicks'])"),
  row('⌨️ Long Press: $shift$', 'press', "pyautogui.hotkey(keys=['shift'])"),
  row(
    'Drag from (621, 206) to (561, 213)',
    'dragTo',
    lines(
      'pyautogui.moveTo(x=0.4546, y=0.2682)',
      "pyautogui.dragTo(x=0.4107, y=0.2773, button='left')",
    ),
  ),
  row(
    'Drag from (0,0) to (0, 0)',
    'dragTo',
    lines('pyautogui.moveTo(x=0, y=0)', "pyautogui.dragTo(x=0, y=0, button='left')"),
  ),
  row(
    'Drag from (1366, 768) to (1400, -3)',
    'dragTo',
    lines('pyautogui.moveTo(x=1.0, y=1.0)', "pyautogui.dragTo(x=1, y=0, button='left')"),
  ),
  row('Scroll ⬆️×2 ⬇️×5', 'scroll', 'pyautogui.scroll(-3)'),
  row('Scroll ➡️×4', 'scroll', 'pyautogui.hscroll(4)'),
  row('Scroll ⬅️×1', 'scroll', 'pyautogui.hscroll(-1)'),
  row('Scroll ➡️×1', 'scroll', ''),
  row('Scroll ↗️×2', 'scroll', lines('pyautogui.scroll(2)', 'pyautogui.hscroll(2)')),
  row('Scroll ↙×1', 'scroll', lines('pyautogui.scroll(-1)', 'pyautogui.hscroll(-1)')),
  row('Scroll ↗×2', 'scroll', ERROR),
  row('Scroll ⬅️/Left×2', 'scroll', ERROR),
  row(
    'Scroll ⬇️×3  ',
    'scroll',
    lines('pyautogui.moveTo(x=0.396, y=0.7839)', 'pyautogui.scroll(-3)'),
    [tick(541, 602, 0, -1), tick(541, 599, 0, -1), tick(542, 596, 0, -1)],
  ),
  row(
    'Scroll',
    'scroll',
    lines('pyautogui.moveTo(x=0.0732, y=0.1302)', 'pyautogui.hscroll(3)', 'pyautogui.scroll(1)'),
    [tick(100, 100, 2, 0), tick(100, 100, 1, 1)],
  ),
  row('Scroll', 'scroll', lines('pyautogui.moveTo(x=0, y=0)', 'pyautogui.scroll(1)'), [
    tick(0, -4, 0, 1),
  ]),
  row('Scroll', 'scroll', lines('pyautogui.moveTo(x=1.0, y=1.0)', 'pyautogui.scroll(1)'), [
    tick(1366, 768, 0, 1),
  ]),
  row('Scroll', 'scroll', 'pyautogui.moveTo(x=1.0, y=1.0)', [
    tick(1400, 800, 1, -1),
    tick(1400, 800, -1, 1),
  ]),
  row(
    'Scroll ⬇️×6  ⬆️×4  ',
    'scroll',
    lines('pyautogui.moveTo(x=0.7936, y=1.0)', 'pyautogui.scroll(-2)'),
    [
      tick(1084, 779, 0, -1),
      ...Array.from({ length: 5 }, () => tick(1085, 779, 0, -1)),
      ...Array.from({ length: 4 }, () => tick(1085, 779, 0, 1)),
    ],
  ),
  row('terminate the task', 'terminate', "computer.terminate(status='success')"),
];

describe('descriptionToCalls (docs/pyautogui-code.md §4.2)', () => {
  it.each(ROWS.map((r) => [r.description, r]))('%s', (_description, r) => {
    const convert = () => callsToCode(descriptionToCalls(r.description, SCREEN, r.trace));
    if (r.code === ERROR) {
      expect(convert).toThrow(expect.objectContaining({ code: 'INVALID_PAYLOAD' }));
      try {
        convert();
      } catch (error) {
        expect(isAppError(error, 'INVALID_PAYLOAD')).toBe(true);
      }
    } else {
      expect(convert()).toBe(r.code);
    }
  });
});

// Not in the verified table: consequences of the §3.3 rules as written (shift text extraction,
// S1 vs S2, caps_lock, `$` splitting inside press keys).
const DERIVED: readonly Row[] = [
  row(
    'Press: shift + enter + a',
    'press',
    lines("pyautogui.press(keys=['enter'])", "pyautogui.write(message='a')"),
  ),
  row(
    'Press: shift + backspace + a',
    'press',
    lines("pyautogui.press(keys=['backspace'])", "pyautogui.write(message='a')"),
  ),
  row(
    'Press: shift + a + tab + b',
    'press',
    lines(
      "pyautogui.write(message='A')",
      "pyautogui.press(keys=['tab'])",
      "pyautogui.write(message='b')",
    ),
  ),
  row('Press: shift + a + , + ;', 'press', "pyautogui.write(message='A,;')"),
  row('Press: shift + ,', 'press', ''),
  row('Press: shift + （', 'press', "pyautogui.write(message='（')"),
  row('Press: shift + ²', 'press', "pyautogui.write(message='²')"),
  row('Press: shift + caps_lock', 'press', "pyautogui.hotkey(keys=['shift'])"),
  row('Press: shift + caps_lockab', 'press', "pyautogui.write(message='AB')"),
  row('Press: shift + ctrl + a', 'press', "pyautogui.hotkey(keys=['shift', 'ctrl', 'a'])"),
  row('Press: $ctrl$$shift$ + a', 'press', "pyautogui.hotkey(keys=['ctrl', 'shift', 'a'])"),
  row('Press: ctrl+c', 'press', "pyautogui.hotkey(keys=['ctrl+c'])"),
  row('Press: a\nb', 'press', "pyautogui.hotkey(keys=['ab'])"),
  row(
    'Type: $caps_lock$abc',
    'write',
    lines("pyautogui.press(keys=['caps_lock'])", "pyautogui.write(message='abc')"),
  ),
  row('Type: a caps_lockbcaps_lockc caps_lockd', 'write', "pyautogui.write(message='a Bc D')"),
  row('Scroll ⬆️×2 ⬇️×2', 'scroll', 'pyautogui.scroll(0)'),
  row('Scroll ↘×2 ↖×1', 'scroll', lines('pyautogui.scroll(-1)', 'pyautogui.hscroll(1)')),
  row('Single left Click (1e3, inf)', 'click', 'pyautogui.click(x=0.7321, y=1.0)'),
  row('Single left Click ( 1_0 , +5.5 )', 'click', 'pyautogui.click(x=0.0073, y=0.0072)'),
];

describe('descriptionToCalls (derived from the §3.3 rules)', () => {
  it.each(DERIVED.map((r) => [r.description, r]))('%s', (_description, r) => {
    expect(callsToCode(descriptionToCalls(r.description, SCREEN, r.trace))).toBe(r.code);
  });
});

describe('descriptionType (docs/agentnet-raw-format.md §12.2)', () => {
  it.each(ROWS.map((r) => [r.description, r.type]))('%s → %s', (description, type) => {
    expect(descriptionType(description)).toBe(type);
  });
});

describe('typed arguments', () => {
  it('click-family coordinates are always floats at full precision', () => {
    expect(descriptionToCalls('Single left Click (1328, 745)', SCREEN)).toEqual([
      {
        name: 'click',
        args: { x: { float: 0.972181551976574 }, y: { float: 0.9700520833333334 } },
      },
    ]);
    expect(descriptionToCalls('Single left Click (0, 0)', SCREEN)).toEqual([
      { name: 'click', args: { x: { float: 0 }, y: { float: 0 } } },
    ]);
  });

  it('drag clamps return the Python ints 0 and 1', () => {
    expect(descriptionToCalls('Drag from (1366, 768) to (1400, -3)', SCREEN)).toEqual([
      { name: 'moveTo', args: { x: { float: 1 }, y: { float: 1 } } },
      { name: 'dragTo', args: { x: { int: 1 }, y: { int: 0 }, button: 'left' } },
    ]);
  });

  it('scroll clicks are ints and the trace anchor keeps the int quirk', () => {
    expect(descriptionToCalls('Scroll', SCREEN, [tick(0, -4, 0, 1)])).toEqual([
      { name: 'moveTo', args: { x: { int: 0 }, y: { int: 0 } } },
      { name: 'scroll', args: { clicks: { int: 1 } } },
    ]);
  });

  it('an empty trace falls back to the arrow tokens', () => {
    expect(callsToCode(descriptionToCalls('Scroll ⬆️×2', SCREEN, []))).toBe('pyautogui.scroll(2)');
  });
});

describe('errors', () => {
  it.each([
    ['no action type', 'Hover over (5, 5)', /no action type matches/],
    ['missing coordinate', 'Single left Click', /no "\(x, y\)" coordinate/],
    ['three coordinates', 'Single left Click (1, 2, 3)', /coordinate/],
    ['bad drag', 'Drag from (1, 2)', /coordinates/],
    ['no Press: marker', 'Mouse long press x1 button (5, 5)', /no "Press: "/],
    ['shift + é', 'Press: shift + é', /cannot be typed with shift/],
    ['no scroll arrow', 'Scroll ↗×2', /no known scroll arrow/],
    ['bad scroll count', 'Scroll ⬆️×two', /not "<arrow>×<integer>"/],
    ['empty press', 'Press: ', /no keys/],
  ])('%s', (_label, description, message) => {
    expect(() => descriptionToCalls(description, SCREEN)).toThrow(message);
  });

  it('rejects a non-positive screen size', () => {
    expect(() => descriptionToCalls('Single left Click (1, 1)', { width: 0, height: 768 })).toThrow(
      /Screen size/,
    );
  });
});
