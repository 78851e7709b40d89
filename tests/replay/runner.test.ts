// The replay runner (src/replay/runner.ts) against a fake driver: the order of driver calls per
// primitive, the pre-move to the action point before measuring, screen and element comparisons,
// unsupported steps and keys, stops on the user's pointer and on the abort signal, pacing by
// speed, screenshots of divergent results. The clock is fake: sleeps advance it at once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActionCall } from '../../src/shared/domain';
import { AppError } from '../../src/shared/errors';
import { planReplay, type PlanStep, type StepPlan } from '../../src/pipeline/replay/plan';
import { grayThumbnail, type Thumbnail } from '../../src/pipeline/replay/screen-diff';
import { scoreOf } from '../../src/pipeline/replay/score';
import type { ReplayDriver } from '../../src/replay/driver-process';
import {
  runReplay,
  type ReplayElement,
  type ReplayExpectation,
  type RunReplayInput,
} from '../../src/replay/runner';

const W = 320;
const H = 200;
const SCREEN = { width: W, height: H };

/** A W×H RGB frame: white, with an optional black rectangle. */
function frame(dark?: { x: number; y: number; width: number; height: number }): Thumbnail {
  const rgb = new Uint8Array(W * H * 3).fill(255);
  if (dark) {
    for (let y = dark.y; y < dark.y + dark.height; y++) {
      rgb.fill(0, (y * W + dark.x) * 3, (y * W + dark.x + dark.width) * 3);
    }
  }
  return grayThumbnail(rgb, W, H);
}
const WHITE = frame();
/** A dialog over the bottom-right quarter: a quarter of the blocks change. */
const DIALOG = frame({ x: 160, y: 100, width: 160, height: 100 });

type Call = [string, ...unknown[]];

/** A fake driver: records calls, keeps a pointer that `move` sets, grabs `screen()`. */
class FakeDriver implements ReplayDriver {
  calls: Call[] = [];
  pointerAt = { x: 5, y: 5 };
  /** The live screen of the n-th grab (0-based). */
  screen: (n: number) => Thumbnail = () => WHITE;
  /** Called after each recorded call (the fake user acts here). */
  after: (call: Call, driver: FakeDriver) => void = () => undefined;
  private grabs = 0;

  private record(call: Call) {
    this.calls.push(call);
    this.after(call, this);
  }
  /** The calls other than pointer polls. */
  get driven(): Call[] {
    return this.calls.filter((c) => c[0] !== 'pointer');
  }
  hello() {
    return Promise.resolve({ ...SCREEN, pointer: { ...this.pointerAt }, version: 1 });
  }
  pointer() {
    const p = { ...this.pointerAt };
    this.record(['pointer']);
    return Promise.resolve(p);
  }
  grab(thumbnailWidth: number) {
    this.record(['grab', thumbnailWidth]);
    return Promise.resolve({ thumbnail: this.screen(this.grabs++), grabMs: 1 });
  }
  saveLastGrab(file: string) {
    this.record(['save', file]);
    return Promise.resolve();
  }
  move(x: number, y: number) {
    this.pointerAt = { x, y };
    this.record(['move', x, y]);
    return Promise.resolve();
  }
  button(button: string, down: boolean) {
    this.record(['button', button, down]);
    return Promise.resolve();
  }
  click(button: string, count: number) {
    this.record(['click', button, count]);
    return Promise.resolve();
  }
  scroll(dx: number, dy: number) {
    this.record(['scroll', dx, dy]);
    return Promise.resolve();
  }
  type(text: string) {
    this.record(['type', text]);
    return Promise.resolve();
  }
  keys(keys: readonly string[], down: boolean) {
    this.record(['keys', [...keys], down]);
    return Promise.resolve();
  }
  close() {
    return Promise.resolve();
  }
}

const f = (float: number) => ({ float });
const i = (int: number) => ({ int });
const call = (name: string, args: ActionCall['args']) => ({ name, args }) as ActionCall;

/** Plans steps (one list of calls each) recorded and replayed on the same W×H screen. */
function plan(...steps: ActionCall[][]): StepPlan[] {
  const planSteps: PlanStep[] = steps.map((calls, index) => ({
    id: `s${index}`,
    index,
    calls,
    coordinate: null,
  }));
  return planReplay(planSteps, SCREEN, SCREEN);
}

