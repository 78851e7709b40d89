// The replay runner (docs/replay.md §5): measures and drives a planned trajectory step by step
// through a ReplayDriver — before each step the live screen against the step's keyframe and the
// element under the action point against the recorded one, after the last step the end state —
// and stops at once on the user's own input (the pointer is not where the driver left it), the
// stop hotkey or a cancel. Everything it needs from the library comes in as inputs.
import type { ReplayStepResult, ReplayStop, ReplayStopReason } from '../shared/domain';
import { AppError } from '../shared/errors';
import type { StepPlan, ReplayPrimitive } from '../pipeline/replay/plan';
import {
  screenDiff,
  THUMBNAIL_WIDTH,
  type MaskRect,
  type Thumbnail,
} from '../pipeline/replay/screen-diff';
import { stepResult } from '../pipeline/replay/score';
import type { Point } from '../pipeline/replay/scale';
import { chordKeys, driverKey } from './keys';
import type { ReplayDriver } from './driver-process';

/** The note of a masked step's result. */
export const MASKED_NOTE =
  'masked step (typed into a password field): not replayed, not compared, not scored';

/** An element as compared: AgentNet control type and title. */
export type ReplayElement = { controlType: string; title: string };

/** What the runner compares one measurement with (a step's keyframe, or the end state's). */
export type ReplayExpectation = {
  /** The keyframe's thumbnail; null when there is none (the result is then not ok). */
  keyframe: Thumbnail | null;
  /** The keyframe's file, relative to the recording folder (for the report). */
  keyframeFile: string | null;
  /** Pointer positions the keyframe may show, in the keyframe's pixels. */
  pointers: readonly Point[];
  /** More rectangles to ignore (pixel redactions), in the keyframe's pixels. */
  rects: readonly MaskRect[];
  /** The recorded element under the action point; null when none was recorded. */
  element: ReplayElement | null;
  /** Recorded ms from the end of this step to the start of the next (pacing), if known. */
  gapAfterMs: number | null;
};

/** Pacing and tolerances of a run (defaults in {@link RUNNER_DEFAULTS}). */
export type RunnerTiming = {
  /** Speed factor: recorded gaps between steps and waits are divided by it. */
  speed: number;
  /** Shortest pause after a step before the next is measured (ms; the app reacts). */
  minSettleMs: number;
  /** Longest pause after a step (ms, before the speed factor). */
  maxSettleMs: number;
  /** Pause after moving to the action point, before the screen is grabbed (hover, ms). */
  hoverMs: number;
  /** How often the pointer is polled while waiting (ms). */
  pollMs: number;
  /** Pointer distance from where the driver left it that counts as the user's input (px). */
  userMoveTolerancePx: number;
  /** Moves a drag is made of between press and release. */
  dragMoves: number;
  /** Characters typed per driver request (the pointer is checked between them). */
  typeChunk: number;
};

/** Defaults of {@link RunnerTiming}. */
export const RUNNER_DEFAULTS: RunnerTiming = {
  speed: 1,
  minSettleMs: 400,
  maxSettleMs: 3000,
  hoverMs: 150,
  pollMs: 40,
  userMoveTolerancePx: 3,
  dragMoves: 8,
  typeChunk: 8,
};

