// Synthetic vectors of docs/action-reduction.md Part E and the Part B bugs that Part C fixes.
import { describe, expect, it } from 'vitest';
import { callsToCode } from '../../../src/pipeline/code';
import type { ReduceContext, ReduceResult } from '../../../src/pipeline/reduce';
import { reduce } from '../../../src/pipeline/reduce';
import { msToSeconds } from '../../../src/shared/clock';
import type { Step } from '../../../src/shared/domain/step';
import { EventScript, TEST_CONTEXT } from './event-script';
import { extraOf, ownershipViolations } from './ownership';

function run(script: EventScript, context: ReduceContext = TEST_CONTEXT): ReduceResult {
  const result = reduce(script.events, context);
  expect(ownershipViolations(result, script.events)).toEqual([]);
  return result;
}

/** The parts of a step most vectors assert, in one comparable object. */
function summary(step: Step) {
  return { kind: step.kind, description: step.description, code: callsToCode(step.calls) };
}

function seconds(ms: number): number {
  return msToSeconds(ms);
}

describe('Part E vectors', () => {
  it('Ctrl↓ Shift↓ T↓ T↑ Ctrl↑ Shift↑ → hotkey ctrl+shift+t (B.1 overlapping releases)', () => {
    const s = new EventScript();
    s.keyDown('ctrl_l').wait(50).keyDown('shift').wait(50).keyDown('T').wait(50).keyUp('T');
    s.wait(50).keyUp('ctrl_l').wait(50).keyUp('shift');
    const { steps, unowned } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'hotkey',
        description: '⌨️ Press: $ctrl$ + $shift$ + t',
        code: "pyautogui.hotkey(keys=['ctrl', 'shift', 't'])",
      },
    ]);
    expect(unowned).toEqual([]);
    expect(extraOf(steps[0]!).mainIdx).toEqual([0, 1, 2, 3, 4, 5]);
    expect(steps[0]!.eventStartIdx).toBe(0);
    // start = chord key-down, end = chord key-up
    expect(steps[0]!.startMs).toBe(s.events[2]!.tMs);
    expect(steps[0]!.endMs).toBe(s.events[3]!.tMs);
  });

  it('Ctrl↓ A↓↑ C↓↑ Ctrl↑ → two hotkey steps (B.2)', () => {
    const s = new EventScript();
    s.keyDown('ctrl_l').wait(80).tap('A').wait(200).tap('C').wait(80).keyUp('ctrl_l');
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'hotkey',
        description: '⌨️ Press: $ctrl$ + a',
        code: "pyautogui.hotkey(keys=['ctrl', 'a'])",
      },
      {
        kind: 'hotkey',
        description: '⌨️ Press: $ctrl$ + c',
        code: "pyautogui.hotkey(keys=['ctrl', 'c'])",
      },
    ]);
    // the modifier's down and up belong to the first chord step of the hold
    expect(extraOf(steps[0]!).mainIdx).toEqual([0, 1, 2, 5]);
    expect(extraOf(steps[1]!).mainIdx).toEqual([3, 4]);
    expect(steps.map((step) => step.id)).toEqual(['r:0', 'r:3']);
  });

  it('Ctrl↓ click click Ctrl↑ (0.8 s apart) → two clicks with modifiers ctrl (B.3)', () => {
    const s = new EventScript();
    s.moveTo(100, 100).keyDown('ctrl_l').wait(100).click().wait(800).click().wait(100);
    s.keyUp('ctrl_l');
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'click',
        description: 'Single left Click',
        code: 'pyautogui.click(x=0.0521, y=0.0926)',
      },
      {
        kind: 'click',
        description: 'Single left Click',
        code: 'pyautogui.click(x=0.0521, y=0.0926)',
      },
    ]);
    for (const step of steps) {
      expect(extraOf(step).modifiers).toEqual(['ctrl']);
      expect(step.diagnostics).toEqual(['MODIFIER_CLICK_LOSSY']);
    }
    // the Ctrl events are owned by the first click
    expect(extraOf(steps[0]!).mainIdx).toEqual([5, 6, 7, 10]);
  });

  it('Shift↓ click Shift↑ → click with modifiers shift', () => {
    const s = new EventScript();
    s.moveTo(500, 500).keyDown('shift').wait(100).click().wait(100).keyUp('shift');
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      { kind: 'click', description: 'Single left Click', code: expect.any(String) },
    ]);
    expect(extraOf(steps[0]!).modifiers).toEqual(['shift']);
  });

  it('4 left clicks at one point 0.2 s apart → tripleClick (1–3) + click', () => {
    const s = new EventScript();
    s.moveTo(683, 540);
    for (let i = 0; i < 4; i += 1) {
      s.click('left', 60).wait(140);
    }
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'tripleClick',
        description: 'Triple left Click',
        code: 'computer.tripleClick(x=0.3557, y=0.5)',
      },
      { kind: 'click', description: 'Single left Click', code: 'pyautogui.click(x=0.3557, y=0.5)' },
    ]);
    const [triple] = steps;
    expect(extraOf(triple!).clickCount).toBe(3);
    // end = release of the last click of the group (§C.9)
    expect(triple!.endMs).toBe(s.events[10]!.tMs);
  });

  it('2 left clicks 0.3 s apart as the first two events → doubleClick ending at the 2nd release (B.6)', () => {
    const s = new EventScript();
    s.click('left', 50).wait(250).click('left', 50);
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'doubleClick',
        description: 'Double left Click',
        code: 'pyautogui.doubleClick(x=0.0, y=0.0)',
      },
    ]);
    expect(steps[0]!.startMs).toBe(s.events[0]!.tMs);
    expect(steps[0]!.endMs).toBe(s.events[3]!.tMs);
  });

  it('press (0,0) → moves → release (10,0) after 1.4 s → dragTo (drag before long press)', () => {
    const s = new EventScript();
    s.down();
    s.moveTo(10, 0, 10, 140);
    s.up();
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'dragTo',
        description: 'Drag from (0, 0) to (10, 0)',
        // Python int quirk of docs/pyautogui-code.md §3.3: a 0 coordinate stays the int 0
        code: "pyautogui.moveTo(x=0, y=0)\npyautogui.dragTo(x=0.0052, y=0, button='left')",
      },
    ]);
    expect(extraOf(steps[0]!).dragPath).toHaveLength(10);
    expect(seconds(steps[0]!.endMs) - seconds(steps[0]!.startMs)).toBeCloseTo(1.4, 9);
  });

  it('press, hold 2 s, release at the same point → long press click (B.16)', () => {
    const s = new EventScript();
    s.moveTo(300, 300).click('left', 2000);
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'click',
        description: 'Mouse long press left button',
        code: 'pyautogui.click(x=0.1562, y=0.2778)',
      },
    ]);
    expect(extraOf(steps[0]!).longPress).toBe(true);
  });

  it('3 scroll ticks dy −1 as the last events → scroll(−3), end = last tick + 0.2 (B.4)', () => {
    const s = new EventScript();
    s.moveTo(960, 540).wheel(0, -1).wait(100).wheel(0, -1).wait(100).wheel(0, -1);
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      {
        kind: 'scroll',
        description: 'Scroll ⬇️×3  ',
        code: 'pyautogui.moveTo(x=0.5, y=0.5)\npyautogui.scroll(-3)',
      },
    ]);
    const lastTickS = seconds(s.events[s.events.length - 1]!.tMs);
    expect(seconds(steps[0]!.endMs)).toBe(lastTickS + 0.2);
  });

  it('drag as the very last action keeps the drag description (B.5)', () => {
    const s = new EventScript();
    s.moveTo(100, 100).click().wait(300).moveTo(200, 200).down().moveTo(400, 300).up();
    const { steps } = run(s);
    expect(steps.map((step) => step.description)).toEqual([
      'Single left Click',
      'Drag from (200, 200) to (400, 300)',
    ]);
    expect(steps[1]!.kind).toBe('dragTo');
  });

  it('keys page_down, caps_lock, a → one write step: press(pagedown), write(a) (B.10)', () => {
    const lower = new EventScript();
    lower.tap('page_down').wait(100).tap('caps_lock').wait(100).tap('a');
    expect(run(lower).steps.map(summary)).toEqual([
      {
        kind: 'write',
        description: '⌨️ Type: $pagedown$a',
        code: "pyautogui.press(keys=['pagedown'])\npyautogui.write(message='a')",
      },
    ]);
    const upper = new EventScript();
    upper.tap('page_down').wait(100).tap('caps_lock').wait(100).tap('A');
    expect(callsToCode(run(upper).steps[0]!.calls)).toBe(
      "pyautogui.press(keys=['pagedown'])\npyautogui.write(message='A')",
    );
  });

  it("click, then Shift↓ H↓↑ Shift↑ e l l o → click + write 'Hello' (B.11)", () => {
    const s = new EventScript();
    s.moveTo(400, 300).click().wait(500);
    s.keyDown('shift').wait(40).tap('H').wait(40).keyUp('shift').wait(80).type('ello');
    const { steps } = run(s);
    expect(steps.map(summary)).toEqual([
      { kind: 'click', description: 'Single left Click', code: expect.any(String) },
      {
        kind: 'write',
        description: '⌨️ Type: Hello',
        code: "pyautogui.write(message='Hello')",
      },
    ]);
    // the run owns the Shift events; its id comes from the Shift down
    expect(steps[1]!.eventStartIdx).toBe(7);
    expect(steps[1]!.startMs).toBe(s.events[8]!.tMs);
  });

  it('scroll ×2, 5 s pause, ×2 at the same point → two scroll(−2) steps', () => {
    const s = new EventScript();
    s.moveTo(100, 100).wheel(0, -1).wait(50).wheel(0, -1).wait(5000).wheel(0, -1).wait(50);
    s.wheel(0, -1);
    expect(run(s).steps.map((step) => callsToCode(step.calls))).toEqual([
      'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.scroll(-2)',
      'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.scroll(-2)',
    ]);
  });

  it('scroll dy −1 ×3 then dy +1 ×2 → scroll(−3), scroll(2) (B.7 reversal)', () => {
    const s = new EventScript();
    s.moveTo(100, 100);
    for (const dy of [-1, -1, -1, 1, 1]) {
      s.wheel(0, dy).wait(60);
    }
    expect(run(s).steps.map(summary)).toEqual([
      {
        kind: 'scroll',
        description: 'Scroll ⬇️×3  ',
        code: 'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.scroll(-3)',
      },
      {
        kind: 'scroll',
        description: 'Scroll ⬆️×2  ',
        code: 'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.scroll(2)',
      },
    ]);
  });

  it("a b Backspace c → write 'ac'", () => {
    const s = new EventScript();
    s.type('ab').tap('backspace').wait(100).type('c');
    expect(run(s).steps.map(summary)).toEqual([
      { kind: 'write', description: '⌨️ Type: ac', code: "pyautogui.write(message='ac')" },
    ]);
  });

  it("a Backspace Backspace b → press(backspace), write('b')", () => {
    const s = new EventScript();
    s.type('a').tap('backspace').wait(100).tap('backspace').wait(100).type('b');
    expect(run(s).steps.map(summary)).toEqual([
      {
        kind: 'write',
        description: '⌨️ Type: $backspace$b',
        code: "pyautogui.press(keys=['backspace'])\npyautogui.write(message='b')",
      },
    ]);
  });

  it('Win↓ Win↑ alone (Windows) → press(win)', () => {
    for (const name of ['cmd', 'win']) {
      const s = new EventScript();
      s.tap(name, 120);
      const { steps } = run(s);
      expect(steps.map(summary)).toEqual([
        { kind: 'press', description: '⌨️ Type: $win$', code: "pyautogui.press(keys=['win'])" },
      ]);
      expect(steps[0]!.startMs).toBe(s.events[0]!.tMs);
      expect(steps[0]!.endMs).toBe(s.events[1]!.tMs);
    }
  });

  it('Ctrl↓ Ctrl↑ alone → unowned lone-modifier-tap', () => {
    const s = new EventScript();
    s.tap('ctrl_l');
    const { steps, unowned } = run(s);
    expect(steps).toEqual([]);
    expect(unowned).toEqual([
      { idx: 0, reason: 'lone-modifier-tap' },
      { idx: 1, reason: 'lone-modifier-tap' },
    ]);
  });
});

