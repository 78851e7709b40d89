// applyEdits is pure: each case is base steps + an edit log → the expected resulting steps.
import { describe, expect, it } from 'vitest';
import type { EditState, StepEdit, StoredEdit } from '../../../src/shared/contract';
import type { ActionCall, Step } from '../../../src/shared/domain';
import { callsToCode } from '../../../src/pipeline/code';
import { applyEdits, mergeCalls } from '../../../src/services/edits/apply-edits';
import { splitCalls } from '../../../src/shared/domain';

const SCREEN = { width: 1000, height: 500 };
const KEYBOARD = '\u2328\uFE0F';

function step(id: string, startMs: number, calls: ActionCall[], extra: Partial<Step> = {}): Step {
  return {
    id,
    index: 0,
    kind: 'click',
    description: 'Single left Click',
    label: `label ${id}`,
    calls,
    startMs,
    endMs: startMs + 100,
    eventStartIdx: startMs,
    coordinate: { x: 100, y: 100 },
    preMove: null,
    target: null,
    extra: { agentnet: { id: 0, complete: { action: 'click' }, vis: { action: 'click' } } },
    diagnostics: [],
    ...extra,
  };
}

const click = (x: number, y: number): ActionCall => ({
  name: 'click',
  args: { x: { float: x }, y: { float: y } },
});
const write = (message: string): ActionCall => ({ name: 'write', args: { message } });
const press = (...keys: string[]): ActionCall => ({ name: 'press', args: { keys } });
const moveTo = (x: number, y: number): ActionCall => ({
  name: 'moveTo',
  args: { x: { float: x }, y: { float: y } },
});
const scroll = (clicks: number): ActionCall => ({
  name: 'scroll',
  args: { clicks: { int: clicks } },
});

/** Keyboard step "hello" typed at 1000, 1010, … with its keystroke records. */
function typing(id: string, startMs: number, text: string): Step {
  return step(id, startMs, [write(text)], {
    kind: 'write',
    description: `${KEYBOARD} Type: ${text}`,
    coordinate: null,
    endMs: startMs + text.length * 10 + 200,
    extra: {
      keystrokes: Array.from(text).map((ch, i) => ({
        idx: startMs + i,
        key: ch,
        rawKey: ch,
        text: ch,
        isRepeat: false,
        tMs: startMs + i * 10,
      })),
    },
  });
}

const BASE: Step[] = [
  step('s0', 0, [click(0.1, 0.2)]),
  step('s1', 1000, [click(0.3, 0.4)]),
  typing('s2', 2000, 'hello'),
  typing('s3', 3000, 'world'),
  step('s4', 4000, [moveTo(0.5, 0.5), scroll(-3)], { kind: 'scroll', description: 'Scroll' }),
  step('s5', 5000, [moveTo(0.6, 0.6), scroll(-2)], { kind: 'scroll', description: 'Scroll' }),
  step('s6', 6000, [click(0.7, 0.8)]),
].map((s, index) => ({ ...s, index }));

function log(...edits: (StepEdit | [StepEdit, EditState])[]): StoredEdit[] {
  return edits.map((e, i) => {
    const [edit, state] = Array.isArray(e) ? e : [e, 'active' as const];
    return { id: i + 1, atMs: 0, author: null, edit, state };
  });
}

/** What a case checks: ids in order, plus optional per-step facts. */
type Expect = {
  ids: string[];
  labels?: Record<string, string>;
  codes?: Record<string, string>;
  descriptions?: Record<string, string>;
  times?: Record<string, [number, number]>;
  edited?: string[];
  skipped?: string[];
  marks?: Record<string, string>;
  trimmedOut?: number;
};

type Case = { name: string; edits: StoredEdit[]; expect: Expect };

