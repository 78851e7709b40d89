import { describe, expect, it } from 'vitest';
import {
  planReplay,
  WAIT_DEFAULT_MS,
  type PlanStep,
  type ReplayPrimitive,
} from '../../../src/pipeline/replay/plan';
import { ACTION_NAMES, type ActionCall, type ActionName } from '../../../src/shared/domain';

const f = (float: number) => ({ float });
const i = (int: number) => ({ int });
/** Recorded on 1280×800, replayed on 1920×1200: every pixel ×1.5. */
const FROM = { width: 1280, height: 800 };
const TO = { width: 1920, height: 1200 };
/** (0.25, 0.5) → (320, 400) recorded → (480, 600) replayed. */
const AT = { x: f(0.25), y: f(0.5) };

function step(
  index: number,
  calls: ActionCall[],
  coordinate: PlanStep['coordinate'] = null,
): PlanStep {
  return { id: `s${index}`, index, calls, coordinate };
}

/** The primitives of a single step planned alone. */
function one(calls: ActionCall[], coordinate: PlanStep['coordinate'] = null): ReplayPrimitive[] {
  const [plan] = planReplay([step(0, calls, coordinate)], FROM, TO);
  expect(plan?.unsupported).toBeNull();
  return plan!.primitives;
}

/** One example per action name: its calls and exact primitives. */
const EXAMPLES: Record<ActionName, [ActionCall[], ReplayPrimitive[]]> = {
  click: [
    [{ name: 'click', args: AT }],
    [{ kind: 'click', x: 480, y: 600, button: 'left', count: 1 }],
  ],
  doubleClick: [
    [{ name: 'doubleClick', args: AT }],
    [{ kind: 'click', x: 480, y: 600, button: 'left', count: 2 }],
  ],
  tripleClick: [
    [{ name: 'tripleClick', args: AT }],
    [{ kind: 'click', x: 480, y: 600, button: 'left', count: 3 }],
  ],
  rightClick: [
    [{ name: 'rightClick', args: AT }],
    [{ kind: 'click', x: 480, y: 600, button: 'right', count: 1 }],
  ],
  middleClick: [
    [{ name: 'middleClick', args: AT }],
    [{ kind: 'click', x: 480, y: 600, button: 'middle', count: 1 }],
  ],
  moveTo: [[{ name: 'moveTo', args: { x: i(1), y: i(0) } }], [{ kind: 'move', x: 1919, y: 0 }]],
  dragTo: [
    [
      { name: 'moveTo', args: AT },
      { name: 'dragTo', args: { x: f(0.5), y: f(0.25), button: 'left' } },
    ],
    [
      { kind: 'move', x: 480, y: 600 },
      { kind: 'drag', from: { x: 480, y: 600 }, to: { x: 960, y: 300 }, button: 'left' },
    ],
  ],
  scroll: [
    [
      { name: 'moveTo', args: AT },
      { name: 'scroll', args: { clicks: i(-3) } },
    ],
    [
      { kind: 'move', x: 480, y: 600 },
      { kind: 'scroll', x: 480, y: 600, dx: 0, dy: -3 },
    ],
  ],
  hscroll: [
    [{ name: 'hscroll', args: { clicks: i(4), x: f(0.5), y: f(0.5) } }],
    [{ kind: 'scroll', x: 960, y: 600, dx: 4, dy: 0 }],
  ],
  write: [
    [{ name: 'write', args: { message: 'Hello, world' } }],
    [{ kind: 'type', text: 'Hello, world' }],
  ],
  press: [
    [{ name: 'press', args: { keys: ['tab', 'enter'] } }],
    [{ kind: 'press', keys: ['tab', 'enter'] }],
  ],
  hotkey: [
    [{ name: 'hotkey', args: { keys: ['ctrl', 'shift', 't'] } }],
    [{ kind: 'hotkey', keys: ['ctrl', 'shift', 't'] }],
  ],
  wait: [[{ name: 'wait', args: {} }], [{ kind: 'wait', ms: WAIT_DEFAULT_MS }]],
  terminate: [
    [{ name: 'terminate', args: { status: 'success' } }],
    [{ kind: 'end', status: 'success' }],
  ],
};

