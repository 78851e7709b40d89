import { describe, expect, it } from 'vitest';
import type { GtAction, PredAction } from '../../../src/pipeline/eval/agentnetbench';
import {
  COORD_THRESHOLD,
  evaluateAction,
  evaluateStep,
  levenshtein,
} from '../../../src/pipeline/eval/agentnetbench';

const at = (type: string, x: number, y: number, rel_bbox?: number[]): GtAction => ({
  type,
  params: { position: { x, y } },
  ...(rel_bbox === undefined ? {} : { metadata: { bboxes: [{ category_id: 1, rel_bbox }] } }),
});
const write = (text: string): GtAction => ({ type: 'write', params: { text } });
const keys = (type: 'press' | 'hotkey', ...k: string[]): GtAction => ({
  type,
  params: { keys: k },
});
const scroll = (x: number, y: number, amount: number): GtAction => ({
  type: 'scroll',
  params: { position: { x, y }, amount },
});
const terminate = (status: string): GtAction => ({ type: 'terminate', params: { status } });
const p = (type: string, value: PredAction[1]): PredAction => [type, value];

type Row = {
  name: string;
  gt: GtAction[];
  pred: PredAction[];
  total: number;
  perType?: Record<string, number>;
};

// docs/pyautogui-code.md §8.3 golden vectors (verified); totals compared bit-exactly with toBe.
const ROWS: readonly Row[] = [
  { name: 'click exact', gt: [at('click', 0.5, 0.5)], pred: [p('click', [0.5, 0.5])], total: 1 },
  {
    name: 'click 0.01 away (within threshold)',
    gt: [at('click', 0.5, 0.5)],
    pred: [p('click', [0.51, 0.5])],
    total: 1,
  },
  {
    name: 'click 0.02 away',
    gt: [at('click', 0.5, 0.5)],
    pred: [p('click', [0.52, 0.5])],
    total: 0.4951256426170984,
    perType: { click: 0.4951256426170984 },
  },
  {
    name: 'click 0.05 away',
    gt: [at('click', 0.5, 0.5)],
    pred: [p('click', [0.55, 0.5])],
    total: 0.013528675635406922,
  },
  {
    name: 'click inside rel_bbox (far corner)',
    gt: [at('click', 0.1, 0.1, [0.4, 0.4, 0.3, 0.3])],
    pred: [p('click', [0.7, 0.7])],
    total: 1,
  },
  {
    name: 'click inside rel_bbox (near corner)',
    gt: [at('click', 0.1, 0.1, [0.4, 0.4, 0.3, 0.3])],
    pred: [p('click', [0.4, 0.4])],
    total: 1,
  },
  {
    name: 'click vs doubleClick',
    gt: [at('click', 0.5, 0.5)],
    pred: [p('doubleClick', [0.5, 0.5])],
    total: 0,
  },
  { name: 'write hello/helo', gt: [write('hello')], pred: [p('write', 'helo')], total: 1 },
  {
    name: 'write similarity 0.7',
    gt: [write('abcdefghij')],
    pred: [p('write', 'abcdefgxyz')],
    total: 0.8749999999999999,
    perType: { write: 0.8749999999999999 },
  },
  { name: 'write case and strip', gt: [write('Hello ')], pred: [p('write', 'hello')], total: 1 },
  { name: 'write trailing newline', gt: [write('abc\n')], pred: [p('write', 'abc')], total: 1 },
  {
    name: 'write newline penalty never applies',
    gt: [write('abcdefghij\n')],
    pred: [p('write', 'abcdefghXY')],
    total: 1,
  },
  { name: 'write empty/empty', gt: [write('')], pred: [p('write', '')], total: 1 },
  {
    name: 'write + press enter on both sides',
    gt: [write('abc'), keys('press', 'enter')],
    pred: [p('write', 'abc'), p('press', ['enter'])],
    total: 1,
    perType: { write: 1 },
  },
  {
    name: 'GT write + hotkey enter vs write',
    gt: [write('abc'), keys('hotkey', 'enter')],
    pred: [p('write', 'abc')],
    total: 1,
    perType: { write: 1 },
  },
  {
    name: 'hotkey key sets, case-insensitive',
    gt: [keys('hotkey', 'ctrl', 'c')],
    pred: [p('hotkey', ['C', 'ctrl'])],
    total: 1,
  },
  {
    name: 'hotkey vs press',
    gt: [keys('hotkey', 'ctrl', 'c')],
    pred: [p('press', ['ctrl', 'c'])],
    total: 0,
  },
  {
    name: 'moveTo + dragTo vs moveTo',
    gt: [at('moveTo', 0.3, 0.3), at('dragTo', 0.6, 0.6)],
    pred: [p('moveTo', [0.3, 0.3])],
    total: 0.5,
    perType: { moveto: 1, dragto: 0 },
  },
  {
    name: 'moveTo + scroll: scroll amount ignored',
    gt: [at('moveTo', 0.2, 0.2), scroll(0.2, 0.2, -5)],
    pred: [p('moveTo', [0.9, 0.9]), p('scroll', 10)],
    total: 0.5,
  },
  {
    name: 'terminate success/success',
    gt: [terminate('success')],
    pred: [p('terminate', 'success')],
    total: 1,
  },
  {
    name: 'terminate success/failure',
    gt: [terminate('success')],
    pred: [p('terminate', 'failure')],
    total: 0,
  },
  {
    name: 'terminate success/click',
    gt: [terminate('success')],
    pred: [p('click', [0.5, 0.5])],
    total: 0,
  },
  { name: 'click vs write', gt: [at('click', 0.5, 0.5)], pred: [p('write', 'x')], total: 0 },
  {
    name: 'middleClick: empty score map',
    gt: [at('middleClick', 0.5, 0.5)],
    pred: [p('middleClick', [0.5, 0.5])],
    total: 0,
    perType: {},
  },
  {
    name: 'middleClick + click: click only',
    gt: [at('middleClick', 0.5, 0.5), at('click', 0.2, 0.2)],
    pred: [p('middleClick', [0.5, 0.5]), p('click', [0.2, 0.2])],
    total: 1,
    perType: { click: 1 },
  },
  {
    name: 'click + write vs click + click',
    gt: [at('click', 0.5, 0.5), write('abc')],
    pred: [p('click', [0.5, 0.5]), p('click', [0.5, 0.5])],
    total: 0.5,
    perType: { click: 1, write: 0 },
  },
  {
    name: 'click + click vs exact + far',
    gt: [at('click', 0.2, 0.2), at('click', 0.8, 0.8)],
    pred: [p('click', [0.2, 0.2]), p('click', [0.1, 0.1])],
    total: 0.5,
  },
  { name: 'click vs empty prediction', gt: [at('click', 0.5, 0.5)], pred: [], total: 0 },
];