const CASES: Case[] = [
  {
    name: 'no edits: the base steps',
    edits: [],
    expect: { ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'], edited: [] },
  },
  {
    name: 'relabel',
    edits: log({ op: 'relabel', stepId: 's1', label: 'Click OK' }),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'],
      labels: { s1: 'Click OK', s0: 'label s0' },
      edited: ['s1'],
    },
  },
  {
    name: 'set-action: calls, kind, AgentNet description and coordinate follow',
    edits: log({
      op: 'set-action',
      stepId: 's0',
      calls: [{ name: 'doubleClick', args: { x: { float: 0.25 }, y: { float: 0.5 } } }],
    }),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'],
      codes: { s0: 'pyautogui.doubleClick(x=0.25, y=0.5)' },
      descriptions: { s0: 'Double left Click' },
      edited: ['s0'],
    },
  },
  {
    name: 'delete',
    edits: log({ op: 'delete', stepId: 's1' }),
    expect: { ids: ['s0', 's2', 's3', 's4', 's5', 's6'], edited: [] },
  },
  {
    name: 'merge of two typing steps: one write, one Type description, joined span',
    edits: log({ op: 'merge', stepIds: ['s2', 's3'] }),
    expect: {
      ids: ['s0', 's1', 's2', 's4', 's5', 's6'],
      codes: { s2: "pyautogui.write(message='helloworld')" },
      descriptions: { s2: `${KEYBOARD} Type: helloworld` },
      labels: { s2: 'label s2 label s3' },
      times: { s2: [2000, 3250] },
      edited: ['s2'],
    },
  },
  {
    name: 'merge of two scrolls: the notches add up',
    edits: log({ op: 'merge', stepIds: ['s4', 's5'] }),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's6'],
      codes: { s4: 'pyautogui.moveTo(x=0.5, y=0.5)\npyautogui.scroll(-5)' },
      descriptions: { s4: 'Scroll \u2B07\uFE0F\u00D75  ' },
    },
  },
  {
    name: 'set-action on a scroll: described only while the calls match the recorded ticks',
    edits: log(
      { op: 'set-action', stepId: 's4', calls: [moveTo(0.4, 0.4), scroll(-5)] },
      { op: 'set-action', stepId: 's5', calls: [moveTo(0.4, 0.4), scroll(-2)] },
    ),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'],
      descriptions: { s4: '', s5: 'Scroll \u2B07\uFE0F\u00D72  ' },
    },
  },
  {
    name: 'the recorded ticks follow a step through edits: merge after a set-action',
    edits: log(
      { op: 'set-action', stepId: 's4', calls: [moveTo(0.5, 0.5), scroll(-4)] },
      { op: 'merge', stepIds: ['s4', 's5'] },
      { op: 'set-action', stepId: 's4', calls: [moveTo(0.5, 0.5), scroll(-5)] },
    ),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's6'],
      descriptions: { s4: 'Scroll \u2B07\uFE0F\u00D75  ' },
    },
  },
  {
    name: 'merge of two clicks: both calls, no AgentNet description',
    edits: log({ op: 'merge', stepIds: ['s0', 's1'] }),
    expect: {
      ids: ['s0', 's2', 's3', 's4', 's5', 's6'],
      codes: { s0: 'pyautogui.click(x=0.1, y=0.2)\npyautogui.click(x=0.3, y=0.4)' },
      descriptions: { s0: '' },
    },
  },
  {
    name: 'merge of steps that are not adjacent is skipped',
    edits: log({ op: 'merge', stepIds: ['s0', 's2'] }),
    expect: { ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'], skipped: ['NOT_ADJACENT'] },
  },
  {
    name: 'split of a write step at an offset: the second half starts at that key-down',
    edits: log({ op: 'split', stepId: 's2', at: 2 }),
    expect: {
      ids: ['s0', 's1', 's2', 'edit:1', 's3', 's4', 's5', 's6'],
      codes: { s2: "pyautogui.write(message='he')", 'edit:1': "pyautogui.write(message='llo')" },
      descriptions: { s2: `${KEYBOARD} Type: he`, 'edit:1': `${KEYBOARD} Type: llo` },
      times: { s2: [2000, 2020], 'edit:1': [2020, 2250] },
      edited: ['s2', 'edit:1'],
    },
  },
  {
    name: 'split outside the text is skipped',
    edits: log({ op: 'split', stepId: 's2', at: 5 }),
    expect: { ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'], skipped: ['NOT_SPLITTABLE'] },
  },
  {
    name: 'split of a click is skipped',
    edits: log({ op: 'split', stepId: 's0', at: 1 }),
    expect: { ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'], skipped: ['NOT_SPLITTABLE'] },
  },
  {
    name: 'insert wait at the start and after a step',
    edits: log(
      { op: 'insert', afterStepId: null, kind: 'wait' },
      { op: 'insert', afterStepId: 's1', kind: 'wait', seconds: 2 },
    ),
    expect: {
      ids: ['edit:1', 's0', 's1', 'edit:2', 's2', 's3', 's4', 's5', 's6'],
      codes: { 'edit:1': 'computer.wait()', 'edit:2': 'computer.wait(seconds=2.0)' },
      times: { 'edit:1': [0, 0], 'edit:2': [1100, 3100] },
      edited: ['edit:1', 'edit:2'],
    },
  },
  {
    name: 'insert terminate after the last step',
    edits: log({ op: 'insert', afterStepId: 's6', kind: 'terminate', status: 'failure' }),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 'edit:1'],
      codes: { 'edit:1': "computer.terminate(status='failure')" },
    },
  },
  {
    name: 'insert terminate elsewhere, or twice, is skipped',
    edits: log(
      { op: 'insert', afterStepId: 's1', kind: 'terminate' },
      { op: 'insert', afterStepId: 's6', kind: 'terminate' },
      { op: 'insert', afterStepId: 'edit:2', kind: 'terminate' },
    ),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6', 'edit:2'],
      skipped: ['TERMINATE_NOT_LAST', 'TERMINATE_EXISTS'],
    },
  },
  {
    name: 'trim leaves out steps starting outside the window; the last trim wins',
    edits: log({ op: 'trim', startMs: 0, endMs: 1000 }, { op: 'trim', startMs: 1000, endMs: 5000 }),
    expect: { ids: ['s1', 's2', 's3', 's4', 's5'], trimmedOut: 2 },
  },
  {
    name: 'marks: set, replace, clear; a deleted step loses its mark',
    edits: log(
      { op: 'mark', stepId: 's0', mark: 'redundant' },
      { op: 'mark', stepId: 's1', mark: 'incorrect' },
      { op: 'mark', stepId: 's1', mark: 'correct' },
      { op: 'mark', stepId: 's2', mark: 'correct' },
      { op: 'mark', stepId: 's2', mark: null },
      { op: 'delete', stepId: 's0' },
    ),
    expect: { ids: ['s1', 's2', 's3', 's4', 's5', 's6'], marks: { s1: 'correct' } },
  },
  {
    name: 'undone and discarded edits are not applied',
    edits: log(
      { op: 'relabel', stepId: 's0', label: 'kept' },
      [{ op: 'delete', stepId: 's1' }, 'discarded'],
      [{ op: 'delete', stepId: 's2' }, 'undone'],
    ),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'],
      labels: { s0: 'kept' },
    },
  },
  {
    name: 'edits of steps that vanished (re-reduction) are skipped; the rest still apply',
    edits: log(
      { op: 'relabel', stepId: 'gone:1', label: 'x' },
      { op: 'delete', stepId: 'gone:2' },
      { op: 'merge', stepIds: ['s6', 'gone:3'] },
      { op: 'mark', stepId: 'gone:4', mark: 'correct' },
      { op: 'insert', afterStepId: 'gone:5', kind: 'wait' },
      { op: 'relabel', stepId: 's6', label: 'still applied' },
    ),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 's4', 's5', 's6'],
      labels: { s6: 'still applied' },
      skipped: ['STEP_MISSING', 'STEP_MISSING', 'STEP_MISSING', 'STEP_MISSING', 'STEP_MISSING'],
    },
  },
  {
    name: 'edits compose: split, merge the second half back, relabel the inserted step',
    edits: log(
      { op: 'split', stepId: 's3', at: 3 },
      { op: 'merge', stepIds: ['edit:1', 's4'] },
      { op: 'insert', afterStepId: 's3', kind: 'wait' },
      { op: 'relabel', stepId: 'edit:3', label: 'let it load' },
    ),
    expect: {
      ids: ['s0', 's1', 's2', 's3', 'edit:3', 'edit:1', 's5', 's6'],
      labels: { 'edit:3': 'let it load' },
      codes: {
        s3: "pyautogui.write(message='wor')",
        'edit:1':
          "pyautogui.write(message='ld')\npyautogui.moveTo(x=0.5, y=0.5)\npyautogui.scroll(-3)",
      },
      descriptions: { 'edit:1': '' },
    },
  },
];