function expectation(over: Partial<ReplayExpectation> = {}): ReplayExpectation {
  return {
    keyframe: WHITE,
    keyframeFile: 'keyframes/x.png',
    pointers: [],
    rects: [],
    element: null,
    gapAfterMs: null,
    ...over,
  };
}

// fake clock: performance.now() is `now`, advanced by the fake sleep
let now = 0;
let sleeps: number[] = [];
const sleep = (ms: number) => {
  sleeps.push(ms);
  now += ms;
  return Promise.resolve();
};
beforeEach(() => {
  now = 1000;
  sleeps = [];
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs `plans` with one white expectation per step and the end state. */
function run(driver: FakeDriver, plans: StepPlan[], over: Partial<RunReplayInput> = {}) {
  return runReplay({
    driver,
    plan: plans,
    expectations: [...plans.map(() => expectation()), expectation()],
    toRecorded: (p) => p,
    sleep,
    ...over,
  });
}

describe('runReplay: driver calls per primitive', () => {
  it('click: pre-move to the action point, hover, grab, then move, pointer check, click; end grab', async () => {
    const d = new FakeDriver();
    const out = await run(d, plan([call('click', { x: f(0.5), y: f(0.5) })]));
    expect(out.stopped).toBeNull();
    expect(d.driven).toEqual([
      ['move', 160, 100],
      ['grab', 160],
      ['move', 160, 100],
      ['click', 'left', 1],
      ['grab', 160],
    ]);
    // the pointer is checked right before the click
    expect(d.calls[d.calls.findIndex((c) => c[0] === 'click') - 1]).toEqual(['pointer']);
    // the hover (150 ms) comes between the pre-move and the grab
    const firstGrab = d.calls.findIndex((c) => c[0] === 'grab');
    expect(d.calls.slice(1, firstGrab).some((c) => c[0] === 'pointer')).toBe(true);
    expect(sleeps.slice(0, 4).reduce((a, b) => a + b, 0)).toBe(150);
  });

  it('click with count and button: doubleClick, rightClick', async () => {
    const d = new FakeDriver();
    await run(
      d,
      plan(
        [call('doubleClick', { x: f(0.25), y: f(0.25) })],
        [call('rightClick', { x: f(0.75), y: f(0.75) })],
      ),
    );
    expect(d.driven.filter((c) => c[0] === 'click')).toEqual([
      ['click', 'left', 2],
      ['click', 'right', 1],
    ]);
    expect(d.driven.filter((c) => c[0] === 'move')).toEqual([
      ['move', 80, 50],
      ['move', 80, 50],
      ['move', 240, 150],
      ['move', 240, 150],
    ]);
  });

  it('drag: move to the start, press, eight moves to the end, release', async () => {
    const d = new FakeDriver();
    await run(
      d,
      plan([call('moveTo', { x: f(0.25), y: f(0.5) }), call('dragTo', { x: f(0.75), y: f(0.5) })]),
    );
    expect(d.driven).toEqual([
      ['move', 80, 100],
      ['grab', 160],
      ['move', 80, 100],
      ['move', 80, 100],
      ['button', 'left', true],
      ...[100, 120, 140, 160, 180, 200, 220, 240].map((x) => ['move', x, 100]),
      ['button', 'left', false],
      ['grab', 160],
    ]);
  });

  it('scroll at a point: move there, then scroll (dy < 0 down)', async () => {
    const d = new FakeDriver();
    await run(d, plan([call('scroll', { clicks: i(-3), x: f(0.5), y: f(0.25) })]));
    expect(d.driven).toEqual([
      ['move', 160, 50],
      ['grab', 160],
      ['move', 160, 50],
      ['scroll', 0, -3],
      ['grab', 160],
    ]);
  });

  it('type: no pre-move, text in chunks of 8 characters (code points) with pointer checks between', async () => {
    const d = new FakeDriver();
    await run(d, plan([call('write', { message: 'hello wörld 😀!' })]));
    expect(d.driven).toEqual([
      ['grab', 160],
      ['type', 'hello wö'],
      ['type', 'rld 😀!'],
      ['grab', 160],
    ]);
    const t1 = d.calls.findIndex((c) => c[0] === 'type');
    expect(d.calls[t1 + 1]).toEqual(['pointer']);
  });

  it('press: each key down and up in order; a shifted character is typed', async () => {
    const d = new FakeDriver();
    await run(d, plan([call('press', { keys: ['ctrl', 'a', 'A'], presses: i(2) })]));
    const once = [
      ['keys', ['LeftControl'], true],
      ['keys', ['LeftControl'], false],
      ['keys', ['A'], true],
      ['keys', ['A'], false],
      ['type', 'A'],
    ];
    expect(d.driven).toEqual([['grab', 160], ...once, ...once, ['grab', 160]]);
  });

  it('hotkey: the chord down, then up', async () => {
    const d = new FakeDriver();
    await run(d, plan([call('hotkey', ['ctrl', 'shift', 'T'])]));
    expect(d.driven).toEqual([
      ['grab', 160],
      ['keys', ['LeftControl', 'LeftShift', 'T'], true],
      ['keys', ['LeftControl', 'LeftShift', 'T'], false],
      ['grab', 160],
    ]);
  });

  it('wait: nothing driven, the pointer polled every pollMs for the whole wait', async () => {
    const d = new FakeDriver();
    const out = await run(d, plan([call('wait', { seconds: f(0.5) })]), {
      timing: { minSettleMs: 0, pollMs: 100 },
    });
    expect(out.stopped).toBeNull();
    expect(d.driven).toEqual([
      ['grab', 160],
      ['grab', 160],
    ]);
    // 5 polls of 100 ms for the wait, then the settle (gap unknown: minSettleMs = 0)
    expect(sleeps).toEqual([100, 100, 100, 100, 100]);
    expect(d.calls.filter((c) => c[0] === 'pointer').length).toBeGreaterThanOrEqual(6);
  });

  it('terminate: nothing driven', async () => {
    const d = new FakeDriver();
    await run(d, plan([call('terminate', { status: 'success' })]));
    expect(d.driven).toEqual([
      ['grab', 160],
      ['grab', 160],
    ]);
  });
});

describe('runReplay: results', () => {
  it('one result per step, then the end state (kind end, index = steps, no step id)', async () => {
    const d = new FakeDriver();
    const seen: [number, number][] = [];
    const out = await run(
      d,
      plan([call('click', { x: f(0.5), y: f(0.5) })], [call('write', { message: 'x' })]),
      { onResult: (r, total) => seen.push([r.index, total]) },
    );
    expect(out.results.map((r) => [r.index, r.kind, r.stepId, r.ok])).toEqual([
      [0, 'step', 's0', true],
      [1, 'step', 's1', true],
      [2, 'end', null, true],
    ]);
    expect(seen).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(out.results[0]).toMatchObject({
      screenDiff: 0,
      elementMatch: null,
      actionPoint: { x: 160, y: 100 },
      note: null,
      screenshot: null,
      keyframe: 'keyframes/x.png',
    });
    expect(out.results[1]!.actionPoint).toBeNull();
    expect(out.results[2]!.actionPoint).toBeNull();
    expect(scoreOf(out.results)).toEqual({ score: 1, firstDivergent: null });
  });

  it('a live screen unlike the keyframe diverges; the others match', async () => {
    const d = new FakeDriver();
    d.screen = (n) => (n === 1 ? DIALOG : WHITE);
    const out = await run(
      d,
      plan(
        [call('click', { x: f(0.1), y: f(0.1) })],
        [call('click', { x: f(0.1), y: f(0.1) })],
        [call('click', { x: f(0.1), y: f(0.1) })],
      ),
    );
    expect(out.results.map((r) => r.ok)).toEqual([true, false, true, true]);
    expect(out.results[1]!.screenDiff).toBeGreaterThan(0.2);
    expect(out.results[1]!.screenDiff).toBeLessThan(0.3);
    expect(scoreOf(out.results)).toEqual({ score: 0.75, firstDivergent: 1 });
  });

  it('the pointer the runner left is masked: a cursor-sized change at it still matches', async () => {
    const d = new FakeDriver();
    // a 12×19 dark arrow at the action point on the live screen
    const cursor = frame({ x: 160, y: 100, width: 12, height: 19 });
    d.screen = () => cursor;
    const out = await run(d, plan([call('click', { x: f(0.5), y: f(0.5) })]));
    expect(out.results[0]!.ok).toBe(true);
    expect(out.results[0]!.screenDiff).toBe(0);
  });

  it('no keyframe: not compared, not ok; another aspect ratio: a note, not ok', async () => {
    const d = new FakeDriver();
    const wide = grayThumbnail(new Uint8Array(400 * 200 * 3).fill(255), 400, 200);
    const plans = plan([call('write', { message: 'a' })], [call('write', { message: 'b' })]);
    const out = await run(d, plans, {
      expectations: [
        expectation({ keyframe: null }),
        expectation({ keyframe: wide }),
        expectation(),
      ],
    });
    expect(out.results[0]).toMatchObject({ ok: false, screenDiff: null });
    expect(out.results[0]!.note).toMatch(/no keyframe/);
    expect(out.results[1]).toMatchObject({ ok: false, screenDiff: null });
    expect(out.results[1]!.note).toMatch(/320×200.*another aspect ratio.*400×200/);
    // the live grab was asked at the keyframe's width (the default without one)
    expect(d.driven.filter((c) => c[0] === 'grab')).toEqual([
      ['grab', 160],
      ['grab', 160],
      ['grab', 160],
    ]);
  });

  it('elements: compared at the action point with the recorded one', async () => {
    const d = new FakeDriver();
    const asked: { x: number; y: number }[] = [];
    const live: (ReplayElement | null)[] = [
      { controlType: 'Button', title: 'OK' },
      { controlType: 'Button', title: 'Cancel' },
      null,
    ];
    const ok = { controlType: 'Button', title: 'OK' };
    const plans = plan(
      [call('click', { x: f(0.5), y: f(0.5) })],
      [call('click', { x: f(0.25), y: f(0.5) })],
      [call('click', { x: f(0.75), y: f(0.5) })],
      [call('click', { x: f(0.5), y: f(0.25) })],
      [call('write', { message: 'x' })],
    );
    const out = await run(d, plans, {
      expectations: [
        expectation({ element: ok }),
        expectation({ element: ok }),
        expectation({ element: ok }),
        expectation({ element: null }),
        expectation({ element: ok }),
        expectation({ element: ok }),
      ],
      elementAt: (p) => {
        asked.push(p);
        return Promise.resolve(live[asked.length - 1] ?? null);
      },
    });
    // only steps with a recorded element and an action point are read (not the end state)
    expect(asked).toEqual([
      { x: 160, y: 100 },
      { x: 80, y: 100 },
      { x: 240, y: 100 },
    ]);
    expect(out.results.map((r) => [r.elementMatch, r.ok])).toEqual([
      [true, true],
      [false, false],
      [false, false],
      [null, true],
      [null, true],
      [null, true],
    ]);
    expect(out.results[1]).toMatchObject({
      recordedElement: ok,
      liveElement: { controlType: 'Button', title: 'Cancel' },
      screenDiff: 0,
    });
    expect(out.results[3]!.recordedElement).toBeNull();
  });

  it('saves the live screen of divergent results only, end state included', async () => {
    const d = new FakeDriver();
    d.screen = (n) => (n === 1 || n === 3 ? DIALOG : WHITE);
    const saved: { index: number; kind: string }[] = [];
    const out = await run(
      d,
      plan(
        [call('write', { message: 'a' })],
        [call('write', { message: 'b' })],
        [call('write', { message: 'c' })],
      ),
      {
        saveScreenshot: (r) => {
          saved.push(r);
          return Promise.resolve(`replay/run/${r.kind}-${r.index}.png`);
        },
      },
    );
    expect(saved).toEqual([
      { index: 1, kind: 'step' },
      { index: 3, kind: 'end' },
    ]);
    expect(out.results.map((r) => r.screenshot)).toEqual([
      null,
      'replay/run/step-1.png',
      null,
      'replay/run/end-3.png',
    ]);
  });
});

describe('runReplay: what cannot be driven', () => {
  it('an unsupported step is measured, not driven, not ok with its reason; the run goes on', async () => {
    const d = new FakeDriver();
    const plans = plan(
      [call('click', { x: f(1.5), y: f(0.5) })],
      [call('click', { x: f(0.5), y: f(0.5) })],
    );
    expect(plans[0]!.unsupported).not.toBeNull();
    const out = await run(d, plans);
    expect(out.results[0]).toMatchObject({ ok: false, note: plans[0]!.unsupported });
    expect(out.results[0]!.note).toMatch(/x must be a fraction/);
    expect(out.results[1]!.ok).toBe(true);
    expect(d.driven).toEqual([
      ['grab', 160],
      ['move', 160, 100],
      ['grab', 160],
      ['move', 160, 100],
      ['click', 'left', 1],
      ['grab', 160],
    ]);
  });

  it('a key the driver cannot press: a note, not ok, the next step is driven', async () => {
    const d = new FakeDriver();
    const out = await run(
      d,
      plan(
        [call('press', { keys: ['hyper'] })],
        [call('hotkey', ['ctrl', '!'])],
        [call('press', { keys: ['enter'] })],
      ),
    );
    expect(out.stopped).toBeNull();
    expect(out.results.map((r) => [r.ok, r.note])).toEqual([
      [false, "press: no key named 'hyper'"],
      [false, 'hotkey: cannot press ctrl+!'],
      [true, null],
      [true, null],
    ]);
    expect(d.driven.filter((c) => c[0] === 'keys')).toEqual([
      ['keys', ['Return'], true],
      ['keys', ['Return'], false],
    ]);
  });

  it('a step found divergent only while driving (unsupported key) gets its screenshot too', async () => {
    const d = new FakeDriver();
    const saved: number[] = [];
    const out = await run(d, plan([call('press', { keys: ['hyper'] })]), {
      saveScreenshot: (r) => {
        saved.push(r.index);
        return Promise.resolve(`replay/run/step-${r.index}.png`);
      },
    });
    expect(saved).toEqual([0]);
    expect(out.results[0]).toMatchObject({ ok: false, screenshot: 'replay/run/step-0.png' });
  });

  it('a driver failure (the child died) stops the run with reason error, keeping what was measured', async () => {
    const d = new FakeDriver();
    d.click = () => Promise.reject(new AppError('REPLAY_DRIVER_FAILED', 'replay driver exited'));
    const out = await run(
      d,
      plan([call('click', { x: f(0.5), y: f(0.5) })], [call('write', { message: 'x' })]),
    );
    expect(out.stopped).toEqual({ reason: 'error', stepIndex: 0, message: 'replay driver exited' });
    expect(out.results.map((r) => r.index)).toEqual([0]);
    expect(d.driven.filter((c) => c[0] === 'type')).toEqual([]);
  });

  it('any other error still rejects the run', async () => {
    const d = new FakeDriver();
    d.click = () => Promise.reject(new Error('bug'));
    await expect(run(d, plan([call('click', { x: f(0.5), y: f(0.5) })]))).rejects.toThrow('bug');
  });

  it('a speed ≤ 0 is a usage error before anything is driven', async () => {
    const d = new FakeDriver();
    await expect(
      run(d, plan([call('write', { message: 'a' })]), { timing: { speed: 0 } }),
    ).rejects.toMatchObject({ code: 'USAGE' });
    expect(d.calls).toEqual([]);
  });
});

describe('runReplay: stops', () => {
  const USER = { x: 300, y: 10 };

  it('the user moves the pointer during a wait: stopped there, the next step not driven', async () => {
    const d = new FakeDriver();
    let polls = 0;
    d.after = (c, drv) => {
      // the wait step's 3rd pointer poll sees the user's hand
      if (c[0] === 'pointer' && drv.calls.some((x) => x[0] === 'grab') && ++polls === 2) {
        drv.pointerAt = { ...USER };
      }
    };
    const out = await run(
      d,
      plan([call('wait', { seconds: i(2) })], [call('click', { x: f(0.5), y: f(0.5) })]),
    );
    expect(out.stopped).toMatchObject({ reason: 'user-input', stepIndex: 0, pointer: USER });
    expect(out.stopped!.message).toMatch(/\(300, 10\).*\(5, 5\)/);
    expect(out.results.map((r) => r.index)).toEqual([0]);
    expect(d.driven).toEqual([['grab', 160]]);
    // it stopped early in the 2 s wait
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThan(200);
  });

  it('within the tolerance (3 px) the pointer is still the driver’s', async () => {
    const d = new FakeDriver();
    d.after = (c, drv) => {
      if (c[0] === 'grab') {
        drv.pointerAt = { x: drv.pointerAt.x + 3, y: drv.pointerAt.y - 3 };
      }
    };
    const out = await run(d, plan([call('wait', { seconds: f(0.2) })]));
    expect(out.stopped).toBeNull();
  });

  it('the user moves the pointer during a drag: stopped, the button released, nothing else', async () => {
    const d = new FakeDriver();
    d.after = (c, drv) => {
      if (c[0] === 'move' && c[1] === 120) {
        drv.pointerAt = { ...USER };
      }
    };
    const out = await run(
      d,
      plan(
        [call('moveTo', { x: f(0.25), y: f(0.5) }), call('dragTo', { x: f(0.75), y: f(0.5) })],
        [call('click', { x: f(0.5), y: f(0.5) })],
      ),
    );
    expect(out.stopped).toMatchObject({ reason: 'user-input', stepIndex: 0, pointer: USER });
    const at = d.driven.findIndex((c) => c[0] === 'move' && c[1] === 120);
    expect(d.driven.slice(at + 1)).toEqual([['button', 'left', false]]);
    expect(out.results).toHaveLength(1);
  });

  it('the user moves the pointer while typing: no chunk after it is typed', async () => {
    const d = new FakeDriver();
    d.after = (c, drv) => {
      if (c[0] === 'type') {
        drv.pointerAt = { ...USER };
      }
    };
    const out = await run(
      d,
      plan([call('click', { x: f(0.5), y: f(0.5) })], [call('write', { message: 'a'.repeat(30) })]),
    );
    expect(out.stopped).toMatchObject({ reason: 'user-input', stepIndex: 1, pointer: USER });
    expect(d.driven.filter((c) => c[0] === 'type')).toEqual([['type', 'aaaaaaaa']]);
    expect(d.driven.at(-1)).toEqual(['type', 'aaaaaaaa']);
  });

  it("abort with reason 'hotkey': stopped by the hotkey, nothing driven after", async () => {
    const d = new FakeDriver();
    const controller = new AbortController();
    d.after = (c) => {
      if (c[0] === 'click') {
        controller.abort('hotkey');
      }
    };
    const out = await run(
      d,
      plan([call('click', { x: f(0.5), y: f(0.5) })], [call('write', { message: 'x' })]),
      { signal: controller.signal },
    );
    expect(out.stopped).toEqual({
      reason: 'hotkey',
      stepIndex: 0,
      message: 'the stop hotkey was pressed',
    });
    expect(d.driven.at(-1)).toEqual(['click', 'left', 1]);
    expect(out.results).toHaveLength(1);
  });

  it('abort with any other reason: cancelled; already aborted: nothing driven at all', async () => {
    const d = new FakeDriver();
    const controller = new AbortController();
    d.after = (c) => {
      if (c[0] === 'type') {
        controller.abort(new Error('shutting down'));
      }
    };
    const out = await run(
      d,
      plan([call('write', { message: 'x' })], [call('write', { message: 'y' })]),
      { signal: controller.signal },
    );
    expect(out.stopped).toMatchObject({ reason: 'cancelled', stepIndex: 0 });
    expect(out.stopped!.message).toMatch(/cancelled/);
    expect(d.driven.filter((c) => c[0] === 'type')).toEqual([['type', 'x']]);

    const d2 = new FakeDriver();
    const out2 = await run(d2, plan([call('click', { x: f(0.5), y: f(0.5) })]), {
      signal: AbortSignal.abort('cancelled'),
    });
    expect(out2.stopped).toMatchObject({ reason: 'cancelled', stepIndex: 0 });
    expect(out2.results).toEqual([]);
    expect(d2.driven).toEqual([]);
  });
});

describe('runReplay: pacing', () => {
  const waitPlan = () => plan([call('wait', { seconds: i(2) })]);
  const paced = async (speed: number, gapAfterMs: number | null) => {
    sleeps = [];
    await run(new FakeDriver(), waitPlan(), {
      expectations: [expectation({ gapAfterMs }), expectation()],
      timing: { speed, pollMs: 60_000, minSettleMs: 400, maxSettleMs: 3000 },
    });
    return [...sleeps];
  };

  it('speed divides waits and recorded gaps; the settle is at least minSettleMs', async () => {
    // the wait (2000 / speed), then the settle max(400, min(3000, gap) / speed)
    expect(await paced(1, 1000)).toEqual([2000, 1000]);
    expect(await paced(2, 1000)).toEqual([1000, 500]);
    expect(await paced(4, 1000)).toEqual([500, 400]);
    expect(await paced(0.5, 1000)).toEqual([4000, 2000]);
    // a gap beyond maxSettleMs is cut before the speed divides it
    expect(await paced(2, 60_000)).toEqual([1000, 1500]);
    // unknown gap: minSettleMs
    expect(await paced(1, null)).toEqual([2000, 400]);
  });

  it('the hover before measuring is not divided by speed', async () => {
    sleeps = [];
    await run(new FakeDriver(), plan([call('click', { x: f(0.5), y: f(0.5) })]), {
      timing: { speed: 10, pollMs: 60_000, hoverMs: 150, minSettleMs: 0 },
    });
    expect(sleeps[0]).toBe(150);
  });
});