describe('evaluateAction (§8.3 golden vectors)', () => {
  it.each(ROWS)('$name', ({ gt, pred, total, perType }) => {
    const score = evaluateAction(gt, pred);
    expect(score.total).toBe(total);
    if (perType !== undefined) {
      expect(score.perType).toEqual(perType);
    }
  });

  it('moveTo far away scores ≈ 1.4e−51', () => {
    const score = evaluateAction(
      [at('moveTo', 0.2, 0.2), scroll(0.2, 0.2, -5)],
      [p('moveTo', [0.9, 0.9]), p('scroll', 10)],
    );
    expect(score.perType.scroll).toBe(1);
    expect(score.perType.moveto).toBeGreaterThan(1.3e-51);
    expect(score.perType.moveto).toBeLessThan(1.5e-51);
  });

  it('does not mutate its inputs when merging write + Enter', () => {
    const gt = [write('abc'), keys('press', 'Return')];
    const pred: PredAction[] = [p('write', 'abc'), p('press', ['ENTER'])];
    const gtBefore = structuredClone(gt);
    const predBefore = structuredClone(pred);
    expect(evaluateAction(gt, pred).total).toBe(1);
    expect(gt).toEqual(gtBefore);
    expect(pred).toEqual(predBefore);
  });

  it('returns 0 for an empty GT list', () => {
    expect(evaluateAction([], [p('click', [0.5, 0.5])])).toEqual({ total: 0, perType: {} });
  });

  it('accepts GT write `content` and uses the constant threshold', () => {
    const gt: GtAction[] = [{ type: 'write', params: { content: 'abc' } }];
    expect(evaluateAction(gt, [p('write', 'ABC')]).total).toBe(1);
    expect(COORD_THRESHOLD).toBe(0.01 * Math.sqrt(2));
  });
});

describe('levenshtein', () => {
  it('counts edits over code points', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3);
    expect(levenshtein('', 'abc')).toBe(3);
    expect(levenshtein('😀a', '😀b')).toBe(1);
  });
});

describe('evaluateStep (alternative_options)', () => {
  const gtActions = [at('click', 0.5, 0.5)];
  const alternative = [at('click', 0.8, 0.8)];

  it('keeps the GT when it scores 1.0', () => {
    const score = evaluateStep(
      { ground_truth_actions: gtActions, alternative_options: [alternative] },
      [p('click', [0.5, 0.5])],
    );
    expect(score.total).toBe(1);
    expect(score.alternativeMatched).toBe(false);
    expect(score.usedActions).toBe(gtActions);
  });

  it('uses the best alternative when the GT scores below 1.0', () => {
    const score = evaluateStep(
      { ground_truth_actions: gtActions, alternative_options: [[write('x')], alternative] },
      [p('click', [0.8, 0.8])],
    );
    expect(score.total).toBe(1);
    expect(score.alternativeMatched).toBe(true);
    expect(score.usedActions).toBe(alternative);
  });

  it('keeps the GT when no alternative does better or none exist', () => {
    const pred = [p('click', [0.52, 0.5])];
    const withWorse = evaluateStep(
      { ground_truth_actions: gtActions, alternative_options: [[write('x')]] },
      pred,
    );
    expect(withWorse.total).toBe(0.4951256426170984);
    expect(withWorse.alternativeMatched).toBe(false);
    const without = evaluateStep({ ground_truth_actions: gtActions }, pred);
    expect(without.usedActions).toBe(gtActions);
    expect(without.alternativeMatched).toBe(false);
  });
});