/** Inputs of {@link runReplay}. */
export type RunReplayInput = {
  driver: ReplayDriver;
  /** The plan of every step (replay-screen pixels). */
  plan: readonly StepPlan[];
  /** Per step, then one more for the end state. */
  expectations: readonly ReplayExpectation[];
  /** Maps a replay-screen point to the keyframe's pixels (for masks). */
  toRecorded: (p: Point) => Point;
  /** The element under a replay-screen point (null: none, or no accessibility). */
  elementAt?: (p: Point) => Promise<ReplayElement | null>;
  /** Saves the live screen of a divergent result; returns its path relative to the recording. */
  saveScreenshot?: (result: { index: number; kind: 'step' | 'end' }) => Promise<string | null>;
  /** Aborting stops the run (`reason` from the signal's reason when it is a ReplayStopReason). */
  signal?: AbortSignal;
  /** Called after each result. */
  onResult?: (result: ReplayStepResult, total: number) => void;
  timing?: Partial<RunnerTiming>;
  /** Sleep (tests); default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
};

/** What {@link runReplay} returns. */
export type RunReplayOutput = { results: ReplayStepResult[]; stopped: ReplayStop | null };

/** Thrown inside the run to stop it. */
class Stop extends Error {
  constructor(readonly stop: ReplayStop) {
    super(stop.message);
  }
}

const defaultSleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** True for a primitive that starts at the action point (the pointer goes there first). */
function startsAtPoint(p: ReplayPrimitive | undefined): boolean {
  return (
    p !== undefined &&
    (p.kind === 'click' || p.kind === 'drag' || p.kind === 'move' || p.kind === 'scroll')
  );
}

/** Drives and measures a planned trajectory (docs/replay.md §5). */
export async function runReplay(input: RunReplayInput): Promise<RunReplayOutput> {
  const t: RunnerTiming = { ...RUNNER_DEFAULTS, ...input.timing };
  if (!(t.speed > 0)) {
    throw new AppError('USAGE', `replay speed must be > 0, got ${t.speed}`);
  }
  const sleep = input.sleep ?? defaultSleep;
  const { driver } = input;
  const results: ReplayStepResult[] = [];
  let stepIndex = 0;
  // where the driver left the pointer: anything else is the user's hand
  let expected: Point | null = null;

  const stopWith = (reason: ReplayStopReason, message: string, pointer?: Point): never => {
    throw new Stop({ reason, stepIndex, message, ...(pointer ? { pointer } : {}) });
  };
  const checkSignal = () => {
    const signal = input.signal;
    if (signal?.aborted) {
      const reason = signal.reason as unknown;
      const r =
        reason === 'hotkey' || reason === 'user-input' || reason === 'cancelled'
          ? reason
          : 'cancelled';
      stopWith(r, r === 'hotkey' ? 'the stop hotkey was pressed' : 'the replay was cancelled');
    }
  };
  const checkUser = async () => {
    checkSignal();
    if (expected === null) {
      return;
    }
    const p = await driver.pointer();
    if (
      Math.abs(p.x - expected.x) > t.userMoveTolerancePx ||
      Math.abs(p.y - expected.y) > t.userMoveTolerancePx
    ) {
      stopWith(
        'user-input',
        `the pointer moved to (${p.x}, ${p.y}) while the replay had left it at ` +
          `(${expected.x}, ${expected.y}): the user's own input stops the replay`,
        p,
      );
    }
  };
  const wait = async (ms: number) => {
    const end = performance.now() + ms;
    for (;;) {
      await checkUser();
      const left = end - performance.now();
      if (left <= 0) {
        return;
      }
      await sleep(Math.min(t.pollMs, left));
    }
  };
  const moveTo = async (p: Point) => {
    await checkUser();
    await driver.move(p.x, p.y);
    expected = { x: p.x, y: p.y };
  };

  const measure = async (
    index: number,
    kind: 'step' | 'end',
    plan: StepPlan | null,
    exp: ReplayExpectation,
  ): Promise<ReplayStepResult> => {
    const started = performance.now();
    const { thumbnail: live } = await driver.grab(exp.keyframe?.width ?? THUMBNAIL_WIDTH);
    let diff = null;
    let note: string | null = null;
    if (exp.keyframe === null) {
      note = 'no keyframe to compare with';
    } else if (live.width !== exp.keyframe.width || live.height !== exp.keyframe.height) {
      note =
        `the replay screen (${live.sourceWidth}×${live.sourceHeight}) has another aspect ratio ` +
        `than the recording (${exp.keyframe.sourceWidth}×${exp.keyframe.sourceHeight})`;
    } else {
      const pointers = [...exp.pointers];
      if (expected !== null) {
        pointers.push(input.toRecorded(expected));
      }
      diff = screenDiff(exp.keyframe, live, { pointers, rects: exp.rects });
    }
    const point = kind === 'step' ? (plan?.actionPoint ?? null) : null;
    let liveElement: ReplayElement | null = null;
    let elementMatch: boolean | null = null;
    if (exp.element !== null && point !== null && input.elementAt) {
      liveElement = await input.elementAt(point);
      elementMatch =
        liveElement !== null &&
        liveElement.controlType === exp.element.controlType &&
        liveElement.title === exp.element.title;
    }
    const base = stepResult(index, diff, elementMatch);
    const result: ReplayStepResult = {
      ...base,
      kind,
      stepId: plan?.stepId ?? null,
      recordedElement: elementMatch === null ? null : exp.element,
      liveElement,
      actionPoint: point,
      note,
      screenshot: null,
      keyframe: exp.keyframeFile,
      measureMs: 0,
      driveMs: 0,
    };
    if (!result.ok && input.saveScreenshot) {
      result.screenshot = await input.saveScreenshot({ index, kind });
    }
    result.measureMs = performance.now() - started;
    return result;
  };

  const drive = async (p: ReplayPrimitive) => {
    switch (p.kind) {
      case 'move':
        await moveTo(p);
        return;
      case 'click':
        await moveTo(p);
        await checkUser();
        await driver.click(p.button, p.count);
        return;
      case 'drag': {
        await moveTo(p.from);
        await driver.button(p.button, true);
        try {
          for (let i = 1; i <= t.dragMoves; i++) {
            const f = i / t.dragMoves;
            await sleep(15);
            await moveTo({
              x: Math.round(p.from.x + (p.to.x - p.from.x) * f),
              y: Math.round(p.from.y + (p.to.y - p.from.y) * f),
            });
          }
        } finally {
          await driver.button(p.button, false);
        }
        return;
      }
      case 'scroll':
        if (p.x !== null && p.y !== null) {
          await moveTo({ x: p.x, y: p.y });
        }
        await checkUser();
        await driver.scroll(p.dx, p.dy);
        return;
      case 'type': {
        const chars = [...p.text];
        for (let i = 0; i < chars.length; i += t.typeChunk) {
          await checkUser();
          await driver.type(chars.slice(i, i + t.typeChunk).join(''));
        }
        return;
      }
      case 'press':
        for (const name of p.keys) {
          await checkUser();
          const k = driverKey(name);
          if (k === null) {
            throw new AppError('REPLAY_UNSUPPORTED', `press: no key named '${name}'`);
          }
          if ('text' in k) {
            await driver.type(k.text);
          } else {
            await driver.keys([k.key], true);
            await driver.keys([k.key], false);
          }
        }
        return;
      case 'hotkey': {
        const keys = chordKeys(p.keys);
        if (keys === null) {
          throw new AppError('REPLAY_UNSUPPORTED', `hotkey: cannot press ${p.keys.join('+')}`);
        }
        await checkUser();
        await driver.keys(keys, true);
        await driver.keys(keys, false);
        return;
      }
      case 'wait':
        await wait(p.ms / t.speed);
        return;
      case 'end':
        return;
    }
  };

  try {
    const first = await driver.pointer();
    expected = first;
    for (const plan of input.plan) {
      stepIndex = plan.index;
      const exp = input.expectations[plan.index];
      if (!exp) {
        throw new AppError('USAGE', `no expectation for step ${plan.index}`);
      }
      await checkUser();
      if (plan.masked) {
        // typed into a password field: its characters are unknown, so it is neither driven nor
        // compared (the service leaves it out of the score)
        const result: ReplayStepResult = {
          index: plan.index,
          kind: 'step',
          stepId: plan.stepId,
          screenDiff: null,
          elementMatch: null,
          ok: false,
          masked: true,
          recordedElement: null,
          liveElement: null,
          actionPoint: null,
          note: MASKED_NOTE,
          screenshot: null,
          keyframe: exp.keyframeFile,
          measureMs: 0,
          driveMs: 0,
        };
        results.push(result);
        input.onResult?.(result, input.plan.length + 1);
        continue;
      }
      if (plan.actionPoint !== null && startsAtPoint(plan.primitives[0])) {
        await moveTo(plan.actionPoint);
        await wait(t.hoverMs);
      }
      const result = await measure(plan.index, 'step', plan, exp);
      if (plan.unsupported !== null) {
        result.ok = false;
        result.note = plan.unsupported;
      }
      results.push(result);
      const driveStarted = performance.now();
      let driveError: string | null = null;
      try {
        for (const p of plan.primitives) {
          await drive(p);
        }
      } catch (error) {
        if (error instanceof Stop || !(error instanceof AppError)) {
          throw error;
        }
        if (error.code !== 'REPLAY_UNSUPPORTED') {
          throw error;
        }
        driveError = error.message;
      }
      result.driveMs = performance.now() - driveStarted;
      if (driveError !== null) {
        result.ok = false;
        result.note = driveError;
      }
      // an unsupported step or key makes the result divergent after its measure: the live screen
      // of that measure is still the driver's last grab (driving grabs nothing)
      if (!result.ok && result.screenshot === null && input.saveScreenshot) {
        result.screenshot = await input.saveScreenshot({ index: result.index, kind: 'step' });
      }
      input.onResult?.(result, input.plan.length + 1);
      const gap = exp.gapAfterMs ?? t.minSettleMs;
      await wait(Math.max(t.minSettleMs, Math.min(t.maxSettleMs, gap) / t.speed));
    }
    stepIndex = input.plan.length;
    const end = input.expectations[input.plan.length];
    if (end) {
      await checkUser();
      const result = await measure(input.plan.length, 'end', null, end);
      results.push(result);
      input.onResult?.(result, input.plan.length + 1);
    }
    return { results, stopped: null };
  } catch (error) {
    if (error instanceof Stop) {
      return { results, stopped: error.stop };
    }
    // the driver died (an X error, the display gone): what was measured is kept in the report
    if (error instanceof AppError && error.code === 'REPLAY_DRIVER_FAILED') {
      return { results, stopped: { reason: 'error', stepIndex, message: error.message } };
    }
    throw error;
  }
}
