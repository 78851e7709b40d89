// Rule-by-rule tests of docs/action-reduction.md §C beyond the Part E vectors.
import { describe, expect, it } from 'vitest';
import { callsToCode } from '../../../src/pipeline/code';
import type { ReduceContext, ReduceResult } from '../../../src/pipeline/reduce';
import { DEFAULT_REDUCE_CONSTANTS, reduce } from '../../../src/pipeline/reduce';
import { msToSeconds } from '../../../src/shared/clock';
import { isAppError } from '../../../src/shared/errors';
import type { Step } from '../../../src/shared/domain/step';
import { EventScript, TEST_CONTEXT } from './event-script';
import { extraOf, ownershipViolations } from './ownership';

function run(script: EventScript, context: ReduceContext = TEST_CONTEXT): ReduceResult {
  const result = reduce(script.events, context);
  expect(ownershipViolations(result, script.events)).toEqual([]);
  return result;
}

function codes(steps: readonly Step[]): string[] {
  return steps.map((step) => callsToCode(step.calls));
}

describe('pointer rules (§C.4)', () => {
  it('closes a press with a second down of the same button (MISSING_UP)', () => {
    const s = new EventScript();
    s.moveTo(10, 10).down().wait(100).down().wait(100).up();
    const { steps, diagnostics } = run(s);
    expect(steps.map((step) => step.kind)).toEqual(['click', 'click']);
    expect(steps[0]!.diagnostics).toEqual(['MISSING_UP']);
    expect(steps[0]!.endMs).toBe(s.events[6]!.tMs);
    expect(diagnostics).toContainEqual({
      code: 'MISSING_UP',
      idx: 5,
      detail: 'left button-down has no button-up',
    });
  });

  it('closes a press still open at the end of the stream at the last event time', () => {
    const s = new EventScript();
    s.moveTo(10, 10).down().moveTo(40, 10, 3);
    const { steps, unowned } = run(s);
    expect(steps.map((step) => step.kind)).toEqual(['dragTo']);
    expect(steps[0]!.diagnostics).toEqual(['MISSING_UP']);
    expect(steps[0]!.endMs).toBe(s.events[s.events.length - 1]!.tMs);
    expect(extraOf(steps[0]!).pathIdx).toEqual([6, 7, 8]);
    expect(unowned).toEqual([]);
  });

  it('reports a release without press as orphan-release', () => {
    const s = new EventScript();
    s.up('left').wait(10).keyUp('a').wait(10).keyUp('shift');
    const { steps, unowned } = run(s);
    expect(steps).toEqual([]);
    expect(unowned.map((entry) => entry.reason)).toEqual(Array(3).fill('orphan-release'));
  });

  it('exports right drags as left drags with NON_LEFT_DRAG_LOSSY', () => {
    const s = new EventScript();
    s.moveTo(100, 100).down('right').moveTo(200, 100, 3).up('right');
    const { steps } = run(s);
    expect(steps[0]!.description).toBe('Drag from (100, 100) to (200, 100)');
    expect(codes(steps)).toEqual([
      "pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.dragTo(x=0.1042, y=0.0926, button='left')",
    ]);
    expect(steps[0]!.diagnostics).toEqual(['NON_LEFT_DRAG_LOSSY']);
    expect(extraOf(steps[0]!).button).toBe('right');
  });

  it('writes x1 as "Single x1 Click" and leaves x2 without description (UNSUPPORTED_BUTTON)', () => {
    const s = new EventScript();
    s.moveTo(96, 108).click('x1').wait(700).click('x2').wait(700).click('middle');
    const { steps } = run(s);
    expect(steps.map((step) => [step.kind, step.description, step.diagnostics])).toEqual([
      ['click', 'Single x1 Click', ['UNSUPPORTED_BUTTON']],
      ['click', '', ['UNSUPPORTED_BUTTON']],
      ['middleClick', 'Single middle Click', []],
    ]);
    expect(codes(steps)).toEqual([
      'pyautogui.click(x=0.05, y=0.1)',
      'pyautogui.click(x=0.05, y=0.1)',
      'pyautogui.middleClick(x=0.05, y=0.1)',
    ]);
  });

  it('writes a right long press as "Mouse long press right button"', () => {
    const s = new EventScript();
    s.moveTo(96, 108).click('right', 1500);
    const { steps } = run(s);
    expect([steps[0]!.kind, steps[0]!.description, steps[0]!.label]).toEqual([
      'rightClick',
      'Mouse long press right button',
      'mouse_press',
    ]);
    expect(codes(steps)).toEqual(['pyautogui.rightClick(x=0.05, y=0.1)']);
  });

  it('clamps click coordinates outside the screen like the conversion', () => {
    const s = new EventScript();
    s.move(-20, 2000).click();
    expect(codes(run(s).steps)).toEqual(['pyautogui.click(x=0.0, y=1.0)']);
  });

  it('breaks a click group when other input comes between the clicks', () => {
    const s = new EventScript();
    s.moveTo(50, 50).click('left', 40).wait(40).tap('a', 20).wait(40).click('left', 40);
    expect(run(s).steps.map((step) => step.kind)).toEqual(['click', 'write', 'click']);
  });

  it('never groups a long press into a multi-click', () => {
    const s = new EventScript();
    s.moveTo(50, 50).click('left', 40).wait(100).click('left', 1200);
    expect(run(s).steps.map((step) => [step.kind, extraOf(step).longPress])).toEqual([
      ['click', false],
      ['click', true],
    ]);
  });
});