describe('applyEdits', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const before = structuredClone(BASE);
      const out = applyEdits(BASE, c.edits, { screen: SCREEN });
      const got = out.steps;
      expect(got.map((s) => s.id)).toEqual(c.expect.ids);
      expect(got.map((s) => s.index)).toEqual(c.expect.ids.map((_, i) => i));
      const byId = new Map(got.map((s) => [s.id, s]));
      for (const [id, label] of Object.entries(c.expect.labels ?? {})) {
        expect(byId.get(id)?.label, id).toBe(label);
      }
      for (const [id, code] of Object.entries(c.expect.codes ?? {})) {
        expect(callsToCode(byId.get(id)?.calls ?? []), id).toBe(code);
      }
      for (const [id, description] of Object.entries(c.expect.descriptions ?? {})) {
        expect(byId.get(id)?.description, id).toBe(description);
      }
      for (const [id, [startMs, endMs]] of Object.entries(c.expect.times ?? {})) {
        expect([byId.get(id)?.startMs, byId.get(id)?.endMs], id).toEqual([startMs, endMs]);
      }
      if (c.expect.edited) {
        expect([...out.editedIds].sort()).toEqual([...c.expect.edited].sort());
      }
      expect(out.skipped.map((s) => s.code)).toEqual(c.expect.skipped ?? []);
      expect(Object.fromEntries(out.marks)).toEqual(c.expect.marks ?? {});
      expect(out.trimmedOut).toBe(c.expect.trimmedOut ?? 0);
      // pure: the base steps are untouched
      expect(BASE).toEqual(before);
    });
  }

  it('keeps untouched steps as the same objects and drops imported rows of edited ones', () => {
    const out = applyEdits(
      BASE,
      log(
        { op: 'relabel', stepId: 's0', label: 'x' },
        { op: 'set-action', stepId: 's1', calls: [click(0.5, 0.5)] },
      ),
      { screen: SCREEN },
    );
    expect(out.steps[6]).toBe(BASE[6]);
    // a relabel keeps the imported AgentNet rows (re-emitted with the new label)
    expect(out.steps[0]?.extra.agentnet).toEqual(BASE[0]?.extra.agentnet);
    // changed calls make those rows wrong: the step is described afresh
    expect(out.steps[1]?.extra.agentnet).toBeUndefined();
    expect(out.steps[1]?.extra.edit).toEqual({ op: 'set-action', editId: 2, from: ['s1'] });
    expect(out.steps[1]?.coordinate).toEqual({ x: 500, y: 250 });
  });

  it('reports skipped edits with their id, op and a message naming the step', () => {
    const out = applyEdits(BASE, log({ op: 'delete', stepId: 'agentnet:99' }), { screen: SCREEN });
    expect(out.skipped).toEqual([
      {
        editId: 1,
        op: 'delete',
        code: 'STEP_MISSING',
        message: 'step agentnet:99 does not exist (any more)',
      },
    ]);
  });

  it('without a screen size, edited steps get no AgentNet description but keep their calls', () => {
    const out = applyEdits(BASE, log({ op: 'set-action', stepId: 's0', calls: [click(0.5, 0.5)] }));
    expect(out.steps[0]?.description).toBe('');
    expect(out.steps[0]?.diagnostics[0]).toMatch(/^AGENTNET_UNREPRESENTABLE: the screen size/);
  });
});

describe('call helpers', () => {
  it('mergeCalls joins adjacent plain writes only', () => {
    expect(mergeCalls([write('a'), press('enter')], [write('b'), write('c')])).toEqual([
      write('a'),
      press('enter'),
      write('bc'),
    ]);
  });

  it('splitCalls splits by code points and keeps keys before the offset first', () => {
    expect(splitCalls([write('ab'), press('enter'), write('c😀d')], 2)).toEqual([
      [write('ab'), press('enter')],
      [write('c😀d')],
    ]);
    expect(splitCalls([write('c😀d')], 2)).toEqual([[write('c😀')], [write('d')]]);
  });
});