describe('Part B bugs fixed by Part C', () => {
  it('uses the OS double-click time from the context (B.6)', () => {
    const s = new EventScript();
    s.moveTo(50, 50).click('left', 50).wait(600).click('left', 50);
    expect(run(s).steps.map((step) => step.kind)).toEqual(['click', 'click']);
    const slow = { ...TEST_CONTEXT, doubleClickTimeS: 0.8 };
    expect(run(s, slow).steps.map((step) => step.kind)).toEqual(['doubleClick']);
  });

  it('does not group clicks further apart than the radius, or right clicks', () => {
    const far = new EventScript();
    far.moveTo(50, 50).click().wait(100).move(56, 50).click();
    expect(run(far).steps.map((step) => step.kind)).toEqual(['click', 'click']);
    const right = new EventScript();
    right.moveTo(50, 50).click('right').wait(100).click('right');
    expect(run(right).steps.map((step) => step.kind)).toEqual(['rightClick', 'rightClick']);
  });

  it('owns the moves between ticks and between clicks of a group (B.8)', () => {
    const s = new EventScript();
    s.moveTo(100, 100, 3).wheel(0, -1).move(101, 100).move(102, 100).wheel(0, -1);
    s.moveTo(300, 300, 4).click();
    const { steps } = run(s);
    expect(steps.map((step) => step.kind)).toEqual(['scroll', 'click']);
    expect(extraOf(steps[0]!).pathIdx).toEqual([4, 5]);
    expect(steps[0]!.preMove).toEqual({
      startMs: s.events[0]!.tMs,
      endMs: s.events[2]!.tMs,
      eventStartIdx: 0,
      count: 3,
    });
    expect(steps[1]!.preMove?.count).toBe(4);
  });

  it('reports trailing moves as unowned instead of dropping them (B.8)', () => {
    const s = new EventScript();
    s.moveTo(100, 100, 2).click().moveTo(200, 200, 3);
    const { steps, unowned } = run(s);
    expect(steps).toHaveLength(1);
    expect(unowned).toEqual([4, 5, 6].map((idx) => ({ idx, reason: 'trailing-move' })));
  });

  it('measures thresholds in logical px (B.9)', () => {
    const s = new EventScript();
    s.moveTo(100, 100).down().moveTo(110, 100, 3).up();
    expect(run(s).steps[0]!.kind).toBe('dragTo');
    const hiDpi = { ...TEST_CONTEXT, scaleFactor: 2 };
    expect(run(s, hiDpi).steps[0]!.kind).toBe('click');
  });

  it('turns Windows Ctrl+C ("C") and control characters into hotkey ctrl+c (B.10)', () => {
    for (const name of ['C', '\x03']) {
      const s = new EventScript();
      s.keyDown('ctrl_l').wait(30).tap(name, 40, { char: name }).wait(30).keyUp('ctrl_l');
      expect(callsToCode(run(s).steps[0]!.calls)).toBe("pyautogui.hotkey(keys=['ctrl', 'c'])");
    }
  });

  it('keeps pause/resume as unsupported-kind and goes on (B.12)', () => {
    const s = new EventScript();
    s.other('pause').wait(100).other('resume').moveTo(10, 10).click();
    const { steps, unowned } = run(s);
    expect(steps.map((step) => step.kind)).toEqual(['click']);
    expect(unowned).toEqual([
      { idx: 0, reason: 'unsupported-kind' },
      { idx: 1, reason: 'unsupported-kind' },
    ]);
  });

  it('leaves control input (our own hotkeys and UI) out of the steps (B.15)', () => {
    const s = new EventScript();
    s.type('hi');
    s.keyDown('ctrl_l', { isControl: true }).keyDown('f9', { isControl: true });
    s.keyUp('f9', { isControl: true }).keyUp('ctrl_l', { isControl: true });
    const { steps, unowned } = run(s);
    expect(steps.map(summary)).toEqual([
      { kind: 'write', description: '⌨️ Type: hi', code: "pyautogui.write(message='hi')" },
    ]);
    expect(unowned.map((entry) => entry.reason)).toEqual(Array(4).fill('control-input'));
  });

  it('writes horizontal and diagonal scrolls with the parser icons (B.7)', () => {
    const right = new EventScript();
    right.moveTo(100, 100).wheel(1, 0).wait(30).wheel(1, 0);
    expect(run(right).steps.map(summary)).toEqual([
      {
        kind: 'hscroll',
        description: 'Scroll ➡️×2  ',
        code: 'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.hscroll(2)',
      },
    ]);
    const diagonal = new EventScript();
    diagonal.moveTo(100, 100).wheel(1, 1).wait(30).wheel(1, 1);
    expect(run(diagonal).steps.map(summary)).toEqual([
      {
        kind: 'scroll',
        description: 'Scroll ↗️×2  ',
        code: 'pyautogui.moveTo(x=0.0521, y=0.0926)\npyautogui.hscroll(2)\npyautogui.scroll(2)',
      },
    ]);
  });
});