describe('scroll rules (§C.5)', () => {
  it('reports zero ticks as zero-wheel without breaking the group', () => {
    const s = new EventScript();
    s.moveTo(10, 10).wheel(0, 1).wait(20).wheel(0, 0).wait(20).wheel(0, 1);
    const { steps, unowned } = run(s);
    expect(codes(steps)).toEqual(['pyautogui.moveTo(x=0.0052, y=0.0093)\npyautogui.scroll(2)']);
    expect(unowned).toEqual([{ idx: 6, reason: 'zero-wheel' }]);
  });

  it('starts a new group beyond the merge radius or after other input', () => {
    const far = new EventScript();
    far.moveTo(100, 100).wheel(0, -1).move(133, 100).wheel(0, -1);
    expect(run(far).steps).toHaveLength(2);
    const near = new EventScript();
    near.moveTo(100, 100).wheel(0, -1).move(132, 100).wheel(0, -1);
    expect(run(near).steps).toHaveLength(1);
    const key = new EventScript();
    key.moveTo(100, 100).wheel(0, -1).wait(50).tap('a').wait(50).wheel(0, -1);
    expect(run(key).steps.map((step) => step.kind)).toEqual(['scroll', 'write', 'scroll']);
  });

  it('joins ticks up to the merge gap inclusive of the constant', () => {
    const s = new EventScript();
    s.moveTo(100, 100).wheel(0, -1).wait(2900).wheel(0, -1).wait(3100).wheel(0, -1);
    expect(codes(run(s).steps)).toEqual([
      'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.scroll(-2)',
      'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.scroll(-1)',
    ]);
  });

  it('keeps modifiers held while scrolling on the scroll step (Ctrl+wheel)', () => {
    const s = new EventScript();
    s.moveTo(100, 100).keyDown('ctrl_l').wait(40).wheel(0, 1).wait(40).wheel(0, 1).wait(40);
    s.keyUp('ctrl_l');
    const { steps, unowned } = run(s);
    expect(steps.map((step) => step.kind)).toEqual(['scroll']);
    expect(extraOf(steps[0]!).modifiers).toEqual(['ctrl']);
    expect(steps[0]!.diagnostics).toEqual(['MODIFIER_CLICK_LOSSY']);
    expect(unowned).toEqual([]);
  });
});

