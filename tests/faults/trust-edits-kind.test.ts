// Issue 26 item 16 (README fault row 44): the review page's optimistic preview and the edit
// service must name a step's kind alike. Both paths are driven with the same call lists (a
// set-action edit): the preview's step (renderer/lib/edit-preview.ts, what the review store
// shows at once) and the service's step (services/edits/apply-edits.ts, what is stored and
// exported) must carry the same kind, and that kind is the contract's answer.
import { describe, expect, it } from 'vitest';
import type { StepDto, StoredEdit } from '../../src/shared/contract';
import type { ActionCall, Step, StepKind } from '../../src/shared/domain';
import { previewSteps } from '../../src/renderer/lib/edit-preview';
import { applyEdits } from '../../src/services/edits/apply-edits';
import { stepKindOfCalls } from '../../src/shared/domain';
import { reduce } from '../../src/pipeline/reduce';
import { EventScript, TEST_CONTEXT } from '../pipeline/reduce/event-script';
import { makeStep } from '../renderer/helpers/dto';

const SCREEN = { width: 1366, height: 768 };
const f = (v: number) => ({ float: v });
const moveTo: ActionCall = { name: 'moveTo', args: { x: f(0.5), y: f(0.25) } };
const click: ActionCall = { name: 'click', args: { x: f(0.5), y: f(0.25) } };
const scroll = (n: number): ActionCall => ({ name: 'scroll', args: { clicks: { int: n } } });
const hscroll = (n: number): ActionCall => ({ name: 'hscroll', args: { clicks: { int: n } } });
const write = (message: string): ActionCall => ({ name: 'write', args: { message } });
const press = (...keys: string[]): ActionCall => ({ name: 'press', args: { keys } });
const hotkey = (...keys: string[]): ActionCall => ({ name: 'hotkey', args: { keys } });

/** Call lists and the kind the contract gives them. */
const CASES: { calls: ActionCall[]; kind: StepKind }[] = [
  // the two cases of the report
  { calls: [hscroll(2)], kind: 'hscroll' },
  { calls: [moveTo, click], kind: 'click' },
  // the rest of the action space, alone and behind a pre-move
  { calls: [click], kind: 'click' },
  { calls: [moveTo, { name: 'doubleClick', args: { x: f(0.1), y: f(0.2) } }], kind: 'doubleClick' },
  { calls: [{ name: 'rightClick', args: { x: f(0.1), y: f(0.2) } }], kind: 'rightClick' },
  { calls: [{ name: 'middleClick', args: { x: f(0.1), y: f(0.2) } }], kind: 'middleClick' },
  { calls: [{ name: 'tripleClick', args: { x: f(0.1), y: f(0.2) } }], kind: 'tripleClick' },
  {
    calls: [moveTo, { name: 'dragTo', args: { x: f(0.7), y: f(0.2), button: 'left' } }],
    kind: 'dragTo',
  },
  { calls: [moveTo], kind: 'moveTo' },
  { calls: [scroll(-3)], kind: 'scroll' },
  { calls: [moveTo, scroll(-3)], kind: 'scroll' },
  { calls: [moveTo, hscroll(4)], kind: 'hscroll' },
  // a diagonal scroll is a vertical one, as the reducer names it
  { calls: [moveTo, hscroll(1), scroll(-2)], kind: 'scroll' },
  { calls: [write('abc')], kind: 'write' },
  { calls: [write('abc'), press('enter')], kind: 'write' },
  { calls: [press('backspace'), write('abc')], kind: 'write' },
  { calls: [press('enter')], kind: 'press' },
  { calls: [hotkey('ctrl', 'c')], kind: 'hotkey' },
  { calls: [hotkey('ctrl', 'c'), hotkey('ctrl', 'c')], kind: 'hotkey' },
  { calls: [{ name: 'wait', args: {} }], kind: 'wait' },
  { calls: [{ name: 'terminate', args: { status: 'success' } }], kind: 'terminate' },
];

function previewKind(calls: ActionCall[]): StepKind {
  const base = makeStep('s0', 0);
  const [step] = previewSteps([base], { op: 'set-action', stepId: 's0', calls });
  return step!.kind;
}

function serviceKind(calls: ActionCall[]): StepKind {
  const dto: StepDto = makeStep('s0', 0);
  const base: Step = {
    id: dto.id,
    index: 0,
    kind: dto.kind,
    description: dto.description,
    label: dto.label,
    calls: dto.calls,
    startMs: dto.startMs,
    endMs: dto.endMs,
    eventStartIdx: 0,
    coordinate: dto.coordinate,
    preMove: null,
    target: null,
    extra: {},
    diagnostics: [],
  };
  const edit: StoredEdit = {
    id: 1,
    atMs: 0,
    author: null,
    state: 'active',
    edit: { op: 'set-action', stepId: 's0', calls },
  };
  const applied = applyEdits([base], [edit], { screen: SCREEN });
  expect(applied.skipped).toEqual([]);
  return applied.steps[0]!.kind;
}

describe('issue 26 item 16: one step kind for the preview and the service', () => {
  it.each(CASES.map((c) => [c.calls.map((x) => x.name).join(', '), c] as const))(
    'item 44: [%s]: the preview and the service give the same (contract) kind',
    (_name, { calls, kind }) => {
      const preview = previewKind(calls);
      const service = serviceKind(calls);
      expect({ preview, service }).toEqual({ preview: service, service: kind });
    },
  );
});

describe('issue 26 item 16: the one kind agrees with the reducer', () => {
  it('item 44: every step the reducer makes has the kind its calls give', () => {
    const s = new EventScript();
    s.moveTo(100, 100).click().wait(600);
    s.moveTo(200, 100).click().wait(80).click().wait(600);
    s.moveTo(300, 100).click('right').wait(600);
    s.moveTo(400, 100).click('middle').wait(600);
    s.moveTo(500, 100).click('left', 1500).wait(600);
    s.moveTo(100, 200).down().moveTo(300, 260, 6).up().wait(600);
    s.moveTo(400, 400).wheel(0, -1).wait(50).wheel(0, -1).wait(600);
    s.moveTo(450, 400).wheel(1, 0).wait(50).wheel(1, 0).wait(50).wheel(1, 0).wait(600);
    s.moveTo(500, 400).wheel(1, -1).wait(50).wheel(1, -1).wait(600);
    s.type('hi there').tap('enter').wait(600);
    s.moveTo(600, 500).click().wait(600).tap('tab').wait(600);
    s.keyDown('ctrl_l').tap('c', 50, { char: null }).keyUp('ctrl_l').wait(600);
    const { steps } = reduce(s.events, TEST_CONTEXT);
    expect(steps.length).toBeGreaterThanOrEqual(10);
    const kinds = steps.map((st) => ({ reduced: st.kind, calls: stepKindOfCalls(st.calls) }));
    expect(kinds.map((k) => k.calls)).toEqual(kinds.map((k) => k.reduced));
    expect(new Set(kinds.map((k) => k.reduced))).toEqual(
      new Set([
        'click',
        'doubleClick',
        'rightClick',
        'middleClick',
        'dragTo',
        'scroll',
        'hscroll',
        'write',
        'press',
        'hotkey',
      ]),
    );
  });
});