describe('planReplay', () => {
  it('has an example for every action name', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...ACTION_NAMES].sort());
  });

  it.each(ACTION_NAMES)('plans %s', (name) => {
    const [calls, primitives] = EXAMPLES[name];
    expect(one(calls)).toEqual(primitives);
  });

  it('reads click options (clicks, button) and the wait and terminate arguments', () => {
    expect(one([{ name: 'click', args: { ...AT, clicks: i(2), button: 'right' } }])).toEqual([
      { kind: 'click', x: 480, y: 600, button: 'right', count: 2 },
    ]);
    expect(one([{ name: 'doubleClick', args: { ...AT, button: 'middle' } }])).toEqual([
      { kind: 'click', x: 480, y: 600, button: 'middle', count: 2 },
    ]);
    expect(one([{ name: 'wait', args: { seconds: f(0.25) } }])).toEqual([
      { kind: 'wait', ms: 250 },
    ]);
    expect(one([{ name: 'wait', args: { seconds: i(2) } }])).toEqual([{ kind: 'wait', ms: 2000 }]);
    expect(one([{ name: 'terminate', args: { status: 'failure' } }])).toEqual([
      { kind: 'end', status: 'failure' },
    ]);
    expect(one([{ name: 'press', args: { keys: ['a'], presses: i(3) } }])).toEqual([
      { kind: 'press', keys: ['a', 'a', 'a'] },
    ]);
  });

  it('maps positional arguments in pyautogui order', () => {
    expect(
      one([
        { name: 'click', args: [f(0.25), f(0.5), i(2)] },
        { name: 'write', args: ['x'] },
        { name: 'press', args: ['enter'] },
        { name: 'hotkey', args: ['ctrl', 'c'] },
        { name: 'scroll', args: [i(5), f(0.5), f(0.5)] },
        { name: 'wait', args: [f(1.5)] },
      ]),
    ).toEqual([
      { kind: 'click', x: 480, y: 600, button: 'left', count: 2 },
      { kind: 'type', text: 'x' },
      { kind: 'press', keys: ['enter'] },
      { kind: 'hotkey', keys: ['ctrl', 'c'] },
      { kind: 'scroll', x: 960, y: 600, dx: 0, dy: 5 },
      { kind: 'wait', ms: 1500 },
    ]);
  });

  it('anchors a drag or scroll without its own point at the recorded coordinate', () => {
    const coordinate = { x: 320, y: 400 };
    expect(
      one([{ name: 'dragTo', args: { x: f(0.5), y: f(0.25), button: 'left' } }], coordinate),
    ).toEqual([{ kind: 'drag', from: { x: 480, y: 600 }, to: { x: 960, y: 300 }, button: 'left' }]);
    expect(one([{ name: 'scroll', args: { clicks: f(-2) } }], coordinate)).toEqual([
      { kind: 'scroll', x: 480, y: 600, dx: 0, dy: -2 },
    ]);
    // Nothing to anchor at: the scroll happens where the pointer is.
    expect(one([{ name: 'scroll', args: { clicks: i(1) } }])).toEqual([
      { kind: 'scroll', x: null, y: null, dx: 0, dy: 1 },
    ]);
  });

  it('starts a lone drag where an earlier step left the pointer', () => {
    const plans = planReplay(
      [
        step(0, [{ name: 'click', args: AT }]),
        step(1, [{ name: 'write', args: { message: 'a' } }]),
        step(2, [{ name: 'dragTo', args: { x: f(0.5), y: f(0.25), button: 'left' } }]),
      ],
      FROM,
      TO,
    );
    expect(plans[2]?.primitives).toEqual([
      { kind: 'drag', from: { x: 480, y: 600 }, to: { x: 960, y: 300 }, button: 'left' },
    ]);
  });

  it('exposes the action point: first click, drag start or known scroll point', () => {
    const plans = planReplay(
      [
        step(0, [{ name: 'click', args: AT }]),
        step(1, [
          { name: 'moveTo', args: { x: f(0.5), y: f(0.5) } },
          { name: 'dragTo', args: { x: f(0.75), y: f(0.75), button: 'left' } },
        ]),
        step(2, [{ name: 'write', args: { message: 'abc' } }]),
        step(3, [{ name: 'scroll', args: { clicks: i(-1) } }], { x: 640, y: 0 }),
      ],
      FROM,
      TO,
    );
    expect(plans.map((p) => p.actionPoint)).toEqual([
      { x: 480, y: 600 },
      { x: 960, y: 600 },
      null,
      { x: 960, y: 0 },
    ]);
    expect(plans.map((p) => [p.index, p.stepId])).toEqual([
      [0, 's0'],
      [1, 's1'],
      [2, 's2'],
      [3, 's3'],
    ]);
  });

  it('scales from a recording screen with a negative origin', () => {
    const left = { width: 1280, height: 800, origin: { x: -1280, y: 0 } };
    const [plan] = planReplay([step(0, [{ name: 'click', args: AT }])], left, FROM);
    expect(plan?.primitives).toEqual([{ kind: 'click', x: 320, y: 400, button: 'left', count: 1 }]);
    const [anchored] = planReplay(
      [step(0, [{ name: 'scroll', args: { clicks: i(1) } }], { x: 100, y: 50 })],
      left,
      { width: 1280, height: 800, origin: { x: 1920, y: 0 } },
    );
    expect(anchored?.primitives).toEqual([{ kind: 'scroll', x: 2020, y: 50, dx: 0, dy: 1 }]);
  });

  it('marks unsupported steps with a reason and plans the others', () => {
    const bad: [ActionCall[], RegExp][] = [
      [[{ name: 'click', args: { x: f(640), y: f(0.5) } }], /step 0: click: x must be a fraction/],
      [[{ name: 'click', args: { y: f(0.5) } }], /click: no x/],
      [[{ name: 'click', args: { ...AT, button: 'primary' } }], /button must be one of left/],
      [[{ name: 'click', args: { ...AT, clicks: i(0) } }], /clicks must be at least 1/],
      [
        [{ name: 'dragTo', args: { x: f(0.5), y: f(0.5), button: 'left' } }],
        /dragTo: no start point/,
      ],
      [[{ name: 'scroll', args: { clicks: f(1.5) } }], /scroll: clicks must be an int/],
      [[{ name: 'scroll', args: {} }], /scroll: no clicks/],
      [[{ name: 'write', args: {} }], /write: message must be a string/],
      [[{ name: 'press', args: { keys: [] } }], /press: keys must be a non-empty list/],
      [[{ name: 'hotkey', args: { keys: [i(1)] } }], /hotkey: keys must be/],
      [[{ name: 'wait', args: { seconds: i(-1) } }], /wait: seconds must be/],
      [[{ name: 'terminate', args: { status: 'maybe' } }], /terminate: status must be one of/],
      [[{ name: 'moveTo', args: [f(0.1), f(0.1), i(0), i(0), i(0)] }], /5 positional arguments/],
      [[{ name: 'swipe' as ActionName, args: {} }], /unknown call "swipe"/],
    ];
    for (const [calls, reason] of bad) {
      const plans = planReplay(
        [
          step(0, [{ name: 'write', args: { message: 'ok' } }, ...calls]),
          step(1, [{ name: 'click', args: AT }]),
        ],
        FROM,
        TO,
      );
      expect(plans[0]?.unsupported).toMatch(reason);
      expect(plans[0]?.primitives).toEqual([]);
      expect(plans[0]?.actionPoint).toBeNull();
      expect(plans[1]?.unsupported).toBeNull();
      expect(plans[1]?.primitives).toHaveLength(1);
    }
  });
});