describe('keyboard rules (§C.6)', () => {
  it('emits named keys of a run as presses (kind press when nothing is written)', () => {
    const s = new EventScript();
    s.tap('enter').wait(80).tap('tab');
    expect(run(s).steps.map((step) => [step.kind, step.description])).toEqual([
      ['press', '⌨️ Type: $enter$$tab$'],
    ]);
  });

  it('counts auto-repeats as keystrokes of a run', () => {
    const s = new EventScript();
    s.keyDown('a').wait(500).keyDown('a').wait(30).keyDown('a', { isRepeat: true }).wait(30);
    s.keyUp('a').wait(50).keyDown('left').wait(500).keyDown('left').wait(30).keyDown('left');
    s.wait(30).keyUp('left');
    const { steps } = run(s);
    expect(codes(steps)).toEqual([
      "pyautogui.write(message='aaa')\npyautogui.press(keys=['left'])\n" +
        "pyautogui.press(keys=['left'])\npyautogui.press(keys=['left'])",
    ]);
    expect(extraOf(steps[0]!).keystrokes?.map((stroke) => stroke.isRepeat)).toEqual([
      false,
      true,
      true,
      false,
      true,
      true,
    ]);
  });

  it('ends a run at the last key-down + 0.2 s and owns moves between its keystrokes', () => {
    const s = new EventScript();
    s.type('ab').moveTo(50, 50, 3).type('c');
    const { steps } = run(s);
    expect(steps).toHaveLength(1);
    const lastDownS = msToSeconds(s.events[7]!.tMs);
    expect(msToSeconds(steps[0]!.endMs)).toBe(lastDownS + 0.2);
    expect(extraOf(steps[0]!).pathIdx).toEqual([4, 5, 6]);
  });

  it('splits a run at a click, a scroll tick and a modifier-only tap', () => {
    const s = new EventScript();
    s.type('ab').click().wait(100).type('cd').wheel(0, 1).wait(100).type('ef');
    s.tap('shift').wait(50).type('g');
    expect(run(s).steps.map((step) => step.kind)).toEqual([
      'write',
      'click',
      'write',
      'scroll',
      'write',
      'write',
    ]);
  });

  it('repeats a held chord as identical hotkey calls of one step', () => {
    const s = new EventScript();
    s.keyDown('ctrl_l').wait(30).keyDown('Z').wait(500).keyDown('Z', { isRepeat: true });
    s.wait(33).keyDown('Z', { isRepeat: true }).wait(33).keyUp('Z').wait(30).keyUp('ctrl_l');
    const { steps } = run(s);
    expect(codes(steps)).toEqual([
      Array(3).fill("pyautogui.hotkey(keys=['ctrl', 'z'])").join('\n'),
    ]);
    expect(steps[0]!.description).toBe('⌨️ Press: $ctrl$ + z');
    expect(steps[0]!.endMs).toBe(s.events[4]!.tMs);
  });

  it('ends a hotkey whose key is never released at key-down + 0.2 s', () => {
    const s = new EventScript();
    s.keyDown('alt_l').wait(30).keyDown('f4');
    const { steps } = run(s);
    expect(steps[0]!.description).toBe('⌨️ Press: $alt$ + $f4$');
    expect(msToSeconds(steps[0]!.endMs)).toBe(msToSeconds(s.events[1]!.tMs) + 0.2);
  });

  it('writes shift + named key as a shift hotkey (lossy downstream, still written)', () => {
    const s = new EventScript();
    s.keyDown('shift').wait(30).tap('tab').wait(30).keyUp('shift');
    const { steps } = run(s);
    expect([steps[0]!.kind, steps[0]!.description, callsToCode(steps[0]!.calls)]).toEqual([
      'hotkey',
      '⌨️ Press: $shift$ + $tab$',
      "pyautogui.hotkey(keys=['shift', 'tab'])",
    ]);
  });

  it('writes a lone alt tap as press(alt), and ctrl+"+" verbatim', () => {
    const alt = new EventScript();
    alt.tap('alt_l');
    expect(codes(run(alt).steps)).toEqual(["pyautogui.press(keys=['alt'])"]);
    const plus = new EventScript();
    plus.keyDown('ctrl_l').tap('+').keyUp('ctrl_l');
    expect(run(plus).steps[0]!.description).toBe('⌨️ Press: $ctrl$ + +');
  });

  it('treats characters typed under AltGr as text', () => {
    const s = new EventScript();
    s.keyDown('ctrl_l')
      .keyDown('alt_gr')
      .wait(30)
      .tap('@')
      .wait(30)
      .keyUp('alt_gr')
      .keyUp('ctrl_l');
    const { steps } = run(s);
    expect(codes(steps)).toEqual(["pyautogui.write(message='@')"]);
    expect(extraOf(steps[0]!).mainIdx).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('leaves the description empty when typed text cannot be written (but keeps the calls)', () => {
    const dollar = new EventScript();
    dollar.type('100$');
    const step = run(dollar).steps[0]!;
    expect([step.description, callsToCode(step.calls)]).toEqual([
      '',
      "pyautogui.write(message='100$')",
    ]);
    const clash = new EventScript();
    clash.type('single left click');
    expect(run(clash).steps[0]!.description).toBe('');
  });

  it('reports unknown key names (KEY_UNKNOWN) and produces no call for them in a run', () => {
    const s = new EventScript();
    s.type('a').tap('$Unknown (255)$').wait(50).tap('media_eject').wait(50).type('b');
    const { steps, diagnostics } = run(s);
    expect(codes(steps)).toEqual(["pyautogui.write(message='ab')"]);
    expect(steps[0]!.diagnostics).toEqual(['KEY_UNKNOWN']);
    expect(diagnostics.map((entry) => [entry.code, entry.idx])).toEqual([
      ['KEY_UNKNOWN', 2],
      ['KEY_UNKNOWN', 4],
    ]);
  });

  it('deletes a whole surrogate pair on backspace', () => {
    const s = new EventScript();
    s.type('a😀').tap('backspace');
    expect(codes(run(s).steps)).toEqual(["pyautogui.write(message='a')"]);
  });

  it('matches the release of Shift+a reported as "a" with the "A" down', () => {
    const s = new EventScript();
    s.keyDown('shift').keyDown('A').keyUp('shift').keyUp('a');
    const { steps, unowned } = run(s);
    expect(codes(steps)).toEqual(["pyautogui.write(message='A')"]);
    expect(unowned).toEqual([]);
  });

  it('on macOS treats cmd as Cmd (hotkey cmd+c)', () => {
    const s = new EventScript();
    s.keyDown('cmd').tap('c').keyUp('cmd');
    const mac = { ...TEST_CONTEXT, platform: 'darwin' as const };
    expect(codes(run(s, mac).steps)).toEqual(["pyautogui.hotkey(keys=['cmd', 'c'])"]);
    expect(codes(run(s).steps)).toEqual(["pyautogui.hotkey(keys=['win', 'c'])"]);
  });
});

describe('input handling (§C.1, §C.3) and options', () => {
  it('reports non-monotonic times and keeps idx order', () => {
    const s = new EventScript();
    s.moveTo(10, 10).click();
    s.events[2]!.tMs = s.events[1]!.tMs - 5;
    const { steps, diagnostics } = run(s);
    expect(steps).toHaveLength(1);
    expect(diagnostics.map((entry) => [entry.code, entry.idx])).toEqual([
      ['CLOCK_NON_MONOTONIC', 2],
    ]);
  });

  it('sorts events given out of idx order', () => {
    const s = new EventScript();
    s.moveTo(10, 10).click().wait(100).type('x');
    const shuffled = [...s.events].reverse();
    expect(reduce(shuffled, TEST_CONTEXT)).toEqual(reduce(s.events, TEST_CONTEXT));
  });

  it('applies explicit constants over the context and reports them', () => {
    const s = new EventScript();
    s.moveTo(100, 100).down().moveTo(108, 100, 2).up();
    expect(run(s).steps[0]!.kind).toBe('dragTo');
    const result = reduce(s.events, TEST_CONTEXT, { dragMinPx: 10 });
    expect(result.steps[0]!.kind).toBe('click');
    expect(result.constants).toEqual({ ...DEFAULT_REDUCE_CONSTANTS, dragMinPx: 10 });
  });

  it('rejects an invalid screen, scale factor or constant with INVALID_PAYLOAD', () => {
    const attempts = [
      () => reduce([], { ...TEST_CONTEXT, screen: { width: 0, height: 768 } }),
      () => reduce([], { ...TEST_CONTEXT, scaleFactor: 0 }),
      () => reduce([], TEST_CONTEXT, { longPressS: Number.NaN }),
      () => reduce([], TEST_CONTEXT, { maxClickCount: 0 }),
    ];
    for (const attempt of attempts) {
      let caught: unknown = null;
      try {
        attempt();
      } catch (error) {
        caught = error;
      }
      expect(isAppError(caught, 'INVALID_PAYLOAD')).toBe(true);
    }
  });

  it('returns an empty result for no events', () => {
    const result = reduce([], TEST_CONTEXT);
    expect([result.steps, result.unowned, result.diagnostics]).toEqual([[], [], []]);
    expect(result.reducerVersion).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
