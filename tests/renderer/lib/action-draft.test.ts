import { describe, expect, it } from 'vitest';
import type { ActionCall } from '../../../src/shared/domain';
import {
  draftFromCalls,
  draftOverlay,
  draftToCalls,
  emptyDraft,
  isValidKeyName,
  parseKeysText,
  setDraftPoint,
  validateDraft,
} from '../../../src/renderer/lib/action-draft';

const f = (v: number) => ({ float: v });

// calls as the pipeline produces them (docs/pyautogui-code.md §1) survive draft → calls unchanged
const ROUND_TRIPS: [string, ActionCall[]][] = [
  ['click', [{ name: 'click', args: { x: f(0.9722181551976574), y: f(0.9700520833333334) } }]],
  ['doubleClick', [{ name: 'doubleClick', args: { x: f(0.1), y: f(0.2) } }]],
  ['tripleClick', [{ name: 'tripleClick', args: { x: f(0.1), y: f(0.2) } }]],
  ['rightClick', [{ name: 'rightClick', args: { x: f(0.9553), y: f(0.5117) } }]],
  ['middleClick', [{ name: 'middleClick', args: { x: f(0.3), y: f(0.4) } }]],
  ['moveTo', [{ name: 'moveTo', args: { x: f(0.3), y: f(0.4) } }]],
  [
    'drag',
    [
      { name: 'moveTo', args: { x: f(0.4546), y: f(0.2682) } },
      { name: 'dragTo', args: { x: f(0.4107), y: f(0.2773), button: 'left' } },
    ],
  ],
  [
    'scroll with position',
    [
      { name: 'moveTo', args: { x: f(0.396), y: f(0.7839) } },
      { name: 'scroll', args: { clicks: { int: -3 } } },
    ],
  ],
  [
    'both scroll axes (hscroll first)',
    [
      { name: 'hscroll', args: { clicks: { int: 4 } } },
      { name: 'scroll', args: { clicks: { int: 2 } } },
    ],
  ],
  ['write', [{ name: 'write', args: { message: 'SPOTIFY' } }]],
  ['press', [{ name: 'press', args: { keys: ['enter'] } }]],
  ['hotkey', [{ name: 'hotkey', args: { keys: ['ctrl', 'c'] } }]],
  ['wait', [{ name: 'wait', args: {} }]],
  ['terminate failure', [{ name: 'terminate', args: { status: 'failure' } }]],
];

describe('draft ↔ calls', () => {
  it.each(ROUND_TRIPS)('%s round-trips', (_name, calls) => {
    expect(draftToCalls(draftFromCalls(calls))).toEqual(calls);
  });

  it('reads positional forms', () => {
    expect(draftFromCalls([{ name: 'hotkey', args: ['ctrl', 'v'] }])).toMatchObject({
      kind: 'hotkey',
      keys: ['ctrl', 'v'],
    });
    expect(draftFromCalls([{ name: 'click', args: [f(0.5), f(0.6)] }])).toMatchObject({
      kind: 'click',
      point: { x: 0.5, y: 0.6 },
    });
  });

  it('cannot hold a step of several actions (the editor warns before replacing them)', () => {
    const calls: ActionCall[] = [
      { name: 'write', args: { message: 'abc' } },
      { name: 'press', args: { keys: ['enter'] } },
    ];
    expect(draftToCalls(draftFromCalls(calls))).toEqual([calls[0]]);
  });

  it('keeps fields when the kind changes', () => {
    const d = draftFromCalls([{ name: 'click', args: { x: f(0.5), y: f(0.6) } }]);
    expect(draftToCalls({ ...d, kind: 'rightClick' })).toEqual([
      { name: 'rightClick', args: { x: f(0.5), y: f(0.6) } },
    ]);
  });
});

describe('validateDraft', () => {
  it.each([
    ['click without point', emptyDraft('click'), ['point']],
    ['click off screen', { ...emptyDraft('click'), point: { x: 1.2, y: 0.5 } }, ['point']],
    ['click with NaN', { ...emptyDraft('click'), point: { x: Number.NaN, y: 0.5 } }, ['point']],
    ['drag without end', { ...emptyDraft('dragTo'), point: { x: 0.1, y: 0.1 } }, ['point2']],
    ['scroll of 0 notches', emptyDraft('scroll'), ['clicks']],
    ['scroll of 1.5 notches', { ...emptyDraft('scroll'), clicks: 1.5 }, ['clicks']],
    ['empty write', emptyDraft('write'), ['message']],
    ['hotkey without keys', emptyDraft('hotkey'), ['keys']],
    ['unknown key', { ...emptyDraft('press'), keys: ['enter', 'hyper'] }, ['keys']],
    ['wait', emptyDraft('wait'), []],
    ['terminate', emptyDraft('terminate'), []],
    ['valid click', { ...emptyDraft('click'), point: { x: 0, y: 1 } }, []],
  ])('%s', (_name, draft, fields) => {
    expect(Object.keys(validateDraft(draft)).sort()).toEqual(fields);
    expect(draftToCalls(draft) === null).toBe(fields.length > 0);
  });
});

describe('keyframe picking and keys', () => {
  it('sets the point picked on the keyframe at 4 decimals', () => {
    const d = setDraftPoint(emptyDraft('dragTo'), 'point2', { x: 0.123456, y: 0.654321 });
    expect(d.point2).toEqual({ x: 0.1235, y: 0.6543 });
    expect(d.point).toBeNull();
  });

  it.each([
    ['ctrl+c', ['ctrl', 'c']],
    ['Ctrl + Shift + T', ['ctrl', 'shift', 'T']],
    ['enter, tab', ['enter', 'tab']],
    ['+', ['+']],
    ['  ', []],
  ])('parses %j', (text, keys) => {
    expect(parseKeysText(text)).toEqual(keys);
  });

  it.each([
    ['enter', true],
    ['f12', true],
    ['a', true],
    ['é', true],
    [' ', false],
    ['hyper', false],
    ['', false],
  ])('key %j valid: %s', (key, ok) => {
    expect(isValidKeyName(key)).toBe(ok);
  });

  it('draws incomplete drafts', () => {
    expect(draftOverlay({ ...emptyDraft('dragTo'), point: { x: 0.1, y: 0.2 } }).pointer).toEqual({
      x: 0.1,
      y: 0.2,
    });
    expect(draftOverlay({ ...emptyDraft('scroll'), clicks: -2 }).scroll).toEqual({ dx: 0, dy: -2 });
  });
});
